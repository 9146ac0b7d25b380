// An exception in a client's code during the search is a finding about that
// code: a violation of client_error, with a shortest trace that replays,
// not an error about the scenario. A rule broken (a misuse of the API, a
// broken declaration) still ends the run with exit code 2.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

// SET NX PX; a client that finds the lock taken reads its age with INCR,
// which a token is not: Redis answers with an error, which `call` raises
// and `pcall` returns.
std::string Lock(const char* call) {
  return std::string(R"(local s = lock.settings
local token = lock.random_token()
while true do
  local reply = redis.pcall("SET", s.key, token, "NX", "PX", s.ttl)
  if type(reply) == "table" and reply.ok then break end
  redis.)") +
         call + R"(("INCR", s.key)
  lock.sleep(1)
end
lock.enter(lock.now() + s.ttl)
lock.leave()
redis.pcall("DEL", s.key)
lock.forget()
)";
}

json Scenario(const char* call) {
  const json algorithm = {{"lua_inline", Lock(call)}};
  return {
      {"name", "client-error"},
      {"clients",
       {{{"name", "C1"}, {"algorithm", algorithm}}, {{"name", "C2"}, {"algorithm", algorithm}}}},
      {"lock", {{"key", "lock"}, {"ttl", 3}}},
      {"clock", {{"start", 0}, {"horizon", 6}}},
      {"assumptions", {{"max_arg_delay", 0}, {"holders_release_in_time", true}}},
      {"expect", "violation:client_error"}};
}

TEST_CASE("a Redis error a Lua lock does not handle is a violation of client_error",
          "[check][client_error]") {
  const scenario::Scenario s = scenario::LoadScenario(Scenario("call"), "e.json");
  // Checked in every scenario, without being named.
  CHECK(s.properties == std::vector<std::string>{"mutual_exclusion", "client_error"});
  const run::ExploreResult r = run::Explore(s);
  REQUIRE(r.search.verdict == explore::Verdict::kViolation);
  REQUIRE(r.counterexample);
  const trace::Trace& t = r.counterexample->trace;
  REQUIRE(t.violation);
  CHECK(t.violation->property == "client_error");
  CHECK(t.violation->clients == std::vector<std::string>{"C2"});
  // Named as the trace's steps name the script: the same message wherever
  // the trace is replayed from.
  CHECK(t.violation->message ==
        "C2's algorithm threw: lua_inline:6: ERR value is not an integer or out of range");
  // C1 takes the lock, C2 finds it taken, and its INCR throws.
  CHECK(t.schedule.size() == 3);
}

TEST_CASE(
    "explore reports a client's error with exit 1, a trace that replays, and goes on "
    "when the code handles it",
    "[check][client_error]") {
  testing::TempDir tmp;
  const std::string file = tmp.Write("e.json", Scenario("call").dump());
  const testing::ProcessResult r =
      testing::RunLockstep({"explore", file, "--json", "--out", tmp.path().string()});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const json report = json::parse(r.out);
  CHECK(report["verdict"] == "violation");
  CHECK(report["counterexample"]["violation"]["property"] == "client_error");
  const testing::ProcessResult replay =
      testing::RunLockstep({"replay", report["counterexample"]["file"]});
  INFO(replay.out << replay.err);
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "VIOLATION of client_error"));

  // pcall returns the error instead: the search goes on, and the lock is
  // safe.
  json handled = Scenario("pcall");
  handled["expect"] = "safe";
  const testing::ProcessResult ok =
      testing::RunLockstep({"explore", tmp.Write("h.json", handled.dump())});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(Has(ok.out, "SAFE: no violation of mutual_exclusion, client_error"));
}

TEST_CASE("a rule broken after the first step still ends the run with exit 2",
          "[check][client_error]") {
  // Leaving the critical section without having entered it is a misuse of
  // the API, not a finding about the lock.
  json doc = Scenario("pcall");
  doc["clients"][0]["algorithm"]["lua_inline"] = "redis.call('GET', 'x')\nlock.leave()\n";
  doc["clients"].erase(1);
  testing::TempDir tmp;
  const testing::ProcessResult r =
      testing::RunLockstep({"explore", tmp.Write("m.json", doc.dump())});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "leaves the critical section without having entered it"));
}

}  // namespace
}  // namespace lockstep

// A SAFE in which a client never entered the critical section says nothing
// about it: explore finds such clients, says so, exits 5, and the Catch2
// matcher IsSafe fails on it; a scenario may mark a client that need not
// enter.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "tests/explore/never_enters.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

constexpr const char* kNeverEnters = testing::kNeverEntersLua;

constexpr const char* kEnters = R"(local s = lock.settings
while true do
  local r = redis.call("SET", s.key, "x", "NX", "PX", s.ttl)
  if type(r) == "table" and r.ok then break end
  lock.sleep(1)
end
lock.enter(lock.now() + s.ttl)
lock.leave({"DEL", s.key})
)";

json Scenario(const char* c1, const char* c2) {
  return {{"name", "vacuity"},
          {"clients",
           {{{"name", "C1"}, {"algorithm", {{"lua_inline", c1}}}},
            {{"name", "C2"}, {"algorithm", {{"lua_inline", c2}}}},
            {{"name", "C3"}, {"crashed", true}}}},
          {"lock", {{"key", "lock"}, {"ttl", 3}}},
          {"clock", {{"start", 0}, {"horizon", 6}}},
          {"expect", "safe"}};
}

TEST_CASE("a SAFE in which no client entered is vacuous: said, in --json, exit 5",
          "[explore][vacuity]") {
  testing::TempDir tmp;
  const std::string file = tmp.Write("never.json", Scenario(kNeverEnters, kNeverEnters).dump());
  testing::ProcessResult text = testing::RunLockstep({"explore", file});
  INFO(text.out << text.err);
  CHECK(text.exit_code == 5);
  CHECK(Has(text.out, "SAFE: no violation"));
  CHECK(Has(text.out, "VACUOUS: C1 and C2 never entered the critical section"));
  testing::ProcessResult js = testing::RunLockstep({"explore", file, "--json"});
  CHECK(js.exit_code == 5);
  const json report = json::parse(js.out);
  CHECK(report["verdict"] == "safe");
  CHECK(report["vacuous"] == true);
  CHECK(report["never_entered"] == json::array({"C1", "C2"}));
}

TEST_CASE("only the client that never enters is named, and marked it makes the SAFE whole",
          "[explore][vacuity]") {
  json doc = Scenario(kEnters, kNeverEnters);
  const run::ExploreResult one = run::Explore(scenario::LoadScenario(doc, "one.json"));
  CHECK(one.safe());
  CHECK(one.vacuous());
  CHECK(one.never_entered == std::vector<std::string>{"C2"});

  doc["clients"][1]["may_never_enter"] = true;
  testing::TempDir tmp;
  const std::string file = tmp.Write("marked.json", doc.dump());
  testing::ProcessResult r = testing::RunLockstep({"explore", file});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "entered: C1 enters the critical section in some schedule"));
  CHECK_FALSE(Has(r.out, "VACUOUS"));
}

TEST_CASE("a lock whose clients all enter is not vacuous, with symmetry and without",
          "[explore][vacuity]") {
  // Symmetry would let C1's entering stand for C2's: the question is asked
  // without it, and each client is found inside.
  for (const char* symmetry : {"", "--no-symmetry"}) {
    std::vector<std::string> args = {"explore", testing::ScenarioPath("getset-docs-fix.json")};
    if (*symmetry) args.push_back(symmetry);
    testing::ProcessResult r = testing::RunLockstep(args);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(Has(r.out, "entered: C4 and C5 each enter the critical section in some schedule"));
  }
}

// Only the first SETNX wins and nothing lets go: each run has one client
// inside, C1 in some and C2 in others.
constexpr const char* kFirstSetnxEnters = R"(local s = lock.settings
if redis.call("SETNX", s.key, "x") == 1 then
  redis.call("GET", s.key)
  lock.enter(lock.now() + s.ttl)
end
)";

TEST_CASE("two interchangeable clients of which one enters per run each enter in some schedule",
          "[explore][vacuity]") {
  // Under symmetry a state with C2 inside is named as the one with C1
  // inside: asked about C2 alone, such a search finds it never inside.
  const json algorithm = {{"lua_inline", kFirstSetnxEnters}};
  const json doc = {
      {"name", "one-winner"},
      {"clients",
       {{{"name", "C1"}, {"algorithm", algorithm}}, {{"name", "C2"}, {"algorithm", algorithm}}}},
      {"lock", {{"ttl", 3}}},
      {"clock", {{"start", 0}, {"horizon", 4}}},
      {"expect", "safe"}};
  testing::TempDir tmp;
  const testing::ProcessResult r =
      testing::RunLockstep({"explore", tmp.Write("one-winner.json", doc.dump())});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "symmetry: C1,C2 interchangeable"));
  CHECK(Has(r.out, "entered: C1 and C2 each enter the critical section in some schedule"));
  CHECK_FALSE(Has(r.out, "VACUOUS"));
}

}  // namespace
}  // namespace lockstep

// A run that ends with a client still waiting, for a clock an assumption
// holds, is a deadlock: an exhaustive SAFE counts such end states and shows
// a shortest execution to one, no_stuck_states makes them violations, and
// a client the horizon stops is not stuck.
#include <fstream>
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

// A holder that works `work` ticks inside a lease of `ttl` ticks: longer
// than the lease, holders_release_in_time holds the clock, and nothing
// moves again.
std::string Holder(int work) {
  return R"(local s = lock.settings
while true do
  local r = redis.call("SET", s.key, "x", "NX", "PX", s.ttl)
  if type(r) == "table" and r.ok then break end
  lock.sleep(1)
end
lock.enter(lock.now() + s.ttl)
lock.sleep()" +
         std::to_string(work) +
         R"()
lock.leave({"DEL", s.key})
)";
}

json Scenario(int work) {
  const json algorithm = {{"lua_inline", Holder(work)}};
  return {
      {"name", "stuck"},
      {"clients",
       {{{"name", "C1"}, {"algorithm", algorithm}}, {{"name", "C2"}, {"algorithm", algorithm}}}},
      {"lock", {{"key", "lock"}, {"ttl", 2}}},
      {"clock", {{"start", 0}, {"horizon", 8}}},
      {"assumptions", {{"holders_release_in_time", true}}},
      {"expect", "safe"}};
}

TEST_CASE("a SAFE counts the runs that end stuck and shows a shortest one", "[explore][stuck]") {
  const run::ExploreResult r = run::Explore(scenario::LoadScenario(Scenario(3), "stuck.json"));
  REQUIRE(r.safe());
  CHECK(r.stuck_states > 0);
  REQUIRE(r.stuck);
  const trace::Trace& t = r.stuck->trace;
  REQUIRE(t.violation);
  CHECK(t.violation->property == "no_stuck_states");
  CHECK(Has(t.violation->message, "wait for a clock that cannot move"));
  CHECK(Has(t.violation->message, "(holders_release_in_time)"));
  // C1 acquires, enters and sleeps 3; two ticks; C2 finds the lock taken
  // and sleeps past 2, where C1's lease holds the clock: none is shorter.
  CHECK(t.schedule.size() == 4);

  // Checked, they are violations, and the counterexample is as short.
  json doc = Scenario(3);
  doc["properties"] = {"mutual_exclusion", "no_stuck_states"};
  doc["expect"] = "violation:no_stuck_states";
  const run::ExploreResult checked = run::Explore(scenario::LoadScenario(doc, "checked.json"));
  CHECK(checked.search.verdict == explore::Verdict::kViolation);
  REQUIRE(checked.counterexample);
  CHECK(checked.counterexample->trace.violation->property == "no_stuck_states");
  CHECK(checked.counterexample->trace.schedule.size() == t.schedule.size());
  CHECK(checked.stuck_states == 0);  // not counted: they are the verdict
}

TEST_CASE("a holder within its lease, and a waiter the horizon stops, are not stuck",
          "[explore][stuck]") {
  const run::ExploreResult in_time =
      run::Explore(scenario::LoadScenario(Scenario(1), "in_time.json"));
  CHECK(in_time.safe());
  CHECK(in_time.stuck_states == 0);
  CHECK_FALSE(in_time.stuck);

  // C1 crashes holding a lock without a TTL: C2 waits until the horizon,
  // which is the search's bound, not a deadlock.
  scenario::Scenario crash =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-expire-crash.json"));
  crash.world.horizon = 6;
  crash.properties = {"mutual_exclusion"};
  const run::ExploreResult cut = run::Explore(crash);
  CHECK(cut.safe());
  CHECK(cut.stuck_states == 0);
}

TEST_CASE("explore reports stuck states in text and --json, and saves one that replays",
          "[explore][stuck]") {
  testing::TempDir tmp;
  const std::string file = tmp.Write("stuck.json", Scenario(3).dump());
  const testing::ProcessResult text =
      testing::RunLockstep({"explore", file, "--out", tmp.path().string()});
  INFO(text.out << text.err);
  CHECK(text.exit_code == 0);
  CHECK(Has(text.out, "SAFE: no violation"));
  CHECK(Has(text.out, "end states where a client still waits for a clock that cannot move"));
  CHECK(Has(text.out, "the shortest, 4 steps:"));

  const testing::ProcessResult js =
      testing::RunLockstep({"explore", file, "--json", "--out", tmp.path().string()});
  CHECK(js.exit_code == 0);
  const json report = json::parse(js.out);
  CHECK(report["verdict"] == "safe");
  CHECK(report["stuck_states"].get<uint64_t>() > 0);
  CHECK(report["stuck"]["steps"] == 4);
  CHECK(report["stuck"]["clients"] == json::array({"C1", "C2"}));
  const std::string saved = report["stuck"]["file"];
  const testing::ProcessResult replay = testing::RunLockstep({"replay", saved});
  INFO(replay.out << replay.err);
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "no_stuck_states"));

  // A scenario without stuck states says so in --json, and nothing in text.
  const std::string fine = tmp.Write("fine.json", Scenario(1).dump());
  const json quiet = json::parse(testing::RunLockstep({"explore", fine, "--json"}).out);
  CHECK(quiet["stuck_states"] == 0);
  CHECK_FALSE(quiet.contains("stuck"));
  CHECK_FALSE(Has(testing::RunLockstep({"explore", fine}).out, "STUCK"));
}

TEST_CASE("bounded_liveness is retired: a scenario naming it is refused with what to use",
          "[explore][stuck]") {
  json doc = Scenario(1);
  doc["properties"] = {"mutual_exclusion", "bounded_liveness"};
  testing::TempDir tmp;
  const std::string file = tmp.Write("old.json", doc.dump());
  const testing::ProcessResult r = testing::RunLockstep({"explore", file});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "at /properties/1: bounded_liveness is retired"));
  CHECK(Has(r.err, "deadlock_free"));
  doc["properties"] = {"mutual_exclusion"};
  doc["expect"] = "violation:bounded_liveness";
  const testing::ProcessResult e =
      testing::RunLockstep({"explore", tmp.Write("expect.json", doc.dump())});
  CHECK(e.exit_code == 2);
  CHECK(Has(e.err, "at /expect: bounded_liveness is retired"));
}

TEST_CASE("a holder stuck one tick before the horizon is a deadlock and not the bound",
          "[explore][stuck]") {
  // C1 works 3 ticks on a lease of 2: at 2 it holds the clock, which could
  // still move to the horizon at 3. Only a clock at the horizon is exempt.
  json doc = Scenario(3);
  doc["clock"]["horizon"] = 3;
  doc["properties"] = {"mutual_exclusion", "no_stuck_states"};
  doc["expect"] = "violation:no_stuck_states";
  const run::ExploreResult r = run::Explore(scenario::LoadScenario(doc, "near-horizon.json"));
  REQUIRE(r.search.verdict == explore::Verdict::kViolation);
  REQUIRE(r.counterexample);
  const trace::Trace& t = r.counterexample->trace;
  CHECK(t.violation->property == "no_stuck_states");
  CHECK(t.violation->step == 4);
  CHECK(t.schedule.size() == 4);
  CHECK(Has(t.violation->message, "must release it before its clock passes 2"));
}

}  // namespace
}  // namespace lockstep

// The SETNX documentation's narratives, pinned step by step. Oracle: the
// narratives themselves (the Redis SETNX page's race and its GETSET fix),
// traced by hand; the timestamps follow from the scenarios' clocks.
#include <catch2/catch.hpp>

#include "sim/algo/lock_timestamp.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::ScenarioPath;

TEST_CASE("a lock timestamp is expired iff it is older than the current time") {
  CHECK(algo::TimestampExpired(9, 10));
  CHECK_FALSE(algo::TimestampExpired(10, 10));
  CHECK_FALSE(algo::TimestampExpired(11, 10));
  CHECK(algo::ParseTimestamp("13") == 13);
  CHECK(algo::ParseTimestamp("-3") == -3);
  CHECK_FALSE(algo::ParseTimestamp("13x").has_value());
  CHECK_FALSE(algo::ParseTimestamp("").has_value());
}

TEST_CASE("setnx_docs_race: C1 and C2 both DEL and both SETNX, so both hold the lock") {
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath("setnx-docs-race.json"));
  trace::Trace t = run::ReplaySchedule(s);
  CHECK(trace::OneLine(t) ==
        "C1 SETNX lock.foo 13 -> 0; C2 SETNX lock.foo 13 -> 0; "
        "C1 GET lock.foo -> \"7\"; C2 GET lock.foo -> \"7\"; "
        "C1 DEL lock.foo -> 1; C1 SETNX lock.foo 13 -> 1; "
        "C2 DEL lock.foo -> 1; C2 SETNX lock.foo 13 -> 1 "
        "!mutual_exclusion(C1,C2)@8");
  REQUIRE(t.violation);
  CHECK(t.violation->message == "C1 and C2 are in the critical section at once");
  // C2's DEL removed the lock C1 had just written.
  CHECK(t.steps[6].writers.at("lock.foo") == "C1");
  CHECK(t.steps[7].keyspace.empty());
}

TEST_CASE("getset_docs_fix: C4's GETSET sees C5's live timestamp and C4 restarts") {
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath("getset-docs-fix.json"));
  trace::Trace t = run::ReplaySchedule(s);
  CHECK(trace::OneLine(t) ==
        "C4 SETNX lock.foo 13 -> 0; C5 SETNX lock.foo 13 -> 0; "
        "C4 GET lock.foo -> \"7\"; C5 GET lock.foo -> \"7\"; "
        "C5 GETSET lock.foo 13 -> \"7\"; C4 GETSET lock.foo 13 -> \"13\"; "
        "C4 SETNX lock.foo 13 -> 0; C4 GET lock.foo -> \"13\"; "
        "C5 leaves; C5 DEL lock.foo -> 1; tick; "
        "C4 SETNX lock.foo 14 -> 1; C4 leaves; C4 DEL lock.foo -> 1");
  CHECK_FALSE(t.violation);
  CHECK(t.steps[5].in_critical_section == std::vector<std::string>{"C5"});
  CHECK(t.steps[6].in_critical_section == std::vector<std::string>{"C5"});
}

TEST_CASE("the naive takeover on a GET of nil retries SETNX at once") {
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath("setnx-docs-race.json"));
  // C1 fails SETNX, C2 takes over fully; after C2 releases, C1's GET sees nil.
  s.schedule.clear();
  for (const char* a : {"C1", "C2", "C2", "C2", "C2", "C2", "C2", "C1", "C1"}) {
    s.schedule.push_back(world::ParseAction(a, {"C1", "C2", "C3"}));
  }
  trace::Trace t = run::ReplaySchedule(s);
  CHECK(trace::OneLine(t) ==
        "C1 SETNX lock.foo 13 -> 0; C2 SETNX lock.foo 13 -> 0; C2 GET lock.foo -> \"7\"; "
        "C2 DEL lock.foo -> 1; C2 SETNX lock.foo 13 -> 1; C2 leaves; C2 DEL lock.foo -> 1; "
        "C1 GET lock.foo -> nil; C1 SETNX lock.foo 13 -> 1");
}

TEST_CASE("a release after the holder's own timestamp expired does not DEL") {
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath("getset-docs-fix.json"));
  s.world.assumptions.holders_release_in_time = false;
  s.schedule.clear();
  for (const char* a : {"C5", "C5", "C5", "tick", "tick", "tick", "tick", "C5"}) {
    s.schedule.push_back(world::ParseAction(a, {"C3", "C4", "C5"}));
  }
  trace::Trace t = run::ReplaySchedule(s);
  CHECK(trace::OneLine(t) ==
        "C5 SETNX lock.foo 13 -> 0; C5 GET lock.foo -> \"7\"; C5 GETSET lock.foo 13 -> \"7\"; "
        "tick; tick; tick; tick; C5 leaves");
  CHECK(t.steps.back().keyspace.size() == 1);  // the stale lock stays for others to take over
  CHECK(t.steps.back().holding.empty());
}

}  // namespace
}  // namespace lockstep

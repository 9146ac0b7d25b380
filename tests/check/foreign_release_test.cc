// foreign_release follows ownership, not the last writer: a value belongs to
// the acquisition of the client that entered the critical section holding
// it. Each case is a scenario replayed step by step, then explored with and
// without reductions.
#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

explore::SearchResult Search(const scenario::Scenario& sc, explore::Reductions r) {
  explore::SearchOptions o;
  o.reductions = r;
  if (!r.cache) o.bounds.max_steps = 40;
  return explore::DepthFirstSearch(sc.world, explore::MakeProperties(sc.properties), o);
}

TEST_CASE("the owner's release after a losing GETSET wrote its value back is not foreign") {
  // The documented fix: C5's GETSET takes the expired lock over and C5
  // enters; C4's GETSET, at the same clock, writes the same timestamp back
  // and loses. C5's DEL then removes its own lock, though C4 wrote last.
  testing::TempDir dir;
  std::string text = testing::ReadText(testing::ScenarioPath("getset-docs-fix.json"));
  text.replace(text.find("\"expect\""), 0, "\"properties\": [\"foreign_release\"],\n  ");
  scenario::Scenario s = scenario::LoadScenarioFile(dir.Write("s.json", text));
  trace::Trace t = run::ReplaySchedule(s);
  INFO(trace::Timeline(t));
  // The GETSET race happened: C4 wrote C5's timestamp back, then C5 released.
  bool c4_wrote_back = false;
  for (const auto& step : t.steps) {
    auto w = step.writers.find("lock.foo");
    c4_wrote_back |= step.actor == "C4" && w != step.writers.end() && w->second == "C4" &&
                     !step.in_critical_section.empty();
  }
  CHECK(c4_wrote_back);
  CHECK_FALSE(t.violation);
  for (explore::Reductions r :
       {explore::Reductions{}, explore::Reductions{.symmetry = false, .por = false}}) {
    explore::SearchResult res = Search(s, r);
    CHECK(res.verdict == explore::Verdict::kSafe);
  }
}

TEST_CASE("a release that removes another client's acquired lock is still foreign") {
  // The GET-compare-DEL release: C1 compares, stalls past its TTL, C2
  // acquires, and C1's DEL removes C2's lock.
  scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("set-px-get-del-stall.json"));
  REQUIRE(s.expect.property == "foreign_release");
  for (explore::Reductions r :
       {explore::Reductions{}, explore::Reductions{.symmetry = false, .por = false}}) {
    explore::SearchResult res = Search(s, r);
    REQUIRE(res.verdict == explore::Verdict::kViolation);
    scenario::Scenario found = s;
    found.schedule = res.counterexample;
    trace::Trace t = run::ReplaySchedule(found);
    REQUIRE(t.violation);
    CHECK(t.violation->property == "foreign_release");
    CHECK(t.violation->message.find("was C2's lock") != std::string::npos);
  }
}

}  // namespace
}  // namespace lockstep

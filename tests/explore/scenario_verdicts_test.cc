// The GETSET races pinned step by step. That every scenario reaches the
// outcome it expects by exhaustive search, with no schedule given, is
// `lockstep test` over them (tests/cli/test_command_test.cc).
#include <filesystem>

#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

TEST_CASE(
    "getset_stale_timestamp: a GETSET whose timestamp is 3 ticks old when it lands lets two "
    "clients in") {
  scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-stale-timestamp.json"));
  trace::Trace t = run::ReplaySchedule(s);
  // Oracle: hand derivation: both clients read the expired "0"; C1's GETSET
  // lands with a timestamp 3 ticks old (schedule "C1~3"), which C2's GETSET
  // then finds expired, so both take the lock over.
  CHECK(trace::OneLine(t) ==
        "C1 SETNX lock.foo 3 -> 0; C2 SETNX lock.foo 3 -> 0; tick; "
        "C1 GET lock.foo -> \"0\"; C2 GET lock.foo -> \"0\"; tick; tick; tick; "
        "C1 GETSET lock.foo 4 -> \"0\"; tick; C2 GETSET lock.foo 8 -> \"4\" "
        "!mutual_exclusion(C1,C2)@11");
  CHECK(t.schedule[8] == "C1~3");
  // And the search finds a counterexample this short by itself.
  auto shortest = explore::ShortestCounterexample(s.world, explore::MakeProperties(s.properties),
                                                  30, 1'000'000);
  REQUIRE(shortest);
  // Regression guard, bounded by the hand-derived schedule above (11 steps).
  CHECK(shortest->counterexample.size() == 11);
}

TEST_CASE("the GETSET fix is safe exactly while the argument delay is at most T+1-D") {
  scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath("getset-bounded.json"));
  s.world.clients.resize(2);
  s.algorithms.resize(2);
  explore::Properties props = explore::MakeProperties(s.properties);
  for (int delay = 0; delay <= 4; ++delay) {
    INFO("max_arg_delay " << delay);
    s.world.assumptions.max_arg_delay = delay;
    explore::SearchResult r = explore::DepthFirstSearch(s.world, props, {});
    // T = 2, D = 1: safe iff delay <= 2.
    CHECK(r.verdict == (delay <= 2 ? explore::Verdict::kSafe : explore::Verdict::kViolation));
  }
  s.world.assumptions.max_arg_delay = std::nullopt;
  CHECK(explore::DepthFirstSearch(s.world, props, {}).verdict == explore::Verdict::kViolation);
}

TEST_CASE("a search on two threads gives the same verdict and the same states as on one",
          "[sweep]") {
  for (const char* file : {"getset-bounded.json", "getset-delay-2.json"}) {
    scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath(file));
    s.world.clients.resize(4);
    s.algorithms.resize(4);
    explore::SearchOptions one, two;
    two.jobs = 2;
    auto r1 = explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), one);
    auto r2 = explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), two);
    CHECK(r1.verdict == explore::Verdict::kSafe);
    CHECK(r2.verdict == r1.verdict);
    CHECK(r2.stats.states == r1.stats.states);
  }
  scenario::Scenario naive = scenario::LoadScenarioFile(testing::ScenarioPath("setnx-naive.json"));
  explore::SearchOptions two;
  two.jobs = 2;
  auto r = explore::DepthFirstSearch(naive.world, explore::MakeProperties(naive.properties), two);
  CHECK(r.verdict == explore::Verdict::kViolation);
}

}  // namespace
}  // namespace lockstep

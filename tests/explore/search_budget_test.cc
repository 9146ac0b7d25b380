// Budgets of work (Bounds::max_transitions, Bounds::max_states): a search
// stops at the same place on every machine, and says it was the budget.
#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

TEST_CASE("a transition budget stops a depth-first search at exactly that many transitions") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-delay-2.json"));
  for (bool cache : {true, false}) {
    INFO("state caching " << cache);
    explore::SearchOptions o;
    o.reductions.cache = cache;
    o.reductions.por = cache;
    o.bounds.max_steps = 40;
    o.bounds.max_transitions = 1'000;
    const explore::SearchResult r =
        explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), o);
    REQUIRE(r.verdict == explore::Verdict::kIncomplete);
    CHECK(r.incomplete == "stopped after 1000 transitions");
    CHECK(r.stats.transitions == 1'001);  // the one past the budget stops it
  }
}

// A step bound that cut a path short before the budget ran out is not why
// the search stopped: the budget is.
TEST_CASE("a budget that stops a search after a step bound cut a path is the reason given") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-delay-2.json"));
  for (bool states : {true, false}) {
    INFO((states ? "max_states" : "max_transitions"));
    explore::SearchOptions o;
    o.bounds.max_steps = 8;
    if (states) o.bounds.max_states = 100;
    if (!states) o.bounds.max_transitions = 100;
    const explore::SearchResult r =
        explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), o);
    REQUIRE(r.verdict == explore::Verdict::kIncomplete);
    INFO(r.stats.transitions << " transitions, " << r.stats.states << " states");
    CHECK(r.incomplete ==
          (states ? explore::StateBudgetText(100) : explore::TransitionBudgetText(100)));
    INFO(r.stats.transitions << " transitions, " << r.stats.states << " states");
    CHECK(r.stats.max_depth == 8);  // the step bound was met first
  }
}

}  // namespace
}  // namespace lockstep

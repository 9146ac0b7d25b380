// Several jobs against one: the states a search reaches must not depend on
// how many threads share its visited-state table, nor on the order in which
// they meet states. Under a step bound that order decides which path first
// reaches a state, so a state fingerprint that merges states with different
// futures shows up here first.
#include <algorithm>

#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Fingerprint;

// Every state within the scenario's step bound, ghost data included (no
// violation cuts the search short), sorted.
std::vector<Fingerprint> States(const scenario::Scenario& sc, bool cache, int jobs) {
  explore::SearchOptions o;
  // No ForgetHistory, symmetry or sleep sets: states named as plain
  // enumeration names them, every transition taken.
  o.reductions = {.cache = cache, .symmetry = false, .por = false, .forget_history = false};
  o.jobs = jobs;
  o.collect_states = true;
  o.bounds.max_steps = sc.max_steps;
  explore::SearchResult r =
      explore::DepthFirstSearch(sc.world, soundness::GhostProperties(sc.properties), o);
  std::sort(r.states.begin(), r.states.end(), [](const Fingerprint& x, const Fingerprint& y) {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  });
  return r.states;
}

TEST_CASE(
    "a step-bounded search on two jobs reaches the states one job and plain enumeration reach") {
  // A crashed client's write to a fenced resource decides whether the other
  // client's later write is accepted; two jobs meet the states before and
  // after that write in another order than one job does.
  const scenario::Scenario sc = scenario::LoadScenarioFile(
      testing::SourceDir() + "/tests/soundness/regressions/jobs2-step-bound.json");
  const std::vector<Fingerprint> plain = States(sc, /*cache=*/false, 1);
  REQUIRE(plain.size() > 100);
  CHECK(States(sc, /*cache=*/true, 1) == plain);
  CHECK(States(sc, /*cache=*/true, 2) == plain);
}

}  // namespace
}  // namespace lockstep

// Every reduction is checked against an oracle on every shipped scenario,
// at bounds that reach its expected outcome, with its properties on and
// the state sets compared with their ghost data (docs/design.md, Checking the reductions):
//  - a scenario that expects a violation is cut to the clients its shortest
//    counterexample moves and to that many steps, and compared by the
//    soundness harness (tests/soundness/): every mode of `explore` against
//    true plain enumeration, verdicts and reachable states;
//  - a safe scenario's whole space (horizon and clients as shipped, down to
//    what a cached search covers within the budget below) is searched with
//    state caching and ForgetHistory alone (no symmetry, no sleep sets): the
//    oracle, whose set of states the harness checks against plain
//    enumeration on random scenarios. (Without ForgetHistory a client that
//    retries has a new history each time: a safe space has no end.)
//    The default search and each reduction turned off must give its verdict,
//    and sleep sets must reach its states.
// One test case per group of scenarios, so that ctest -j2 overlaps them.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <catch2/catch.hpp>

#include "sim/base/limits.h"
#include "sim/check/liveness.h"
#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Fingerprint;
using nlohmann::json;

struct Outcome {
  explore::Verdict verdict;
  std::vector<Fingerprint> states;
  uint64_t transitions;
};

Outcome Search(const scenario::Scenario& s, explore::Reductions r, bool with_properties,
               int max_steps) {
  explore::SearchOptions o;
  o.reductions = r;
  o.bounds.max_steps = max_steps;
  o.collect_states = true;
  explore::Properties props =
      with_properties ? explore::MakeProperties(s.properties) : explore::Properties{};
  explore::SearchResult res = explore::DepthFirstSearch(s.world, props, o);
  std::sort(res.states.begin(), res.states.end(), [](const Fingerprint& x, const Fingerprint& y) {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  });
  return {res.verdict, res.states, res.stats.transitions};
}

std::vector<std::string> Scenarios(const std::string& prefix) {
  std::vector<std::string> files = testing::AllScenarioPaths();
  std::erase_if(files, [&](const std::string& f) {
    return !std::filesystem::path(f).filename().string().starts_with(prefix);
  });
  return files;
}

// A violation: the shortest counterexample's clients and length, then every
// mode against plain enumeration.
void CheckViolation(const scenario::Scenario& s) {
  auto shortest = explore::ShortestCounterexample(s.world, explore::MakeProperties(s.properties),
                                                  40, base::Limits::kShrinkStates);
  REQUIRE(shortest);
  int last = 0;
  for (const world::Action& a : shortest->counterexample) last = std::max(last, a.client);
  json doc = s.document;
  json clients = json::array();
  for (size_t i = 0; i < doc["clients"].size(); ++i) {
    if (static_cast<int>(i) <= last || doc["clients"][i].value("crashed", false)) {
      clients.push_back(doc["clients"][i]);
    }
  }
  doc["clients"] = clients;
  doc["max_steps"] = static_cast<int>(shortest->counterexample.size());
  INFO("clients " << clients.size() << ", max_steps " << doc["max_steps"]);
  std::cout << s.file << ": compared at " << clients.size() << " clients, max_steps "
            << doc["max_steps"] << "\n";
  const soundness::Comparison c =
      soundness::Compare(doc, {.max_transitions = 300'000, .max_states = {}});
  REQUIRE(c.loaded);
  if (c.finished) {
    CHECK(c.plain_verdict == s.expect.Text());
    for (const auto& d : c.disagreements) FAIL_CHECK(d.Text());
    return;
  }
  // Too long for plain enumeration (Redlock's 18 and 26 steps): every
  // cached mode must still find the expected violation within those steps.
  // The distributed search, breadth first, covers every shallower state
  // before it: one number of ranks here; distributed_test.cc holds it to
  // the depth-first search on every scenario.
  const scenario::Scenario cut = scenario::LoadScenario(doc, s.file);
  for (const soundness::Mode& mode : soundness::ExploreModes()) {
    if (!mode.reductions.cache) continue;
    if (mode.ranks != 0 && (mode.ranks != 2 || !mode.reductions.symmetry)) continue;
    INFO(mode.name);
    const soundness::Outcome m =
        soundness::Search(cut, explore::MakeProperties(cut.properties), mode, false,
                          {.max_transitions = 1'000'000, .max_states = {}});
    REQUIRE(!m.out_of_time);
    CHECK(m.Verdict() == s.expect.Text());
  }
}

// Makes `s` smaller for the suite's budget: one contender fewer down to
// two, then a lower horizon (one that never ticks exercises no property
// about time). False if it cannot.
bool Smaller(scenario::Scenario& s) {
  if (s.world.clients.size() > 2) {
    s.world.clients.pop_back();
    return true;
  }
  if (!s.world.horizon || *s.world.horizon <= s.world.start_time) return false;
  --*s.world.horizon;
  return true;
}

std::string BoundsText(const scenario::Scenario& s) {
  return world::HorizonText(s.world.horizon) + ", " + std::to_string(s.world.clients.size()) +
         " clients";
}

// A safe scenario: its whole space with caching alone is the oracle.
// `states`: the oracle's budget, counted exactly (the same cut on every
// machine), which picks the bounds; ghost data may split them in two.
void CheckSafe(scenario::Scenario s, uint64_t states) {
  // The other searches may take more transitions (sleep sets revisit
  // states), which must not run out.
  const soundness::Limits budget{.max_transitions = 10'000'000, .max_states = states};
  const soundness::Limits more{.max_transitions = 10'000'000, .max_states = {}};
  soundness::Mode exact;
  exact.name = "state caching and ForgetHistory alone";
  exact.reductions = {.cache = true, .symmetry = false, .por = false, .forget_history = true};
  const explore::Properties properties = explore::MakeProperties(s.properties);
  soundness::Outcome oracle = soundness::Search(s, properties, exact, false, budget);
  while (oracle.out_of_time && Smaller(s)) {  // too large for the suite: the largest that fits
    oracle = soundness::Search(s, properties, exact, false, budget);
  }
  REQUIRE(!oracle.out_of_time);
  INFO(BoundsText(s));
  std::cout << s.file << ": compared at " << BoundsText(s) << ", " << oracle.result.stats.states
            << " states\n";
  CHECK(oracle.Verdict() == "safe");
  for (const soundness::Mode& mode : soundness::ExploreModes()) {
    const bool single_off =
        mode.name == "default" || mode.name == "--no-symmetry" || mode.name == "--no-por";
    if (!single_off) continue;
    INFO(mode.name);
    const soundness::Outcome m = soundness::Search(s, properties, mode, false, more);
    REQUIRE(!m.out_of_time);
    CHECK(m.Verdict() == oracle.Verdict());
  }
  // Sleep sets prune transitions, never states: the same states, ghost data
  // included, with symmetry off and on.
  // Ghost data splits states: where these do not fit, smaller bounds do.
  const soundness::Limits ghost_budget{.max_transitions = 10'000'000, .max_states = 2 * states};
  const explore::Properties ghost = soundness::GhostProperties(s.properties);
  for (bool symmetry : {false, true}) {
    soundness::Mode without = exact, with = exact;
    without.reductions.symmetry = with.reductions.symmetry = symmetry;
    with.reductions.por = true;
    soundness::Outcome a = soundness::Search(s, ghost, without, true, ghost_budget);
    while (a.out_of_time && Smaller(s)) {
      a = soundness::Search(s, ghost, without, true, ghost_budget);
    }
    INFO("symmetry " << symmetry << ", " << BoundsText(s));
    const soundness::Outcome b = soundness::Search(s, ghost, with, true, more);
    REQUIRE(!a.out_of_time);
    REQUIRE(!b.out_of_time);
    CHECK(b.result.states == a.result.states);
    std::cout << s.file << ": sleep sets' states compared at " << BoundsText(s)
              << (symmetry ? ", symmetry on, " : ", ") << a.result.states.size() << " states\n";
  }
}

// The oracle's budget for safe scenarios: enough for most to keep their
// clients and horizon; Redlock's spaces grow fastest with the clock, and
// one tick of redlock-restart-delayed takes 87,541 states.
constexpr uint64_t kStates = 20'000, kRedlockStates = 100'000;

void CheckScenarios(const std::string& prefix, uint64_t states = kStates) {
  const std::vector<std::string> files = Scenarios(prefix);
  REQUIRE(!files.empty());
  for (const std::string& file : files) {
    // Under the sanitizers, the half of the scenarios every long sweep runs.
    if (!testing::InScenarioSweep(file)) continue;
    INFO(file);
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    // The reductions serve the safety search; a liveness violation is
    // checked in liveness_test.cc, and the safety part here is safe.
    if (check::IsLiveness(s.expect.property)) s.expect = {};
    if (s.expect.safe) {
      CheckSafe(s, states);
    } else {
      CheckViolation(s);
    }
  }
}

TEST_CASE("every reduction agrees with its oracle on the getset scenarios", "[sweep]") {
  CheckScenarios("getset-");
}
TEST_CASE("every reduction agrees with its oracle on the redlock scenarios", "[sweep]") {
  CheckScenarios("redlock-", kRedlockStates);
}
TEST_CASE("every reduction agrees with its oracle on the set-px scenarios", "[sweep]") {
  CheckScenarios("set-px-");
}
TEST_CASE("every reduction agrees with its oracle on the setnx scenarios", "[sweep]") {
  CheckScenarios("setnx-");
}
TEST_CASE("every reduction agrees with its oracle on the other scenarios", "[scaled]") {
  for (const char* prefix :
       {"clock-", "fenced-", "greedy-", "holder-", "lost-", "replica-", "restart-", "unfenced-"}) {
    CheckScenarios(prefix);
  }
}

TEST_CASE("the scenario groups above cover every shipped scenario") {
  size_t grouped = 0;
  for (const char* prefix : {"getset-", "redlock-", "set-px-", "setnx-", "clock-", "fenced-",
                             "greedy-", "holder-", "lost-", "replica-", "restart-", "unfenced-"}) {
    grouped += Scenarios(prefix).size();
  }
  CHECK(grouped == Scenarios("").size());
}

TEST_CASE(
    "the reductions do reduce: fewer states with symmetry, fewer transitions with sleep sets") {
  scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath("getset-bounded.json"));
  s.world.clients.resize(3);
  explore::Reductions none;
  none.symmetry = false;
  none.por = false;
  explore::Reductions por = none;
  por.por = true;
  explore::Reductions all;
  Outcome a = Search(s, none, true, 1000), b = Search(s, por, true, 1000),
          c = Search(s, all, true, 1000);
  CHECK(a.verdict == explore::Verdict::kSafe);
  CHECK(b.states.size() == a.states.size());
  CHECK(b.transitions < a.transitions);
  CHECK(c.states.size() * 3 < a.states.size());
}

}  // namespace
}  // namespace lockstep

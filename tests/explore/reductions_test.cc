// Every reduction is checked against plain enumeration on small
// configurations of every scenario: the same verdict, and the same set of
// reachable states (DESIGN.md, Exploration).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Fingerprint;

// Small enough for plain enumeration: at most three contenders, three ticks
// (one with several servers, whose commands and faults multiply the
// interleavings).
scenario::Scenario Small(const std::string& file) {
  scenario::Scenario s = scenario::LoadScenarioFile(file);
  std::vector<world::ClientSetup> kept;
  int contenders = 0;
  for (const auto& c : s.world.clients) {
    if (c.crashed || contenders < 3) {
      contenders += !c.crashed;
      kept.push_back(c);
    }
  }
  s.world.clients = kept;
  const int ticks = s.world.servers.size() > 1 ? 1 : 3;
  s.world.horizon = std::min(s.world.horizon, s.world.start_time + ticks);
  return s;
}

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

explore::Reductions Plain(bool symmetry) {
  explore::Reductions r;
  r.cache = false;
  r.por = false;
  r.symmetry = symmetry;  // without caching, symmetry only names the states counted
  return r;
}

TEST_CASE("state caching, sleep sets and symmetry reach exactly the states plain enumeration reaches") {
  const int kDepth = 9;
  for (const std::string& file : testing::AllScenarioPaths()) {
    INFO(file);
    scenario::Scenario s = Small(file);
    for (bool symmetry : {false, true}) {
      INFO("symmetry " << symmetry);
      Outcome plain = Search(s, Plain(symmetry), false, kDepth);
      REQUIRE(!plain.states.empty());
      for (bool por : {false, true}) {
        INFO("por " << por);
        explore::Reductions r;
        r.symmetry = symmetry;
        r.por = por;
        Outcome reduced = Search(s, r, false, kDepth);
        CHECK(reduced.states == plain.states);
        CHECK(reduced.verdict == plain.verdict);
        CHECK(reduced.transitions <= plain.transitions);
      }
    }
  }
}

TEST_CASE("every reduction gives plain enumeration's verdict on every scenario") {
  const int kDepth = 11;
  for (const std::string& file : testing::AllScenarioPaths()) {
    INFO(file);
    scenario::Scenario s = Small(file);
    Outcome plain = Search(s, Plain(false), true, kDepth);
    for (bool cache : {false, true}) {
      for (bool symmetry : {false, true}) {
        for (bool por : {false, true}) {
          explore::Reductions r;
          r.cache = cache;
          r.symmetry = symmetry;
          r.por = por;
          INFO("cache " << cache << " symmetry " << symmetry << " por " << por);
          // Under a step bound, plain enumeration is cut short wherever any
          // path is long, while a cached search reaches each state by its
          // shortest path: so compare "violation or not", and "safe" only
          // when plain enumeration finished.
          explore::Verdict v = Search(s, r, true, kDepth).verdict;
          CHECK((v == explore::Verdict::kViolation) == (plain.verdict == explore::Verdict::kViolation));
          if (plain.verdict == explore::Verdict::kSafe) CHECK(v == explore::Verdict::kSafe);
        }
      }
    }
  }
}

TEST_CASE("the reductions do reduce: fewer states with symmetry, fewer transitions with sleep sets") {
  scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath("getset-bounded.json"));
  s.world.clients.resize(3);
  explore::Reductions none;
  none.symmetry = false;
  none.por = false;
  explore::Reductions por = none;
  por.por = true;
  explore::Reductions all;
  Outcome a = Search(s, none, true, 1000), b = Search(s, por, true, 1000), c = Search(s, all, true, 1000);
  CHECK(a.verdict == explore::Verdict::kSafe);
  CHECK(b.states.size() == a.states.size());
  CHECK(b.transitions < a.transitions);
  CHECK(c.states.size() * 3 < a.states.size());
}

}  // namespace
}  // namespace lockstep

// The Markov decision process solver (sim/mdp) against answers found by
// enumeration (brute_force.h) on small processes drawn at random, and on
// a few whose answers are known by hand.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/mdp/end_components.h"
#include "sim/mdp/odds.h"
#include "tests/mdp/brute_force.h"

namespace lockstep {
namespace {

using mdp::Mdp;
using mdp::Objective;
using mdp::Outcome;
using mdp::Rational;

constexpr uint32_t kC1 = 1, kC2 = 2;

// The solver's answer: some maximal end component of the kept states is
// weakly fair and passes a witness.
bool SolverFindsFairComponent(const testing::SmallMdp& s) {
  const auto ecs = mdp::MaximalEndComponents(
      s.m, [&](int v) { return s.keep[v] != 0; }, [](int) { return true; });
  return std::any_of(ecs.begin(), ecs.end(), [&](const mdp::EndComponent& ec) {
    return mdp::WeaklyFair(s.m, ec) &&
           std::any_of(ec.states.begin(), ec.states.end(), [&](int v) { return s.witness[v]; });
  });
}

uint32_t ChoiceSet(const mdp::EndComponent& ec) {
  uint32_t set = 0;
  for (int c : ec.choices) set |= 1u << c;
  return set;
}

TEST_CASE("mdp: a coin thrown until it lands heads lands heads with probability 1", "[mdp]") {
  Mdp m;
  m.AddState();  // 0: throw
  const Outcome throw_it[] = {{.to = 1}, {.to = 0}};
  m.AddChoice(kC1, throw_it);
  m.AddState();  // 1: heads
  const std::vector<char> heads = {0, 1};
  for (Objective o : {Objective::kLeast, Objective::kGreatest}) {
    const mdp::Probabilities p = mdp::ReachProbabilities(m, heads, o);
    CHECK_FALSE(p.exact);  // a cycle: bounded by iteration
    CHECK(p.converged);
    CHECK(p.lower[0] <= 1.0);
    CHECK(p.lower[0] >= 1.0 - 1e-9);
    CHECK(p.upper[0] == 1.0);
  }
  // Nothing stays for ever: the throw's loop is no end component.
  CHECK(mdp::MaximalEndComponents(
            m, [](int v) { return v == 0; }, [](int) { return true; })
            .empty());
}

TEST_CASE("mdp: an adversary that may wait for ever keeps the least odds at 0", "[mdp]") {
  Mdp m;
  m.AddState();  // 0: wait, or go
  const Outcome wait[] = {{.to = 0}};
  const Outcome go[] = {{.to = 1}};
  m.AddChoice(kC1, wait);
  m.AddChoice(kC2, go);
  m.AddState();  // 1: the target
  const std::vector<char> target = {0, 1};
  const mdp::Probabilities least = mdp::ReachProbabilities(m, target, Objective::kLeast);
  const mdp::Probabilities most = mdp::ReachProbabilities(m, target, Objective::kGreatest);
  CHECK(least.exact);
  CHECK(least.value[0] == 0);
  CHECK(most.upper[0] == 1.0);
  CHECK(most.lower[0] == 1.0);
  // Waiting for ever is unfair to C2, which is enabled throughout.
  const auto ecs = mdp::MaximalEndComponents(
      m, [](int v) { return v == 0; }, [](int) { return true; });
  REQUIRE(ecs.size() == 1);
  CHECK(ecs[0].choices == std::vector<int>{0});
  CHECK_FALSE(mdp::WeaklyFair(m, ecs[0]));
}

TEST_CASE("mdp: the odds of a horizon without cycles are exact rationals", "[mdp]") {
  Mdp m;
  m.AddState();  // 0: a draw of three: the target, a second draw, or the end
  const Outcome three[] = {{.to = 3}, {.to = 1}, {.to = 2}};
  m.AddChoice(kC1, three);
  m.AddState();  // 1: a draw of two: the target, or the end
  const Outcome two[] = {{.to = 3}, {.to = 2}};
  m.AddChoice(kC1, two);
  const Outcome end[] = {{.to = 2}};
  m.AddChoice(kC2, end);
  m.AddState();  // 2: the end
  m.AddState();  // 3: the target
  const std::vector<char> target = {0, 0, 0, 1};
  const mdp::Probabilities most = mdp::ReachProbabilities(m, target, Objective::kGreatest);
  const mdp::Probabilities least = mdp::ReachProbabilities(m, target, Objective::kLeast);
  REQUIRE(most.exact);
  REQUIRE(least.exact);
  CHECK(most.value[0] == Rational(1, 2));  // 1/3 + 1/3 * 1/2
  CHECK(least.value[0] == Rational(1, 3));
  CHECK(most.iterations == 0);
}

TEST_CASE("mdp: end components and their fairness, against every set of choices", "[mdp]") {
  int found = 0, clean = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const testing::SmallMdp s = testing::DrawMdp(seed, seed % 2 == 0);
    INFO("seed " << seed);
    const bool expected = testing::HasFairWitnessedEndComponent(s);
    CHECK(SolverFindsFairComponent(s) == expected);
    (expected ? found : clean) += 1;
    // Each maximal end component is an end component, and every end
    // component lies in exactly one of them.
    const auto ecs = mdp::MaximalEndComponents(
        s.m, [&](int v) { return s.keep[v] != 0; }, [](int) { return true; });
    for (const mdp::EndComponent& ec : ecs) CHECK(testing::IsEndComponent(s, ChoiceSet(ec), false));
    for (uint32_t set = 1; set < (1u << s.m.choice_count()); ++set) {
      if (!testing::IsEndComponent(s, set, false)) continue;
      CHECK(std::count_if(ecs.begin(), ecs.end(), [&](const mdp::EndComponent& ec) {
              return (set & ~ChoiceSet(ec)) == 0;
            }) == 1);
    }
  }
  // Both answers are drawn often enough to mean something.
  CHECK(found >= 40);
  CHECK(clean >= 40);
}

TEST_CASE("mdp: the worst-case odds, against every memoryless strategy", "[mdp]") {
  int exact = 0, iterated = 0, strictly_between = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const testing::SmallMdp s = testing::DrawMdp(1000 + seed, seed % 2 == 0);
    for (Objective o : {Objective::kLeast, Objective::kGreatest}) {
      INFO("seed " << 1000 + seed << (o == Objective::kLeast ? ", least" : ", greatest"));
      const std::vector<Rational> expected = testing::EnumeratedOdds(s, o);
      const mdp::Probabilities p = mdp::ReachProbabilities(s.m, s.target, o);
      CHECK(p.converged);
      for (int v = 0; v < s.m.size(); ++v) {
        INFO("state " << v << ": " << expected[v].str());
        if (p.exact) {
          CHECK(p.value[v] == expected[v]);
        } else {
          const double x = expected[v].convert_to<double>();
          CHECK(p.lower[v] <= x + 1e-12);
          CHECK(p.upper[v] >= x - 1e-12);
          CHECK(p.upper[v] - p.lower[v] <= 1e-9 + 1e-12);
        }
        strictly_between += expected[v] > 0 && expected[v] < 1;
      }
      (p.exact ? exact : iterated) += 1;
    }
  }
  CHECK(exact >= 100);
  CHECK(iterated >= 100);
  CHECK(strictly_between >= 100);
}

}  // namespace
}  // namespace lockstep

// The worst-case odds: the least and the greatest probability, over the
// adversary's strategies, that a run reaches a target state (a violation).
//
// The states from which the value is 0 are found by graph alone (for the
// greatest: no path reaches a target; for the least: the adversary can
// keep away from the targets for ever, or the run ends first). Where the
// other states' graph has no cycle, the values follow backwards from its
// ends, exactly, as rationals. Otherwise they are bounded from below and
// from above by value iteration started at 0 and at 1 (interval iteration,
// Haddad and Monmege 2014), after the end components that the greatest
// value could loop in are merged into single states, so that both bounds
// meet at the one fixed point.
//
// Over every adversary, fair or not: on a graph whose runs all end (a
// horizon without cycles) these are the same.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "sim/mdp/mdp.h"

namespace lockstep::mdp {

// Exact rationals of any size (Boost.Multiprecision: the numerators and
// denominators of many uniform draws outgrow 64 bits).
using Rational = boost::multiprecision::cpp_rational;

enum class Objective { kLeast, kGreatest };

struct Probabilities {
  bool exact = false;           // `value` holds each state's probability exactly
  std::vector<Rational> value;  // exact only
  // Each state's probability lies in [lower, upper] (equal when exact, up to
  // the rounding to double).
  std::vector<double> lower, upper;
  uint64_t iterations = 0;  // sweeps of value iteration (0 when exact)
  // Not exact: whether the bounds met within `precision` before the
  // sweeps ran out (they are bounds either way).
  bool converged = true;
};

struct OddsOptions {
  double precision = 1e-9;  // the widest interval the iteration stops at
  uint64_t max_iterations = 1'000'000;
};

// The least or greatest probability, from each state, of reaching a state
// where target[v] is set. REQUIRES: target.size() == m.size(); m.Check()
Probabilities ReachProbabilities(const Mdp& m, const std::vector<char>& target, Objective objective,
                                 const OddsOptions& options = {});

}  // namespace lockstep::mdp

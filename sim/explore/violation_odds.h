// The worst-case odds of a violation (docs/design.md, "Probabilistic
// choices"): the scenario's state graph as a Markov decision process, a
// client's draw one choice of the scheduler whose values, each as likely,
// are its outcomes; and for each checked property the least and the
// greatest probability, over every scheduler, that a run's violation is of
// it (a run ends at its first violation, as in every search).
//
// Over every scheduler, fair or not: the least odds are those of a
// scheduler that keeps away from the violation as long as it can, and
// where it can keep away for ever (a cycle without one) they are 0. With a
// horizon, or a client whose retries run out, every run ends and fairness
// changes nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/search.h"
#include "sim/mdp/odds.h"
#include "sim/world/model.h"

namespace lockstep::explore {

struct PropertyOdds {
  std::string property;
  bool exact = false;
  mdp::Rational least, greatest;  // exact only
  // The bounds: equal to the values when exact (up to the rounding to
  // double), within OddsOptions::precision of each other otherwise.
  double least_lower = 0, least_upper = 0, greatest_lower = 0, greatest_upper = 0;
  // Along the schedule given, the fewest of its steps after which the
  // violation is certain (its least odds exactly 1) whatever the scheduler
  // does next: the point of no return.
  std::optional<int> certain_after;
};

struct OddsSearch {
  // kSafe: every state was weighed and `odds` holds; kIncomplete: the
  // graph outgrew its bound or was interrupted (`incomplete` says which).
  Verdict verdict = Verdict::kSafe;
  SearchStats stats;
  std::vector<PropertyOdds> odds;  // its safety properties', in the order of `properties`
  std::string incomplete;
};

// The odds of each safety property of `properties` (liveness has none) on
// `config`'s whole state graph (no symmetry, no sleep sets; up to
// `max_states` states), and their points of no return along `schedule`
// (a counterexample).
OddsSearch FindViolationOdds(const world::WorldConfig& config,
                             const std::vector<std::string>& properties, bool forget_history,
                             const std::vector<world::Action>& schedule, uint64_t max_states,
                             const std::atomic<bool>* interrupted = nullptr);

// "1/4" for an exact value; "0.2499999995 to 0.2500000005" otherwise.
std::string LeastText(const PropertyOdds& o);
std::string GreatestText(const PropertyOdds& o);

}  // namespace lockstep::explore

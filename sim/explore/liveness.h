// Liveness on the state graph: the explored states and their transitions
// kept whole, and a fair cycle that violates a property found among the
// strongly connected components of the transitions the property allows
// (docs/design.md, "Liveness").
//
// Fairness is weak: a client that can step in every state of a cycle steps
// in it, the clock ticks in a cycle where it can always tick, and a master
// with writes its replica lacks replicates. Faults never have to happen.
// With weak fairness a component has a fair cycle iff the cycle through all
// of its transitions is fair, so no component needs splitting.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/check/property.h"
#include "sim/explore/search.h"
#include "sim/world/model.h"

namespace lockstep::explore {

struct LassoSearch {
  Verdict verdict = Verdict::kSafe;
  SearchStats stats;
  // kViolation: the execution that reaches the cycle, and the cycle, which
  // returns to the state the prefix reached (up to time's shift).
  std::vector<world::Action> prefix;
  std::vector<world::Action> cycle;
  std::optional<check::Violation> violation;  // its step: the end of the cycle's second turn
  std::string incomplete;
};

// Searches `config`'s whole state graph (no symmetry, no sleep sets; up to
// `max_states` states) for a fair cycle violating one of `liveness`
// (check::LivenessNames), the first in that order. The prefix is a shortest
// path to the cycle's first state; the cycle goes through what fairness and
// the property need, by shortest paths.
LassoSearch FindLasso(const world::WorldConfig& config, const std::vector<std::string>& liveness,
                      bool forget_history, uint64_t max_states,
                      const std::atomic<bool>* interrupted = nullptr);

// Judges the execution `schedule` as a lasso whose cycle is the `length`
// steps from step `start`, run twice: the violation of the first of
// `liveness` it shows, or nullopt if the state after the cycle is not the
// state before it, or the cycle is unfair or violates nothing.
std::optional<check::Violation> JudgeLasso(const world::WorldConfig& config,
                                           const std::vector<world::Action>& schedule, size_t start,
                                           size_t length, const std::vector<std::string>& liveness);

}  // namespace lockstep::explore

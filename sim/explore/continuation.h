// From a given point of an execution, is a violation still reachable, and
// by which fewest further steps? The question a player of the scheduler
// asks ("hint"), answered by breadth-first search from the state a schedule
// prefix reaches, within the scenario's bounds (its horizon and fault
// budget, a step bound and a state bound).
//
// The answer is one of three: a shortest continuation; none (the search
// covered every state reachable from there, so no schedule within the
// bounds violates a property); or unknown (a bound stopped the search).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/search.h"

namespace lockstep::explore {

struct Continuation {
  enum class Outcome {
    kFound,        // `actions` lead from the prefix's state to a violation
    kUnreachable,  // no violation is reachable within the bounds
    kGaveUp,       // a bound or `stop` ended the search; `why` says so
  };
  Outcome outcome = Outcome::kUnreachable;
  std::vector<world::Action> actions;         // kFound: the fewest steps
  std::optional<check::Violation> violation;  // kFound: numbered from the start
  SearchStats stats;
  std::string why;  // kGaveUp
  // kUnreachable: some states had successors beyond `max_steps`, so the
  // answer holds within that many steps only.
  bool step_bound_reached = false;
  // The classes of interchangeable clients its identity used.
  std::vector<std::vector<int>> symmetry_classes;
};

// Searches from the state that `prefix` reaches, for at most `max_steps`
// further steps and `max_states` distinct states. If the prefix itself ends
// in a violation, that is kFound with no actions. Setting `*stop` (Ctrl-C)
// makes it give up ("interrupted").
// `progress`, if given, is called every quarter second or so. States are
// cached with symmetry unless `symmetry` is false: a violation's distance
// does not depend on which of two interchangeable clients is which.
// Throws ScheduleError if an action of `prefix` is not enabled where it is.
Continuation ShortestContinuation(const world::WorldConfig& config, const Properties& properties,
                                  const std::vector<world::Action>& prefix, int max_steps,
                                  uint64_t max_states, const std::atomic<bool>* stop = nullptr,
                                  const std::function<void(const SearchStats&)>& progress = nullptr,
                                  bool symmetry = true);

}  // namespace lockstep::explore

// The shortest counterexample is the shortest continuation of the empty
// prefix: one breadth-first search serves both (continuation.cc).
#include "sim/explore/continuation.h"
#include "sim/explore/search.h"

namespace lockstep::explore {

std::optional<SearchResult> ShortestCounterexample(const world::WorldConfig& config,
                                                   const Properties& properties, int max_steps,
                                                   uint64_t max_states,
                                                   const std::atomic<bool>* stop) {
  Continuation c = ShortestContinuation(config, properties, {}, max_steps, max_states, stop);
  if (c.outcome != Continuation::Outcome::kFound) return std::nullopt;
  SearchResult result;
  result.verdict = Verdict::kViolation;
  result.counterexample = std::move(c.actions);
  result.violation = std::move(c.violation);
  result.stats = c.stats;
  return result;
}

}  // namespace lockstep::explore

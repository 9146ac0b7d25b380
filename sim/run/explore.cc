#include "sim/run/explore.h"

#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/run/runner.h"

namespace lockstep::run {

ExploreResult Explore(const scenario::Scenario& s, ExploreOptions options) {
  const explore::StrategyEntry* strategy = explore::FindStrategy(options.strategy);
  if (!strategy) {
    throw base::InputError(
        "", "", "expected a strategy of lockstep explore, got \"" + options.strategy + "\"");
  }
  explore::StrategyRequest& request = options.request;
  explore::SearchOptions& search = request.search;
  // Sleep sets prune only through the visited-state table: without state
  // caching they would be computed and never read, so the search (and its
  // report) runs without them.
  if (!search.reductions.cache) search.reductions.por = false;
  // Without state caching nothing stops a client that retries forever
  // without the clock moving: bound the executions by the scenario's
  // max_steps, as a run is.
  if (!search.reductions.cache && !search.bounds.max_steps) search.bounds.max_steps = s.max_steps;
  if (request.max_steps == 0) request.max_steps = s.max_steps;

  const explore::Properties properties = explore::MakeProperties(s.properties);
  ExploreResult result;
  result.exhaustive = strategy->kind == explore::StrategyKind::kExhaustive;
  result.request = request;
  result.search = strategy->run(s.world, properties, request);
  if (result.search.verdict != explore::Verdict::kViolation) return result;

  Counterexample c;
  std::vector<world::Action> schedule = result.search.counterexample;
  c.found_steps = schedule.size();
  if (strategy->shortest) {
    c.shrunk = true;
  } else if (options.shrink) {
    if (options.found) options.found(c.found_steps);
    if (auto shortest =
            explore::ShortestCounterexample(s.world, properties, static_cast<int>(schedule.size()),
                                            base::Limits::kShrinkStates, search.interrupted)) {
      schedule = shortest->counterexample;
      c.shrunk = true;
    }
  }
  c.trace = RecordTrace(s, schedule);
  // Shrinking finds the shortest violation of any property, which may be
  // another property than the one the search met first: report that one.
  result.search.violation = c.trace.violation;
  result.counterexample = std::move(c);
  return result;
}

}  // namespace lockstep::run

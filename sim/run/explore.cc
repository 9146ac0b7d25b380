#include "sim/run/explore.h"

#include <algorithm>

#include "sim/base/check.h"
#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/base/stop_flag.h"
#include "sim/check/liveness.h"
#include "sim/explore/communicator.h"
#include "sim/explore/liveness.h"
#include "sim/explore/vacuity.h"
#include "sim/run/runner.h"
#include "sim/world/client.h"

namespace lockstep::run {
namespace {

// After an exhaustive SAFE: who never entered (ExploreResult::never_entered).
// Stopped before it knew, the search is incomplete: a SAFE it cannot say
// anything about is not reported as one.
void AskWhoEntered(const scenario::Scenario& s, const explore::SearchOptions& search,
                   ExploreResult& result) {
  std::vector<int> expected;
  for (size_t i = 0; i < s.world.clients.size(); ++i) {
    const bool may_not = i < s.may_never_enter.size() && s.may_never_enter[i];
    if (!s.world.clients[i].crashed && !may_not) {
      expected.push_back(static_cast<int>(i));
    }
  }
  const explore::Vacuity v = explore::NeverEntered(s.world, expected, search);
  result.vacuity = v.stats;
  if (!v.complete) {
    result.search.verdict = explore::Verdict::kIncomplete;
    result.search.incomplete = v.incomplete;
    return;
  }
  for (int i : expected) {
    const bool never =
        std::find(v.never_entered.begin(), v.never_entered.end(), i) != v.never_entered.end();
    (never ? result.never_entered : result.entered).push_back(s.world.clients[i].name);
  }
}

// After an exhaustive search that counted stuck states: their number over
// every rank, and a shortest execution to one.
void ShowStuck(const scenario::Scenario& s, const explore::SearchOptions& search,
               const check::StuckCounter& counter, ExploreResult& result) {
  result.stuck_states = counter.count();
  if (search.communicator) result.stuck_states = search.communicator->Sum({counter.count()})[0];
  if (result.stuck_states == 0) return;
  explore::Properties stuck;
  stuck.push_back(check::MakeProperty("no_stuck_states"));
  const std::optional<explore::SearchResult> shortest =
      explore::ShortestCounterexample(s.world, stuck, result.search.stats.max_depth,
                                      base::Limits::kShrinkStates, search.interrupted);
  if (!shortest) return;
  // The trace's scenario checks them, so that it replays as the violation.
  scenario::Scenario checked = s;
  checked.properties.push_back("no_stuck_states");
  checked.document["properties"] = checked.properties;
  checked.expect = {.safe = false, .property = "no_stuck_states"};
  checked.document["expect"] = "violation:no_stuck_states";
  Counterexample c;
  {
    base::DeferStop recording;  // a process client's wait finishes it
    c.trace = RecordTrace(checked, shortest->counterexample);
  }
  c.found_steps = c.trace.schedule.size();
  c.shrunk = true;
  LOCKSTEP_CHECK(c.trace.violation == shortest->violation,
                 "a stuck execution recorded again ends stuck");
  result.stuck = std::move(c);
}

// The Lua clients whose scenario says nothing of never_reads_tokens.
std::vector<int> TokensUnsaid(const scenario::Scenario& s) {
  std::vector<int> unsaid;
  const nlohmann::json& clients = s.document.at("clients");
  for (size_t i = 0; i < s.world.clients.size(); ++i) {
    const world::ClientSetup& c = s.world.clients[i];
    if (c.crashed || c.never_reads_tokens || !c.algorithm.starts_with("lua:")) continue;
    const nlohmann::json& a = clients.at(i).at("algorithm");
    if (a.is_object() && !a.contains("never_reads_tokens")) unsaid.push_back(static_cast<int>(i));
  }
  return unsaid;
}

ExploreResult ExploreOnce(const scenario::Scenario& s, ExploreOptions options) {
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
  // With it, an execution that long ends the search as incomplete: a
  // client that never stops, each pass a new state, would otherwise let
  // it run until memory runs out.
  if (!search.bounds.max_steps) search.bounds.runaway_steps = s.max_steps;
  if (request.max_steps == 0) request.max_steps = s.max_steps;

  const explore::Properties properties = explore::MakeProperties(s.properties);
  ExploreResult result;
  result.exhaustive = strategy->kind == explore::StrategyKind::kExhaustive;
  result.tokens_renamed = world::TokensRenamable(s.world);
  result.request = request;
  // The breadth-first strategies have no sleep sets: the report says what
  // ran (the checks after the search still use them).
  if (std::find(strategy->options.begin(), strategy->options.end(), "--no-por") ==
      strategy->options.end()) {
    result.request.search.reductions.por = false;
  }
  // An exhaustive search also counts the runs that end stuck, unless the
  // scenario makes them violations.
  explore::Properties searched = explore::MakeProperties(s.properties);
  const check::StuckCounter* counter = nullptr;
  if (result.exhaustive && std::find(s.properties.begin(), s.properties.end(), "no_stuck_states") ==
                               s.properties.end()) {
    auto owned = std::make_unique<check::StuckCounter>();
    counter = owned.get();
    searched.push_back(std::move(owned));
  }
  result.search = strategy->run(s.world, searched, request);
  if (counter && result.safe()) ShowStuck(s, search, *counter, result);
  const std::vector<std::string> liveness = check::LivenessIn(s.properties);
  if (!liveness.empty() && result.exhaustive && result.search.verdict == explore::Verdict::kSafe) {
    // Liveness on the whole graph: a fair cycle that violates a property.
    explore::LassoSearch lasso =
        explore::FindLasso(s.world, liveness, search.reductions.forget_history,
                           base::Limits::kShrinkStates, search.interrupted);
    result.liveness = lasso.stats;
    result.search.verdict = lasso.verdict;
    result.search.incomplete = lasso.incomplete;
    if (lasso.verdict == explore::Verdict::kViolation) {
      Counterexample c;
      {
        base::DeferStop recording;
        c.trace = RecordLasso(s, lasso.prefix, lasso.cycle);
      }
      c.found_steps = c.trace.schedule.size();
      c.shrunk = true;  // a shortest prefix, a cycle of shortest paths
      LOCKSTEP_CHECK(c.trace.violation == lasso.violation,
                     "a lasso judged again shows the violation it was found for");
      result.search.violation = c.trace.violation;
      for (const world::Action& a : lasso.prefix) result.search.counterexample.push_back(a);
      for (int turn = 0; turn < 2; ++turn) {
        for (const world::Action& a : lasso.cycle) result.search.counterexample.push_back(a);
      }
      result.counterexample = std::move(c);
    }
    if (result.safe()) AskWhoEntered(s, search, result);
    return result;
  }
  if (result.exhaustive && result.safe()) AskWhoEntered(s, search, result);
  if (result.search.verdict != explore::Verdict::kViolation) return result;

  Counterexample c;
  std::vector<world::Action> schedule = result.search.counterexample;
  // The violation the recorded schedule was found to show.
  std::optional<check::Violation> found = result.search.violation;
  c.found_steps = schedule.size();
  if (strategy->shortest) {
    c.shrunk = true;
  } else if (options.shrink) {
    if (options.found) options.found(c.found_steps);
    if (auto shortest =
            explore::ShortestCounterexample(s.world, properties, static_cast<int>(schedule.size()),
                                            base::Limits::kShrinkStates, search.interrupted)) {
      schedule = shortest->counterexample;
      found = shortest->violation;
      c.shrunk = true;
    }
  }
  {
    // Found: recorded whatever a stop says (a process client's waits
    // heed a stop otherwise).
    base::DeferStop recording;
    c.trace = RecordTrace(s, schedule);
  }
  // Recorded through the same state space as it was found in, the schedule
  // shows the same violation at the same step.
  LOCKSTEP_CHECK(c.trace.violation.has_value() && c.trace.violation == found,
                 "a counterexample recorded again shows the violation it was found for");
  // Shrinking finds the shortest violation of any property, which may be
  // another property than the one the search met first: report that one.
  result.search.violation = c.trace.violation;
  // A violation some scheduler reaches has odds above 0 for it: how likely
  // is it at best and at worst, the draws weighed?
  if (s.world.probabilistic && result.exhaustive) {
    result.odds =
        explore::FindViolationOdds(s.world, s.properties, search.reductions.forget_history,
                                   schedule, base::Limits::kShrinkStates, search.interrupted);
  }
  result.counterexample = std::move(c);
  return result;
}

}  // namespace

ExploreResult Explore(const scenario::Scenario& s, ExploreOptions options) {
  // Symmetry renames tokens with their clients only if no client reads one
  // back. A Lua client that does not say is assumed not to, which its run
  // checks (world::TokenReadBack); if one does, the search starts again
  // without the assumption. Only an exhaustive search on one process uses
  // symmetry, and can start again.
  const std::vector<int> unsaid = TokensUnsaid(s);
  const explore::StrategyEntry* strategy = explore::FindStrategy(options.strategy);
  const explore::SearchOptions& search = options.request.search;
  if (unsaid.empty() || !strategy || strategy->kind != explore::StrategyKind::kExhaustive ||
      !search.reductions.symmetry || search.communicator) {
    return ExploreOnce(s, options);
  }
  scenario::Scenario assumed = s;
  for (int i : unsaid) assumed.world.clients[i].never_reads_tokens = true;
  try {
    ExploreResult result = ExploreOnce(assumed, options);
    for (int i : unsaid) result.tokens_inferred.push_back(s.world.clients[i].name);
    return result;
  } catch (const world::TokenReadBack& e) {
    ExploreResult result = ExploreOnce(s, options);
    result.tokens_read_back = e.what();
    result.tokens_reader = e.client;
    return result;
  }
}

}  // namespace lockstep::run

// Searching a scenario for a violation, as `lockstep explore` does: one of
// explore::Strategies() runs on the scenario's world and properties, and a
// violation it finds is shrunk to the fewest steps and recorded as a trace.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/strategy_registry.h"
#include "sim/explore/violation_odds.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"

namespace lockstep::run {

struct ExploreOptions {
  std::string strategy = "dfs";  // a name of explore::Strategies()
  // Reductions, bounds, jobs, progress and stop flag; the sampling
  // strategies' executions, depth and seed. max_steps 0: the scenario's.
  explore::StrategyRequest request;
  // Shrink a violation found to the fewest steps (breadth-first search over
  // at most base::Limits::kShrinkStates states; the stop flag ends it).
  bool shrink = true;
  // Called once a violation is found, before it is shrunk (never when it is
  // shortest already), with its length.
  std::function<void(size_t found_steps)> found;
};

struct Counterexample {
  trace::Trace trace;      // the violating execution, recorded
  size_t found_steps = 0;  // its length as the search found it
  bool shrunk = false;     // it has the fewest steps of any violation
};

struct ExploreResult {
  // Verdict, counts, why incomplete; `violation` is the counterexample's,
  // `counterexample` the execution as the search found it.
  explore::SearchResult search;
  // True iff the strategy visits every schedule within its bounds, so that
  // kSafe is a proof within them.
  bool exhaustive = false;
  std::optional<Counterexample> counterexample;  // iff search.verdict is kViolation
  // The liveness search's counts, when the scenario has liveness
  // properties and the safety search found nothing.
  std::optional<explore::SearchStats> liveness;
  // With probabilistic draws, after an exhaustive search found a safety
  // violation: the least and greatest odds of each safety property's
  // violation over every scheduler (explore/violation_odds.h).
  std::optional<explore::OddsSearch> odds;
  // What the strategy was given: the options' request with the scenario's
  // defaults and the reductions that apply.
  explore::StrategyRequest request;
  // An exhaustive search that ends SAFE asks which clients enter the
  // critical section in some schedule (explore/vacuity.h). These are the
  // ones expected to (not crashed at the start, not "may_never_enter") that
  // enter in none: the verdict says nothing about what they do inside.
  std::vector<std::string> never_entered;
  std::vector<std::string> entered;             // the others asked about
  std::optional<explore::SearchStats> vacuity;  // its searches' counts, when asked

  // An exhaustive safety search counts the end states where a live client
  // still waits for a clock an assumption holds (check::StuckClients),
  // unless no_stuck_states makes them violations; `stuck` is a shortest
  // execution to one, when the breadth-first search finds it in its bounds.
  uint64_t stuck_states = 0;
  std::optional<Counterexample> stuck;
  // Symmetry renamed the clients' random tokens with them
  // (world::TokensRenamable of the world searched)...
  bool tokens_renamed = false;
  // ...because no reply these Lua clients read held a token, which their
  // scenario left unsaid: assumed, and checked as they ran...
  std::vector<std::string> tokens_inferred;
  // ...or not, because one did (what it threw, and which client): searched
  // again without.
  std::string tokens_read_back;
  std::string tokens_reader;

  bool safe() const { return search.verdict == explore::Verdict::kSafe; }
  // SAFE, but some client expected to enter never did.
  bool vacuous() const { return safe() && !never_entered.empty(); }
  // vacuous(), where the search tells: after an exhaustive SAFE.
  std::optional<bool> known_vacuous() const {
    return exhaustive && safe() ? std::optional<bool>(vacuous()) : std::nullopt;
  }
};

// Throws base::InputError for an unknown strategy, std::runtime_error if an
// algorithm throws or is not deterministic.
ExploreResult Explore(const scenario::Scenario& s, ExploreOptions options = {});

}  // namespace lockstep::run

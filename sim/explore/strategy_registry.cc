#include "sim/explore/strategy_registry.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "sim/base/hash.h"
#include "sim/explore/communicator.h"
#include "sim/explore/continuation.h"
#include "sim/explore/pct_strategy.h"
#include "sim/explore/random_strategy.h"

namespace lockstep::explore {
namespace {

SearchResult RunDepthFirst(const world::WorldConfig& config, const Properties& properties,
                           const StrategyRequest& request) {
  return DepthFirstSearch(config, properties, request.search);
}

// Breadth-first over states (with symmetry): the first violation found is a
// shortest one, so nothing is left to shrink; no violation once every
// state is visited is a proof, as DFS's is.
SearchResult RunBreadthFirst(const world::WorldConfig& config, const Properties& properties,
                             const StrategyRequest& request) {
  const SearchOptions& o = request.search;
  Continuation c = ShortestContinuation(
      config, properties, {}, o.bounds.max_steps.value_or(std::numeric_limits<int>::max()),
      o.bounds.max_states.value_or(std::numeric_limits<uint64_t>::max()), o.interrupted, o.progress,
      o.reductions.symmetry);
  SearchResult r;
  r.stats = c.stats;
  r.stats.executions = 1;
  r.symmetry_classes = c.symmetry_classes;
  switch (c.outcome) {
    case Continuation::Outcome::kFound:
      r.verdict = Verdict::kViolation;
      r.counterexample = std::move(c.actions);
      r.violation = std::move(c.violation);
      break;
    case Continuation::Outcome::kUnreachable:
      r.verdict = Verdict::kSafe;
      break;
    case Continuation::Outcome::kGaveUp:
      r.verdict = Verdict::kIncomplete;
      r.incomplete = c.why;
      break;
  }
  return r;
}

// Breadth-first over the ranks the request names, or as one rank.
SearchResult RunDistributed(const world::WorldConfig& config, const Properties& properties,
                            const StrategyRequest& request) {
  if (request.search.communicator) {
    return DistributedSearch(config, properties, request.search, *request.search.communicator);
  }
  std::unique_ptr<Communicator> alone = std::move(InProcessGroup(1).front());
  return DistributedSearch(config, properties, request.search, *alone);
}

// Random or PCT executions, execution i from its own seed drawn from the
// run's seed.
template <bool kPct>
SearchResult RunSampling(const world::WorldConfig& config, const Properties& properties,
                         const StrategyRequest& request) {
  const int n = static_cast<int>(config.clients.size());
  const uint64_t seed = request.seed;
  const int depth = request.depth;
  const int max_steps = request.max_steps;
  return SampleExecutions(
      config, properties,
      [=](uint64_t i, int longest) -> std::unique_ptr<Strategy> {
        uint64_t exec_seed = base::Mix64(seed + base::kGoldenGamma * (i + 1));
        if constexpr (kPct) {
          // PCT's k, the steps over which change points are drawn: the
          // longest execution so far (20 before the first).
          int k = std::min(max_steps, longest > 0 ? longest : 20);
          return std::make_unique<PctStrategy>(exec_seed, n, depth, k);
        } else {
          (void)longest;
          return std::make_unique<RandomStrategy>(exec_seed);
        }
      },
      request.executions, max_steps, request.search);
}

}  // namespace

const std::vector<StrategyEntry>& Strategies() {
  static const std::vector<StrategyEntry> kStrategies = {
      {"dfs",
       "exhaustive depth-first search, the default with a horizon",
       StrategyKind::kExhaustive,
       {"--preemptions", "--jobs", "--no-cache", "--no-symmetry", "--no-por", "--storage"},
       RunDepthFirst},
      {"bfs",
       "exhaustive breadth-first search: the first violation found is a shortest one; the "
       "default without a horizon",
       StrategyKind::kExhaustive,
       {"--no-symmetry"},
       RunBreadthFirst,
       /*shortest=*/true},
      {"distributed",
       "exhaustive search with the states partitioned among Open MPI's ranks, which exchange "
       "them asynchronously (mpirun -np K lockstep explore ... --distributed); one rank without "
       "mpirun",
       StrategyKind::kExhaustive,
       {"--distributed", "--no-symmetry", "--storage"},
       RunDistributed},
      {"random",
       "uniformly random executions",
       StrategyKind::kSampling,
       {"--executions", "--seed"},
       RunSampling<false>},
      {"pct",
       "probabilistic concurrency testing",
       StrategyKind::kSampling,
       {"--executions", "--depth", "--seed"},
       RunSampling<true>},
  };
  return kStrategies;
}

const StrategyEntry* FindStrategy(std::string_view name) {
  for (const StrategyEntry& e : Strategies()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> StrategyNames() {
  std::vector<std::string> names;
  for (const StrategyEntry& e : Strategies()) names.emplace_back(e.name);
  return names;
}

std::string StrategiesReading(std::string_view option) {
  std::string names;
  for (const StrategyEntry& e : Strategies()) {
    if (std::find(e.options.begin(), e.options.end(), option) == e.options.end()) continue;
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  return names;
}

}  // namespace lockstep::explore

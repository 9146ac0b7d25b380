// Searching the schedules of a scenario for a property violation.
//
// Exhaustive depth-first search (DepthFirstSearch) with switchable
// reductions: state caching, symmetry among interchangeable clients, and
// partial-order reduction by sleep sets with a Redis-aware dependence
// relation. Sampling searches (random, PCT) run many single executions.
// ShortestCounterexample finds a violation with the fewest steps by
// breadth-first search; it is how counterexamples are shrunk.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/execution.h"
#include "sim/explore/fingerprint.h"
#include "sim/explore/storage.h"
#include "sim/world/model.h"

namespace lockstep::explore {

class Communicator;  // communicator.h

struct Reductions {
  bool cache = true;     // state caching
  bool symmetry = true;  // interchangeable clients (needs cache)
  bool por = true;       // sleep sets
  // Trust the algorithms' ForgetHistory declarations when naming client
  // states; off: a client's state is everything it observed (always sound).
  bool forget_history = true;
};

struct Bounds {
  std::optional<int> max_steps;    // depth of an execution
  std::optional<int> preemptions;  // switches away from a client that could go on
  // Without max_steps: an execution this long stops the whole search,
  // incomplete (RunawayText). A client that loops for ever without the
  // clock moving, or remembers every reply it saw, would never let the
  // search end; a state space's executions are rarely this long otherwise.
  std::optional<int> runaway_steps;
  // Distinct states the depth-first and breadth-first searches may visit:
  // past it they stop, incomplete. Work, counted exactly on one thread, so
  // that a test cuts a search by what it does, never by the time it takes.
  std::optional<uint64_t> max_states;
  // Transitions each thread of the depth-first search may apply: past it
  // the search stops, incomplete. Counted exactly, as max_states is.
  std::optional<uint64_t> max_transitions;
};

// Why a search stopped at Bounds::runaway_steps.
std::string RunawayText(int steps);
// Why a search stopped at a budget of distinct states (Bounds::max_states).
std::string StateBudgetText(uint64_t states);
// Why a search stopped at a budget of transitions (Bounds::max_transitions).
std::string TransitionBudgetText(uint64_t transitions);
// Adds the model's clients' GrowthWarning()s that are not in *warnings yet.
void AddGrowthWarnings(const world::Model& model, std::vector<std::string>* warnings);

struct SearchStats {
  uint64_t executions = 0;   // maximal paths explored (ends, revisits, cut-offs)
  uint64_t states = 0;       // distinct states
  uint64_t transitions = 0;  // actions applied
  int max_depth = 0;
  double elapsed_s = 0;
  uint64_t memory_bytes = 0;  // visited-state table
  // Found and not yet expanded: the states on the depth-first stacks, the
  // breadth-first queue, a rank's frontier.
  uint64_t waiting = 0;
  // The latest clock of a state reached (the searches that track it).
  std::optional<world::Millis> clock_reached;
  // The clients' learned automata, every thread's (SetAutomata).
  uint64_t automata_bytes = 0;  // world::ClientAutomaton::bytes
  uint64_t automata_states = 0;
  uint64_t automata_transitions = 0;
  uint64_t automata_forgets = 0;  // times an automaton forgot its transitions (kMaxMemoBytes)
  // Hash compaction and bitstate: the expected number of states missed
  // (state_store.h); fingerprints: the same estimate for 102 bits; exact
  // storage: 0.
  double expected_omissions = 0;
  // The distributed search: states sent to the rank that owns them, and
  // the bytes that took.
  uint64_t states_sent = 0;
  uint64_t bytes_sent = 0;
};
// Sets `stats`' automata figures to those of `model`'s learned client
// automata: their memory, states and transitions.
void SetAutomata(const world::Model& model, SearchStats* stats);

enum class Verdict { kSafe, kViolation, kIncomplete };
const char* VerdictText(Verdict v);

struct SearchResult {
  Verdict verdict = Verdict::kSafe;
  SearchStats stats;
  std::vector<world::Action> counterexample;  // kViolation
  std::optional<check::Violation> violation;
  std::string incomplete;           // kIncomplete: which bound, why
  std::vector<Fingerprint> states;  // if SearchOptions::collect_states
  // The classes of interchangeable clients the search's identity used
  // (Fingerprinter::classes); empty without symmetry.
  std::vector<std::vector<int>> symmetry_classes;
  // Clients whose learned states grow at one line
  // (world::ClientAutomaton::GrowthWarning), this rank's.
  std::vector<std::string> warnings;
};

struct SearchOptions {
  Reductions reductions;
  Bounds bounds;
  StorageOptions storage;  // how the exhaustive search keeps visited states
  int jobs = 1;
  bool collect_states = false;  // for soundness tests: every state's fingerprint
  // Called now and then (every quarter second or so) from the search.
  std::function<void(const SearchStats&)> progress;
  const std::atomic<bool>* interrupted = nullptr;  // set (by Ctrl-C, a memory bound) to stop early
  // The distributed search's ranks (Open MPI's, sim/mpi/); none: one rank.
  Communicator* communicator = nullptr;
};

// Throws std::runtime_error if an algorithm throws or turns out not to be
// deterministic (see ClientAutomaton), whichever thread met it.
SearchResult DepthFirstSearch(const world::WorldConfig& config, const Properties& properties,
                              const SearchOptions& options);

// Search over states partitioned among the ranks of `ranks`, which
// exchange them asynchronously (distributed_search.cc); every rank calls it
// together and returns the same result, with every rank's counts summed. A
// counterexample is a real one, not necessarily a shortest one. Symmetry and the storage
// apply; there are no sleep sets, which prune transitions, never states.
// Throws std::invalid_argument without state caching or with a bound on
// preemptions; std::runtime_error, on every rank, if an algorithm throws.
SearchResult DistributedSearch(const world::WorldConfig& config, const Properties& properties,
                               const SearchOptions& options, Communicator& ranks);

// Random or PCT executions until one violates a property or `executions`
// ran. `make_strategy(i, longest)` gives the strategy of execution i, told
// the length of the longest execution so far (PCT's k).
using StrategyFactory = std::function<std::unique_ptr<Strategy>(uint64_t index, int longest)>;
SearchResult SampleExecutions(const world::WorldConfig& config, const Properties& properties,
                              const StrategyFactory& make_strategy, uint64_t executions,
                              int max_steps, const SearchOptions& options);

// The violation reachable in the fewest steps, by breadth-first search over
// states, up to `max_steps` steps and `max_states` states. Returns nullopt
// if none is found within those limits, or once `*stop` is set.
std::optional<SearchResult> ShortestCounterexample(const world::WorldConfig& config,
                                                   const Properties& properties, int max_steps,
                                                   uint64_t max_states,
                                                   const std::atomic<bool>* stop = nullptr);

}  // namespace lockstep::explore

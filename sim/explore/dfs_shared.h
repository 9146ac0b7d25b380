// What the threads of one depth-first search share (dfs_search.cc): the
// visited-state table, the counts, the violation found, why it stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "sim/explore/search.h"
#include "sim/explore/state_store.h"

namespace lockstep::explore::dfs {

using Clock = std::chrono::steady_clock;
using world::Action;

// Work left at the split depth for the jobs.
struct FrontierItem {
  std::vector<Action> path;
  std::vector<Action> todo;
  uint32_t sleep;
  int preempted;
  int last;
};

// What the threads of one search share.
struct Shared {
  explicit Shared(const SearchOptions& options)
      : o(options),
        // Without caching the table is never used: kept minimal, whatever
        // the storage asked for.
        visited(options.reductions.cache ? options.storage : StorageOptions{},
                options.reductions.por, options.reductions.cache && options.bounds.max_steps,
                /*threads=*/options.reductions.cache && options.jobs > 1),
        start(Clock::now()) {}
  const SearchOptions& o;
  StateStore visited;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> transitions{0}, executions{0};
  std::atomic<uint64_t> fresh{0};  // states first visited, under Bounds::max_states
  std::atomic<int> max_depth{0};
  // Gauges each thread adds its share to as it changes (Dfs::Flush): the
  // states on its stack, its learned automata.
  std::atomic<uint64_t> waiting{0}, automata_bytes{0}, automata_states{0}, automata_transitions{0},
      automata_forgets{0};
  std::atomic<world::Millis> clock_reached{std::numeric_limits<world::Millis>::min()};
  std::mutex mu;  // guards what follows
  std::optional<check::Violation> violation;
  std::vector<Action> counterexample;
  std::string incomplete;
  bool bound_noted = false;  // `incomplete` says only that a bound cut a path (NoteBound)
  std::unordered_set<Fingerprint, FingerprintHash> all_states;  // collect_states
  Clock::time_point start;
  Clock::time_point last_report;

  void Gauges(SearchStats* st) const {
    st->waiting = waiting;
    if (const world::Millis c = clock_reached; c != std::numeric_limits<world::Millis>::min()) {
      st->clock_reached = c;
    }
    st->automata_bytes = automata_bytes;
    st->automata_states = automata_states;
    st->automata_transitions = automata_transitions;
    st->automata_forgets = automata_forgets;
  }
  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
  void NoteBound(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    if (incomplete.empty()) {
      incomplete = "stopped at " + what;
      bound_noted = true;
    }
  }
  // A budget that stops the search is why it is incomplete, even after a
  // bound cut a path short: it did not go on to the end.
  void StopIncomplete(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu);
    if (incomplete.empty() || bound_noted) incomplete = why;
    bound_noted = false;
    stop.store(true);
  }
  void NoteGrowth(const world::Model& model) {
    std::lock_guard<std::mutex> lock(mu);
    AddGrowthWarnings(model, &warnings);
  }
  std::vector<std::string> warnings;  // guarded by mu
};

}  // namespace lockstep::explore::dfs

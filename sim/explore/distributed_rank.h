// One rank of the distributed search (distributed_search.cc): the states
// it owns, its work, its batches for the others and its part of Safra's
// termination (termination.h); how it concludes with the others is in
// distributed_conclusion.cc.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/communicator.h"
#include "sim/explore/packed_state.h"
#include "sim/explore/search.h"
#include "sim/explore/state_space.h"
#include "sim/explore/state_store.h"
#include "sim/explore/termination.h"

namespace lockstep::explore::distributed {

using world::Action;
using Clock = std::chrono::steady_clock;

// States in a batch sent to their owner.
constexpr size_t kBatch = 1024;
// States expanded between two looks at what arrived.
constexpr int kChunk = 64;
// How long an idle rank waits for a message before looking at its stop flag.
constexpr std::chrono::microseconds kIdleWait{2000};

// A message's first byte.
enum Kind : char { kBatchOfStates, kToken, kStop, kDone, kProgress };

// What every rank adds up at the end: fixed fields, then one slot per rank
// for what cannot be summed (a violation's length, a double).
enum Field : size_t {
  kInterrupted,  // ranks told to stop
  kFailed,       // ranks whose algorithm threw
  kCutOff,       // ranks that left a state unexpanded at the step bound
  kRunaway,      // ranks that met an execution of runaway_steps
  kStates,
  kTransitions,
  kEnds,  // states with nothing enabled, and states cut off
  kBytes,
  kSent,       // states sent to their owner
  kSentBytes,  // the bytes they took
  kFields
};

// A state waiting to be expanded: its encoded steps and their number.
struct Waiting {
  std::string steps;
  int depth = 0;
};

class Rank {
 public:
  Rank(const world::WorldConfig& config, const Properties& properties, const SearchOptions& options,
       Communicator& ranks);

  SearchResult Run();

 private:
  // Expands, sends and receives until the search is over everywhere or
  // some rank stops it.
  void Search();

  // This rank found a violation, failed, met a runaway path or was
  // interrupted: it tells the others to stop.
  bool Stopping() const;
  // Rebuilds `w`'s state and offers its successors to their owners.
  void Expand(const Waiting& w);

  // The rank that keeps `f`: a hash independent of the bits the visited
  // table indexes by.
  int Owner(const Fingerprint& f) const;

  // Adds a state this rank owns to its work, if it is new or, under a step
  // bound, reached in fewer steps than before (its subtree was cut deeper).
  // `packed`: the state's bytes with exact storage, else empty.
  void Keep(const Fingerprint& f, std::string_view packed, const std::string& steps, int depth);
  // Where Identity writes a state's bytes, if the storage keeps them.
  PackedState* PackedIfKept() { return visited_.keeps_states() ? &packed_ : nullptr; }

  // Every message goes through Send, counted for Drain; a batch through
  // Flush, counted for the token.
  void Send(int to, std::string bytes);
  void Flush(int to);
  // A message taken: a batch of states, the token, stop, done, progress.
  void Handle(const Communicator::Message& m);

  // Every rank but 0 tells rank 0 its counts; every rank with a progress
  // callback calls it with the counts it knows.
  void Report();

  // Takes every message still addressed to this rank (each rank learns how
  // many each other sent it), so that none is left unmatched.
  void Drain();

  // The state `path` reaches, replayed from the longest prefix it shares
  // with the path replayed before.
  const world::WorldState& Rebuild(const std::vector<Action>& path);

  // The verdict every rank agrees on, from the sums of Mine().
  SearchResult& Conclude(SearchResult& result);
  // This rank's part of the sums (Field), and its slots.
  std::vector<uint64_t> Mine() const;

  // The rank whose violation is shortest (the lowest such rank), if any.
  std::optional<int> Winner(const std::vector<uint64_t>& sums) const;

  // Every rank learns the winner's violating path.
  std::vector<Action> Broadcast(int winner);

  // The violation `path` ends in, judged again here as it was where found.
  check::Violation Judge(const std::vector<Action>& path);

  // Some rank's algorithm threw: every rank throws the lowest rank's error.
  [[noreturn]] void Fail();

  // Every rank's counts, summed.
  void Count(const std::vector<uint64_t>& sums);

  SearchResult& Finish(SearchResult& result);

  // The greatest depth any rank expanded.
  int DeepestOfAll();

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  const SearchOptions& o_;
  Communicator& ranks_;
  const int k_, me_;
  StateSpace space_;
  StateStore visited_;
  PackedState packed_;  // the last state identified, with exact storage
  const Clock::time_point start_ = Clock::now();
  std::vector<Waiting> stack_;  // this rank's states not yet expanded
  // Per rank: the batch being filled for it, and its states.
  std::vector<std::string> out_;
  std::vector<size_t> in_batch_;
  // Messages of every kind sent to and taken from each rank (Drain).
  std::vector<uint64_t> messages_to_, messages_from_;
  // The latest counts each rank reported: states, transitions, waiting.
  std::vector<std::array<uint64_t, 3>> progress_of_;
  Termination termination_;
  bool over_ = false;         // a rank said stop, or the search is over
  std::vector<Action> path_;  // the path of the state being expanded
  std::string child_;         // the steps of its successor
  int max_depth_ = 0;
  std::vector<Action> enabled_;
  uint64_t transitions_ = 0, ends_ = 0, sent_ = 0, sent_bytes_ = 0;
  bool cut_off_ = false, runaway_ = false;
  std::optional<std::vector<Action>> found_;
  std::string failure_;
  std::vector<Fingerprint> states_;  // collect_states
  // Rebuild's last path, and the state after each of its steps (the
  // initial state first).
  std::vector<Action> replayed_path_;
  std::vector<world::WorldState> replayed_;
  SearchStats stats_;
};

}  // namespace lockstep::explore::distributed

// A state's identity for state caching: a 128-bit fingerprint of everything
// that decides the future (docs/design.md, "State identity"): the keyspace, the clock, the crash
// budget used, and per client its automaton state, status and ghost state.
//
// With symmetry, clients in the same class (same algorithm, settings and
// skew, and an algorithm that draws random values only as tokens) are
// interchangeable: their own parts are sorted before hashing, and every
// datum that names a client (masks of clients that acquired later, the
// client that superseded a holder, writers, the last client to move) is
// renamed through the same permutation, so that two states share a
// fingerprint only if one is a permutation of the other
// (docs/design.md, "Symmetry"). The permutation is returned, so that
// per-client data stored with the state (sleep sets) can be kept in
// canonical numbering.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/world/model.h"

namespace lockstep::world {
struct TokenId;
}  // namespace lockstep::world

namespace lockstep::explore {

class PackedState;  // packed_state.h
class TimeLine;     // time_line.h

struct Fingerprint {
  uint64_t a = 0, b = 0;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

struct FingerprintHash {
  size_t operator()(const Fingerprint& f) const { return f.a; }
};

// The classes of interchangeable clients (of size > 1, client indices):
// the same algorithm, settings and skew, not crashed from the start, and
// drawing random values only as tokens.
std::vector<std::vector<int>> SymmetryClasses(const world::WorldConfig& config);

class Fingerprinter {
 public:
  // `abstract`: name client states by what they observed since their last
  // ForgetHistory, whatever the model's automata use.
  // `ghost`: the check::Property::Ghost bits of the properties checked.
  Fingerprinter(const world::Model& model, bool symmetry, bool abstract, uint32_t ghost = 0);

  // The explorer's own per-path state, when it bounds preemptions.
  struct PathState {
    int preempted = 0;     // preemptive switches so far
    int last_client = -1;  // the client that took the last step, or -1
  };

  // `path`, if given, is folded in. canonical[i] receives client i's
  // position in the canonical order (the identity without symmetry).
  // *packed, if given, receives the state as the fingerprint hashes it,
  // whole (exact storage): two states get the same bytes only if they are
  // one state to the search, clients in the same canonical order.
  Fingerprint Of(const world::WorldState& s, const PathState* path, std::vector<int>* canonical,
                 PackedState* packed = nullptr) const;

  // Symmetry classes of size > 1 (client indices), for reports.
  const std::vector<std::vector<int>>& classes() const { return classes_; }

  // Without a horizon: times are kept relative to the clock, and gaps
  // between them wider than this are alike (docs/design.md, "Time without
  // a horizon"). 0 when times are kept as they are.
  world::Millis time_window() const { return relative_ ? window_ : 0; }

 private:
  // What Pack needs of Of's work: the times placed, the tokens in the
  // order met, and the canonical order chosen.
  struct Canonical {
    const TimeLine& times;
    const std::vector<world::TokenId>& tokens;
    const int* at;                                        // at[pos]: the client at that place
    const int* canonical_of;                              // canonical_of[i]: client i's place
    const world::ClientAutomaton::History* const* timed;  // timed[i]: TimedHistory of client i
    bool rename_tokens;
    bool absolute_clock;  // the clock kept as it is (always, with a horizon)
  };
  void Pack(const world::WorldState& s, const PathState* path, const Canonical& c,
            PackedState* out) const;
  // When a sleeping client may wake: once it may, how long it has been able
  // to changes nothing it can do (Client::SleepBetween).
  static world::Millis WakeFrom(const world::ClientSlot& c, world::Millis now) {
    return std::max(c.wake_at, now);
  }
  // Client i's history in state `local` when the search names that state
  // by its history's shape and the times it holds, placed (rather than by
  // its automaton state alone); else nullptr. Of looks each client up once.
  const world::ClientAutomaton::History* TimedHistory(int i, world::LocalState local) const {
    const world::ClientAutomaton& a = model_.automaton(i);
    if (!relative_ && !(abstract_ && a.any_time_ages())) return nullptr;
    const world::ClientAutomaton::History& h = a.HistoryOf(local);
    return relative_ || !h.time_ages.empty() ? &h : nullptr;
  }
  // Calls `use` with each time client i's history `h` holds, as the search
  // keeps it: a start older than the longest elapsed time compared with it
  // is kept just past that (Client::NowAsStart; a client's clock never goes
  // back).
  template <typename Use>
  void ForEachHeldTime(const world::WorldState& s, int i, const world::ClientAutomaton::History& h,
                       Use&& use) const {
    const world::Millis clock = model_.ClientClock(s, i);
    for (size_t k = 0; k < h.times.size(); ++k) {
      const bool bounded = k < h.time_ages.size() && h.time_ages[k] != world::kUnboundedAge;
      use(bounded ? std::max(h.times[k], clock - h.time_ages[k] - 1) : h.times[k]);
    }
  }

  const world::Model& model_;
  bool abstract_;
  bool relative_;
  world::Millis window_ = 0;
  // Without a horizon: the latest clock at which a deadline may fall at or
  // before time 0 (-1: none may), up to which the clock is kept as it is.
  world::Millis near_zero_until_ = -1;
  bool use_ready_since_;
  bool use_acquired_at_;
  bool use_persisted_;
  bool use_writers_;
  bool use_latest_;
  bool use_resource_;
  std::vector<std::vector<int>> classes_;
  std::vector<int> class_of_;  // -1: alone
};

}  // namespace lockstep::explore

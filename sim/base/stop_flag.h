// The flag a stop signal sets during a search (sim/run/stop_signals.h owns
// the handlers). Here, below every layer, so that a wait in a lower layer
// (a process client's session, sim/process) heeds it too.
#pragma once

#include <atomic>

namespace lockstep::base {

// Lock-free: the signal handler stores it.
inline std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// While one is alive, a wait does not heed stop_requested: what is being
// done must finish (recording a counterexample already found; a second
// signal still ends lockstep at once).
inline std::atomic<int> stop_deferred{0};
class DeferStop {
 public:
  DeferStop() { stop_deferred.fetch_add(1); }
  ~DeferStop() { stop_deferred.fetch_sub(1); }
  DeferStop(const DeferStop&) = delete;
  DeferStop& operator=(const DeferStop&) = delete;
};

}  // namespace lockstep::base

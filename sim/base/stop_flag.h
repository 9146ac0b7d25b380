// The flag a stop signal sets during a search (sim/run/stop_signals.h owns
// the handlers). Here, below every layer, so that a wait in a lower layer
// (a process client's session, sim/process) heeds it too.
#pragma once

#include <atomic>

namespace lockstep::base {

// Lock-free: the signal handler stores it.
inline std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

}  // namespace lockstep::base

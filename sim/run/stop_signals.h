// SIGINT, SIGTERM, SIGHUP and SIGUSR1, one mechanism for every command.
//
// By default a stop signal ends the process at once: the output file being
// written (its temporary, see output_file.h) is removed, one line is printed
// on stderr, every program a client runs is killed with all it started and
// its session's folder removed (process::EndAllPrograms), and the exit code
// is 128 + the signal (130, 143, 129). While a
// CooperativeStop is alive (a search, and the shrinking and saving of its
// counterexample), the first stop signal only sets StopRequested(); the work
// notices it, reports what it has and exits 3. A second signal ends the
// process at once, as above, unless it is the first one again: the same
// signal within kRepeatWindowMs of it. One Ctrl-C under timeout(1) reaches
// lockstep from the terminal and again from timeout, which sends it on to
// the command and to the command's process group; the same signal a
// second later is a user who means it.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>

namespace lockstep::run {

// How long after the stop signal the same signal again counts as the same
// one, in milliseconds of CLOCK_MONOTONIC.
inline constexpr int64_t kRepeatWindowMs = 1000;

// Installs the handlers, which run on an alternate signal stack, and gives
// the calling thread one. Call once, before any work; another thread that
// runs clients' fibers holds a base::SignalStack of its own.
void InstallStopSignals();

// Set by a stop signal during a CooperativeStop (and by the memory bound).
std::atomic<bool>& StopRequested();
// The signal that set StopRequested(), or 0.
int StopSignal();
// "SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1".
const char* SignalName(int signal);

class CooperativeStop {
 public:
  CooperativeStop();
  ~CooperativeStop();
  CooperativeStop(const CooperativeStop&) = delete;
  CooperativeStop& operator=(const CooperativeStop&) = delete;
};

// The temporary file that a stop signal removes (one at a time). The
// caller blocks the stop signals around creating and registering it, and
// around renaming and forgetting it (BlockStopSignals).
void RegisterTemporary(const char* path);
void ForgetTemporary();

// Blocks the stop signals in this thread while alive.
class BlockStopSignals {
 public:
  BlockStopSignals();
  ~BlockStopSignals();
  BlockStopSignals(const BlockStopSignals&) = delete;
  BlockStopSignals& operator=(const BlockStopSignals&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace lockstep::run

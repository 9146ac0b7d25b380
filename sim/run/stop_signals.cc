#include "sim/run/stop_signals.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <sys/syscall.h>

#include "sim/base/signal_stack.h"
#include "sim/base/stop_flag.h"
#include "sim/process/child_process.h"

namespace lockstep::run {
namespace {

// SIGUSR1 too: mpirun ends the whole job itself on SIGINT and SIGTERM (and
// exits 1), but forwards SIGUSR1 to every rank, which then stop as one and
// give rank 0's exit code.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};

using base::stop_requested;
std::atomic<int> stop_signal{0};
std::atomic<int> cooperative{0};
// When the signal that set stop_requested arrived, in CLOCK_MONOTONIC
// nanoseconds.
std::atomic<int64_t> stop_time{0};

// The handler reads these, so they are plain storage and lock-free atomics.
char temporary[4096];
std::atomic<bool> has_temporary{false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
              std::atomic<int64_t>::is_always_lock_free);

void Say(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}

// CLOCK_MONOTONIC in nanoseconds; clock_gettime is async-signal-safe.
int64_t Now() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

extern "C" void OnStopSignal(int signal, siginfo_t*, void*) {
  const int64_t now = Now();
  if (cooperative.load() > 0 && !stop_requested.load()) {
    stop_signal.store(signal);
    stop_time.store(now);
    stop_requested.store(true);
    return;
  }
  // The same signal again within the window is the same request. One
  // Ctrl-C reaches every process of the terminal's foreground group:
  // under `timeout 600 lockstep explore ...` lockstep gets it from the
  // terminal and again from timeout(1), which forwards it to the command
  // and to the command's process group, within microseconds.
  if (stop_requested.load() && signal == stop_signal.load() &&
      now - stop_time.load() < kRepeatWindowMs * 1'000'000) {
    return;
  }
  if (has_temporary.load()) unlink(temporary);
  Say("\nlockstep: stopped by ");
  Say(SignalName(signal));
  Say("\n");
  // Not one of the programs clients run, nor anything they started,
  // outlives lockstep, and their sessions' folders go with them.
  process::EndAllPrograms();
  // exit_group(2) by syscall, not _exit: before a call the compiler knows
  // never returns, ASan unpoisons the stacks, and on the alternate signal
  // stack that asks pthread_getattr_np for the thread's own, which reads
  // /proc/self/maps from inside this handler and aborts the process when
  // it fails (SIGABRT instead of 128 + signal, once in a CI run).
  syscall(SYS_exit_group, 128 + signal);
}

sigset_t StopSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kStopSignals) sigaddset(&set, s);
  return set;
}

}  // namespace

void InstallStopSignals() {
  static base::SignalStack calling_thread_stack;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = OnStopSignal;
  sa.sa_mask = StopSet();  // one handler at a time
  // A cooperative stop only sets a flag: a write blocked on a full pipe
  // (stderr read by a slow reader) goes on after it, rather than failing
  // and leaving std::cerr silent for the rest of the run. SA_ONSTACK: the
  // signal may land on a fiber's stack (base/signal_stack.h).
  sa.sa_flags = SA_RESTART | SA_SIGINFO | SA_ONSTACK;
  for (int s : kStopSignals) sigaction(s, &sa, nullptr);
}

std::atomic<bool>& StopRequested() { return stop_requested; }
int StopSignal() { return stop_signal.load(); }

const char* SignalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "a signal";
  }
}

CooperativeStop::CooperativeStop() { cooperative.fetch_add(1); }
CooperativeStop::~CooperativeStop() { cooperative.fetch_sub(1); }

void RegisterTemporary(const char* path) {
  size_t n = std::min(strlen(path), sizeof temporary - 1);
  std::memcpy(temporary, path, n);
  temporary[n] = '\0';
  has_temporary.store(true);
}

void ForgetTemporary() { has_temporary.store(false); }

BlockStopSignals::BlockStopSignals() {
  sigset_t set = StopSet();
  pthread_sigmask(SIG_BLOCK, &set, &saved_);
}

BlockStopSignals::~BlockStopSignals() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

}  // namespace lockstep::run

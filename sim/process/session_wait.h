// How a process session waits in real time: up to the program's
// timeout_seconds, in slices short enough that a stop signal during a
// search (base::stop_requested) ends the wait within a tenth of a second,
// whatever the program is blocked in.
#pragma once

#include <poll.h>

#include <chrono>

namespace lockstep::process {

// The real time the program may take to do anything lockstep sees.
class Deadline {
 public:
  explicit Deadline(int seconds)
      : at_(std::chrono::steady_clock::now() + std::chrono::seconds(seconds)) {}
  bool Passed() const { return std::chrono::steady_clock::now() >= at_; }
  // The next slice to wait, in milliseconds: at most 100, 0 once passed.
  int SliceMillis() const;

 private:
  std::chrono::steady_clock::time_point at_;
};

// Throws world::RuleBroken once a stop was asked for (and not deferred:
// base::DeferStop): the search that waits stops, and says so (sim/cli's
// explore command, exit 3).
void HeedStop();

// poll(2) until something is ready (returns poll's count) or the deadline
// passes (returns 0), heeding a stop every slice. Throws std::runtime_error
// if poll fails.
int PollUntil(pollfd* fds, nfds_t n, const Deadline& deadline);

}  // namespace lockstep::process

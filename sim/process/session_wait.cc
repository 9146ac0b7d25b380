#include "sim/process/session_wait.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sim/base/stop_flag.h"
#include "sim/world/client.h"
#include "sim/world/fiber_stack.h"

namespace lockstep::process {

int Deadline::SliceMillis() const {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(at_ - std::chrono::steady_clock::now())
          .count();
  return static_cast<int>(std::clamp<long long>(left, 0, 100));
}

void HeedStop() {
  if (base::stop_requested.load(std::memory_order_relaxed) && base::stop_deferred.load() == 0) {
    // The throw runs below this frame, where earlier calls left stale
    // shadow on a fiber's stack (world/fiber_stack.h).
    world::ForgetUnwoundFrames();
    throw world::RuleBroken("lockstep was asked to stop while it waited for a process client");
  }
}

int PollUntil(pollfd* fds, nfds_t n, const Deadline& deadline) {
  for (;;) {
    HeedStop();
    const int slice = deadline.SliceMillis();
    // A signal (EINTR) only cuts a slice short: the next one looks at the flag.
    const int r = poll(fds, n, slice);
    if (r > 0) return r;
    if (r < 0 && errno != EINTR) {
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    if (slice == 0) return 0;
  }
}

}  // namespace lockstep::process

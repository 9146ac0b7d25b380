#include "sim/world/fiber_scheduler.h"

#include <algorithm>

#include <boost/fiber/operations.hpp>

#include "sim/base/check.h"

namespace lockstep::world {
namespace {
thread_local FiberScheduler* this_thread_scheduler = nullptr;
}  // namespace

FiberScheduler::FiberScheduler() { this_thread_scheduler = this; }

FiberScheduler::~FiberScheduler() {
  if (this_thread_scheduler == this) this_thread_scheduler = nullptr;
}

void FiberScheduler::SwitchTo(boost::fibers::context* target) {
  designated_ = target;
  boost::this_fiber::yield();
}

void FiberScheduler::awakened(boost::fibers::context* ctx) noexcept { ready_.push_back(ctx); }

boost::fibers::context* FiberScheduler::pick_next() noexcept {
  if (ready_.empty()) return nullptr;
  auto it = ready_.end();
  if (designated_ != nullptr) {
    it = std::find(ready_.begin(), ready_.end(), designated_);
    LOCKSTEP_CHECK(it != ready_.end(), "fiber scheduler: the designated fiber is ready");
    designated_ = nullptr;
  }
  // Undesignated switches go back to the thread's main fiber, which runs
  // the worlds; the dispatcher (which frees finished fibers) comes next.
  using boost::fibers::type;
  for (type kind : {type::main_context, type::dispatcher_context}) {
    if (it != ready_.end()) break;
    it =
        std::find_if(ready_.begin(), ready_.end(), [kind](auto* c) { return c->is_context(kind); });
  }
  if (it == ready_.end()) it = ready_.begin();
  boost::fibers::context* ctx = *it;
  ready_.erase(it);
  return ctx;
}

void FiberScheduler::ReleaseFinishedFibers() {
  auto it = std::find_if(ready_.begin(), ready_.end(), [](auto* c) {
    return c->is_context(boost::fibers::type::dispatcher_context);
  });
  if (it != ready_.end()) SwitchTo(*it);
}

bool FiberScheduler::has_ready_fibers() const noexcept { return !ready_.empty(); }

// Nothing ever waits on a timer: virtual time is not wall-clock time.
void FiberScheduler::suspend_until(std::chrono::steady_clock::time_point const&) noexcept {}

void FiberScheduler::notify() noexcept {}

FiberScheduler& ThisThreadFiberScheduler() {
  if (this_thread_scheduler == nullptr) {
    boost::fibers::use_scheduling_algorithm<FiberScheduler>();
  }
  return *this_thread_scheduler;
}

}  // namespace lockstep::world

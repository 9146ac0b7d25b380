// A Boost.Fiber scheduling algorithm that runs exactly the fiber it is told
// to run, so that client fibers interleave only where the world decides.
//
// Every thread that hosts worlds installs one (ThisThreadFiberScheduler()
// does it on first use). Fibers hand control over explicitly: the world
// resumes a client with SwitchTo(client) and the client gives it back with
// SwitchTo(world). No timers, no OS threads, no work stealing: the order of
// execution is a pure function of the world's choices.
#pragma once

#include <deque>

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>

namespace lockstep::world {

class FiberScheduler final : public boost::fibers::algo::algorithm {
 public:
  FiberScheduler();
  ~FiberScheduler() override;

  // Makes `target` the next fiber to run, then yields the calling fiber.
  // REQUIRES: target is a fiber of this thread that is ready (it yielded,
  // or it was just created).
  void SwitchTo(boost::fibers::context* target);

  // Lets Boost's dispatcher free the stacks of fibers that have finished.
  // REQUIRES: called from the thread's main fiber.
  void ReleaseFinishedFibers();

  // boost::fibers::algo::algorithm
  void awakened(boost::fibers::context* ctx) noexcept override;
  boost::fibers::context* pick_next() noexcept override;
  bool has_ready_fibers() const noexcept override;
  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override;
  void notify() noexcept override;

 private:
  std::deque<boost::fibers::context*> ready_;
  boost::fibers::context* designated_ = nullptr;
};

// The calling thread's scheduler, installed on first call.
FiberScheduler& ThisThreadFiberScheduler();

}  // namespace lockstep::world

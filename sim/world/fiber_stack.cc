#include "sim/world/fiber_stack.h"

#if defined(__SANITIZE_ADDRESS__)
#define LOCKSTEP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOCKSTEP_ASAN 1
#endif
#endif
#ifdef LOCKSTEP_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace lockstep::world {
namespace {

#ifdef LOCKSTEP_ASAN
constexpr size_t kFiberStackBytes = size_t{4} << 20;
#else
constexpr size_t kFiberStackBytes = size_t{1} << 20;
#endif

// The bottom of the running fiber's stack (set as control enters one).
thread_local char* t_fiber_stack_bottom = nullptr;

}  // namespace

FiberStack::FiberStack(char** bottom_out) : inner(kFiberStackBytes), bottom(bottom_out) {}

boost::context::stack_context FiberStack::allocate() {
  boost::context::stack_context sc = inner.allocate();
  *bottom = static_cast<char*>(sc.sp) - sc.size;
  return sc;
}

void FiberStack::deallocate(boost::context::stack_context& sc) noexcept { inner.deallocate(sc); }

void EnterFiber(char* stack_bottom) { t_fiber_stack_bottom = stack_bottom; }

#ifdef LOCKSTEP_ASAN
__attribute__((noinline)) void ForgetUnwoundFrames() {
  char* bottom = t_fiber_stack_bottom;
  char* here = static_cast<char*>(__builtin_frame_address(0));
  if (bottom == nullptr || here <= bottom) return;
  __asan_unpoison_memory_region(bottom, static_cast<size_t>(here - bottom));
}
#else
void ForgetUnwoundFrames() {}
#endif

}  // namespace lockstep::world

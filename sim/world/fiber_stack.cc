#include "sim/world/fiber_stack.h"

#include <vector>

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

// Stacks of ended fibers, kept for the next ones on this thread: a search
// that learns many client states starts a fiber for each, and mapping,
// guarding and unmapping a stack every time took a third of its time.
// A kept stack keeps the pages its fiber touched, and its guard page.
constexpr size_t kKeptStacks = 128;
struct KeptStacks {
  std::vector<boost::context::stack_context> stacks;
  ~KeptStacks();
};
thread_local KeptStacks t_kept;
// Set once t_kept is destroyed (a trivial type stays readable until the
// thread ends): fibers that end after it unmap their stacks at once.
thread_local bool t_kept_gone = false;

// Unmaps a stack, its shadow cleared first: ASan does not clear it on
// munmap, and the redzones of frames an exception unwound there would
// poison whatever is mapped at that address next (LeakSanitizer's own
// symbolizer at exit, which then reports in the middle of a report and
// waits on its own lock for ever).
void Unmap(boost::fibers::protected_fixedsize_stack& inner, boost::context::stack_context& sc) {
#ifdef LOCKSTEP_ASAN
  __asan_unpoison_memory_region(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
  inner.deallocate(sc);
}

KeptStacks::~KeptStacks() {
  t_kept_gone = true;
  boost::fibers::protected_fixedsize_stack unmap(kFiberStackBytes);
  for (boost::context::stack_context& sc : stacks) Unmap(unmap, sc);
}

}  // namespace

FiberStack::FiberStack(char** bottom_out) : inner(kFiberStackBytes), bottom(bottom_out) {}

boost::context::stack_context FiberStack::allocate() {
  boost::context::stack_context sc;
  // Room for every kept stack now: deallocate cannot throw.
  if (!t_kept_gone) t_kept.stacks.reserve(kKeptStacks);
  if (!t_kept_gone && !t_kept.stacks.empty()) {
    sc = t_kept.stacks.back();
    t_kept.stacks.pop_back();
  } else {
    sc = inner.allocate();
  }
  *bottom = static_cast<char*>(sc.sp) - sc.size;
#ifdef LOCKSTEP_ASAN
  // The last fiber's frames, some unwound by an exception, are dead.
  __asan_unpoison_memory_region(*bottom, sc.size);
#endif
  return sc;
}

void FiberStack::deallocate(boost::context::stack_context& sc) noexcept {
  if (t_kept_gone || t_kept.stacks.size() >= t_kept.stacks.capacity()) {
    Unmap(inner, sc);
    return;
  }
  t_kept.stacks.push_back(sc);
}

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

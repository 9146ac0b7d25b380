// The stacks client fibers run on, and what AddressSanitizer needs to be
// told of them.
//
// Each client runs on Boost.Context's protected stack (mmap'd, with a guard
// page below it): an overflow faults at once instead of writing over the
// heap. Lua's C calls nest at most 200 deep (LUAI_MAXCCALLS), each level
// within 1 KiB with the bounded pattern functions: measured, 128 KiB
// overflows at the 200th nested gsub, pcall or sort callback and 256 KiB
// holds every kind (tests/reliability/lua_limits_test.cc). 1 MiB leaves the
// algorithm's own C++ frames room; a sanitizer's frames are larger. Only
// the pages a fiber touches take memory.
#pragma once

#include <cstddef>

#include <boost/fiber/protected_fixedsize_stack.hpp>

namespace lockstep::world {

// Boost.Fiber's protected stack, telling where it starts.
struct FiberStack {
  boost::fibers::protected_fixedsize_stack inner;
  char** bottom;  // set to the stack's lowest address when it is allocated
  explicit FiberStack(char** bottom_out);
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
};

// Called as control enters a fiber: the bottom of its stack, for
// ForgetUnwoundFrames.
void EnterFiber(char* stack_bottom);

// Debian's Boost switches fibers without telling AddressSanitizer, so ASan
// cannot clear the shadow of frames an exception unwound on a fiber's stack,
// and their stale redzones would be reported against the frames that reuse
// the memory. Call it where an exception was caught on a fiber: every frame
// below the caller's is dead, and its shadow is cleared. A no-op without
// ASan, and outside a fiber.
void ForgetUnwoundFrames();

}  // namespace lockstep::world

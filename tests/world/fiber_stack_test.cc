// A fiber's stack goes back to the system with no AddressSanitizer poison
// left on it: ASan keeps the shadow of unmapped memory, and redzones left
// by frames an exception unwound would poison what is mapped there next.
#include "sim/world/fiber_stack.h"

#include <unistd.h>

#include <cerrno>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

namespace lockstep::world {
namespace {

TEST_CASE("a fiber's stack is unmapped as its thread ends and leaves no redzones behind",
          "[world]") {
  char* bottom = nullptr;
  size_t size = 0;
  std::thread([&] {
    FiberStack stack(&bottom);
    boost::context::stack_context sc = stack.allocate();
    size = sc.size;
    // What an exception unwinding frames there leaves under ASan.
    ASAN_POISON_MEMORY_REGION(bottom + size / 2, 4096);
    stack.deallocate(sc);  // kept for the thread's next fiber, unmapped as it ends
  }).join();
  REQUIRE(bottom != nullptr);
  std::vector<unsigned char> resident(size / static_cast<size_t>(sysconf(_SC_PAGESIZE)) + 1);
  CHECK(mincore(bottom, size, resident.data()) == -1);
  CHECK(errno == ENOMEM);  // nothing is mapped there any more
#if defined(__SANITIZE_ADDRESS__)
  CHECK(__asan_region_is_poisoned(bottom, size) == nullptr);
#endif
}

}  // namespace
}  // namespace lockstep::world

// An alternate signal stack for the calling thread (sigaltstack(2)).
//
// A stop signal may land while a client's fiber runs, and the kernel then
// writes the handler's siginfo just below the fiber's stack pointer. Debian's
// Boost switches fibers without telling AddressSanitizer, so that memory can
// still carry the redzones of frames an exception unwound there
// (world/fiber_stack.h), and the handler's read of its siginfo would be
// reported as an overflow. Handlers installed with SA_ONSTACK run on this
// stack instead, whose memory is the thread's own and clean.
#pragma once

#include <signal.h>

#include <memory>

namespace lockstep::base {

class SignalStack {
 public:
  // Keeps the thread's alternate stack if it has one (AddressSanitizer gives
  // every thread its own); otherwise installs one until destroyed.
  SignalStack() {
    stack_t current{};
    if (sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
    memory_ = std::make_unique<char[]>(kBytes);
    stack_t mine{};
    mine.ss_sp = memory_.get();
    mine.ss_size = kBytes;
    if (sigaltstack(&mine, nullptr) != 0) memory_.reset();
  }
  ~SignalStack() {
    if (!memory_) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
  SignalStack(const SignalStack&) = delete;
  SignalStack& operator=(const SignalStack&) = delete;

 private:
  // The stop handler kills programs and writes a line; ASan's frames are
  // larger than plain ones.
  static constexpr size_t kBytes = 256 * 1024;
  std::unique_ptr<char[]> memory_;
};

}  // namespace lockstep::base

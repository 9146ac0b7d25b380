// What lockstep and liblockstep_client.so, preloaded into a process client,
// say to each other (docs/design.md, "Processes as clients").
//
// The process inherits two descriptors at fixed numbers: a stream socket,
// the control channel, and a shared page holding the client's virtual
// clock. The shim answers every clock read from the page, which lockstep
// writes before it lets the process run; it turns a sleep, and a wait for
// input that would block, into a message and waits for lockstep's answer.
// Both sides include this header; nothing in it allocates.
#pragma once

#include <cstdint>

namespace lockstep::process {

inline constexpr int kControlFd = 3;  // the control channel, in the process
inline constexpr int kClockFd = 4;    // the clock page, in the process
// Set in the process's environment; the shim reads them once and removes
// them, so that no program the process starts takes the channel for its own.
inline constexpr const char* kShimEnv = "LOCKSTEP_SHIM";  // "3 4 SEED"
// The fourth word of kShimEnv when the client execs another program in its
// place: the shim takes over the channel without saying hello again.
inline constexpr const char* kShimExeced = "exec";

// The process id the program sees (getpid, and gettid on its main thread):
// the same in every run. PID_MAX_LIMIT, which no real process has; kill()
// takes it as the process's own.
inline constexpr int kVirtualPid = 4194304;

// The page: the client's clock in nanoseconds, every clock's reading
// (CLOCK_REALTIME and CLOCK_MONOTONIC alike: virtual milliseconds are Unix
// milliseconds, as on the servers replay starts).
struct ClockPage {
  int64_t nanos;
};

enum class ShimCall : uint32_t {
  kHello = 1,  // the shim is loaded and active (sent once, unanswered)
  kSleep = 2,  // nanos: a sleep of that long; answered kWoke after it
  kWait = 3,   // nanos (or -1: for ever): nothing to read; answered kData or kWoke
  // The program reads its clock for the first time since it was last
  // resumed: lockstep observes the clock then (Client::Now), so that a
  // client's state holds the clock only where its code read it. Answered
  // kWoke once observed.
  kClock = 4,
  // nanos: the local end of a TCP connection the program opened, as
  // address << 16 | port (IPv4, host order), sent before its connect
  // returns; unanswered. lockstep serves only the connections so named.
  kConnect = 5,
};

struct ShimMessage {
  uint32_t call;
  uint32_t unused;
  int64_t nanos;
};

// Answers: the time asked for has passed, or replies were written (look again).
inline constexpr char kWoke = 'w';
inline constexpr char kData = 'd';

}  // namespace lockstep::process

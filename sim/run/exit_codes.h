// The exit codes of every `lockstep` command, one meaning each:
// 0 no violation, 1 violation found, 2 bad input or usage, 3 stopped at a
// bound (steps, memory, the largest trace lockstep reads, a stop signal
// during a search) before finishing, 4 a replay on a real Redis got a reply
// that differs from the trace's, 5 no violation, but a client expected to
// enter the critical section entered it in no schedule (a vacuous SAFE);
// 128 + N stopped by signal N (stop_signals.h).
#pragma once

namespace lockstep::run {

inline constexpr int kExitSafe = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitBound = 3;
inline constexpr int kExitReplayDiffers = 4;
inline constexpr int kExitVacuous = 5;

}  // namespace lockstep::run

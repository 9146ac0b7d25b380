// The `lockstep` subcommands. Each returns the process exit code:
// 0 no violation, 1 violation found, 2 bad input or usage, 3 stopped at a
// bound (steps, memory, the largest trace lockstep reads, a stop signal
// during a search) before finishing, 4 a replay on a real Redis got a reply
// that differs from the trace's; 128 + N stopped by signal N
// (stop_signals.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/trace/trace.h"

namespace lockstep::cli {

inline constexpr int kExitSafe = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitBound = 3;
inline constexpr int kExitReplayDiffers = 4;

struct OutputOptions {
  bool json = false;        // print a machine-readable summary instead
  std::string trace_out;    // write the trace here if non-empty (output_file.h)
  uint64_t max_memory = 0;  // run: stop at this resident size (memory_bound.h); 0: none
  trace::TimelineStyle timeline;
};

int Replay(const std::string& file, const OutputOptions& out);
int Run(const std::string& file, uint64_t seed, std::optional<int> max_steps,
        const OutputOptions& out);
int List(const std::string& scenario_dir, bool json);
int Demo(const std::string& scenario_dir, const trace::TimelineStyle& timeline);

// Prints "lockstep: <message>" on stderr, as every command reports what
// stopped it.
void PrintError(const std::string& message);

// Where the scenarios are: ./scenarios if it exists, else the source tree's.
std::string DefaultScenarioDir();

}  // namespace lockstep::cli

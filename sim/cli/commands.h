// The `lockstep` subcommands. Each returns the process exit code
// (sim/run/exit_codes.h).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

#include "sim/run/exit_codes.h"
#include "sim/run/messages.h"
#include "sim/trace/trace.h"

namespace lockstep::cli {

using run::kExitBadInput;
using run::kExitBound;
using run::kExitReplayDiffers;
using run::kExitSafe;
using run::kExitVacuous;
using run::kExitViolation;
using run::PrintError;

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
// The demo's parts (demo.cc): 1..kDemoParts, or every one for `part` 0.
// With `pause` (stdin on a terminal), waits for a line from it before each
// part after the first; never without, so that a pipe never blocks.
constexpr int kDemoParts = 5;
int Demo(const std::string& scenario_dir, const trace::TimelineStyle& timeline, int part = 0,
         std::istream* pause = nullptr);

// Where the scenarios are: ./scenarios if it exists, else the source tree's.
std::string DefaultScenarioDir();

}  // namespace lockstep::cli

// Where in the user's files a report points: the scenario's `expect`, and
// the algorithm's source line behind a step ("setnx_takeover.cc:19" in a
// trace, from a built-in; "lock.lua:7", from a script the scenario names).
#pragma once

#include <optional>
#include <string>

#include "sim/trace/trace.h"

namespace lockstep::report {

struct Location {
  std::string path;  // relative to the working folder, or to `base`
  int line = 1;
  // "" for the user's files; kLockstepSource for a built-in algorithm's,
  // which are lockstep's (its source tree's sim/algo/).
  std::string base;
};
inline constexpr const char* kLockstepSource = "LOCKSTEP_SOURCE";

// The scenario file, at the line of its "expect" (else its first line).
Location ScenarioLocation(const std::string& file);

// The file and line of step source `source` in `t`, run from the scenario
// `scenario_file`; nullopt when it names no file lockstep knows (a
// program's own code, a script written inline: the scenario is then the
// place).
std::optional<Location> SourceLocation(const trace::Trace& t, const std::string& scenario_file,
                                       const std::string& source);

// The step of `t` whose command made its violation: the violating step if
// a client acted there, else the last step before it of a client the
// violation names; 0 when there is none (or no violation).
int ViolatingStep(const trace::Trace& t);

}  // namespace lockstep::report

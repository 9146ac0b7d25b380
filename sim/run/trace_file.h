// Reading a trace: a trace file, or a scenario with a schedule, replayed.
#pragma once

#include <string>

#include "sim/run/runner.h"
#include "sim/trace/trace.h"

namespace lockstep::run {

// Reads a trace ("format": "lockstep-trace/1"), or replays a scenario's
// schedule into one. Throws base::InputError ("FILE: at /pointer: what was
// expected") iff the file cannot be read or is neither.
trace::Trace LoadTraceFile(const std::string& file);

// The same file with its scenario: a trace is replayed in the model and
// must give the same record (run::ReplaySavedTrace); a scenario's schedule
// is replayed. Throws as LoadTraceFile does.
ReplayedTrace LoadReplayedTrace(const std::string& file);

}  // namespace lockstep::run

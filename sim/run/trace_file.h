// Reading a trace: a trace file, or a scenario with a schedule, replayed.
#pragma once

#include <string>

#include "sim/run/runner.h"
#include "sim/trace/trace.h"

namespace lockstep::run {

// The JSON document in `file`. Throws base::InputError naming the place.
nlohmann::json ReadJsonFile(const std::string& file);
// Whether a document read so is a trace (it says its "format"), not a scenario.
bool IsTrace(const nlohmann::json& doc);

// Reads a trace ("format": "lockstep-trace/1"), or replays a scenario's
// schedule into one. Throws base::InputError ("FILE: at /pointer: what was
// expected") iff the file cannot be read or is neither.
trace::Trace LoadTraceFile(const std::string& file);

// The same file with its scenario: a trace is replayed in the model and
// must give the same record (run::ReplaySavedTrace); a scenario's schedule
// is replayed. Throws as LoadTraceFile does.
ReplayedTrace LoadReplayedTrace(const std::string& file);

}  // namespace lockstep::run

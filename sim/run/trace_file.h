// Reading a trace: a trace file, or a scenario with a schedule, replayed.
#pragma once

#include <string>

#include "sim/trace/trace.h"

namespace lockstep::run {

// Reads a trace ("format": "lockstep-trace/1"), or replays a scenario's
// schedule into one. Throws base::InputError ("FILE: at /pointer: what was
// expected") iff the file cannot be read or is neither.
trace::Trace LoadTraceFile(const std::string& file);

}  // namespace lockstep::run

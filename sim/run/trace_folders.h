// Where a trace file says a process client runs: its scenario's
// "process"/"cwd".
//
// In memory, and in the scenario a run reads, the folder is absolute. A
// trace file records it relative to the file's own folder when the trace
// lies as near the folder as the file the run read does (the deepest folder
// holding the trace and the program's folder is inside the one holding the
// read file's folder and the program's, "/" aside), or when both lie in the
// folder lockstep runs in: the counterexample then replays wherever that
// folder is copied or cloned, and names no home folder. Otherwise (a trace
// on standard output, or saved far from both) the folder stays absolute
// and the trace replays on this machine. Read back, a relative folder is taken
// from the trace's folder, as a scenario's is taken from the scenario's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/trace/trace.h"

namespace lockstep::run {

// The text of `t` as a file at `trace_path` records it ("-": standard
// output); `scenario_file` is the file the run read (a scenario, or a trace
// replayed).
std::string TraceTextFor(const trace::Trace& t, const std::string& scenario_file,
                         const std::string& trace_path);

// In the scenario `replayed` of a replay of the trace at `trace_path`, each
// absolute folder that is what the file's scenario `recorded` names
// relatively (taken from the file's folder) is written as the file writes
// it, so that the two compare equal where they mean the same.
void AdoptRecordedFolders(nlohmann::json& replayed, const nlohmann::json& recorded,
                          const std::string& trace_path);

}  // namespace lockstep::run

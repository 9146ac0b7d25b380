// A client's algorithm that is a process (docs/design.md, "Processes as
// clients"): {"process": {"command": [PROGRAM, ARG...], "env": {NAME: VALUE},
// "cwd": DIR, "timeout_seconds": N}}.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/process/process_program.h"
#include "sim/trace/json_reader.h"
#include "sim/world/model.h"

namespace lockstep::scenario {

// Reads the algorithm object `a` into `setup`. `settings` are the client's
// lock settings as a Lua algorithm sees them (they reach the process in its
// environment); `written` is the algorithm in the scenario's document, where
// the folder the process runs in is written out absolute, so that a saved
// trace replays from anywhere on this machine. Returns the program, which
// may not start until the load's gate allows it (program_trust.h).
// Throws ::lockstep::json::JsonError.
std::shared_ptr<process::ProcessProgram> ReadProcessAlgorithm(
    const ::lockstep::json::ObjectReader& a, nlohmann::json settings, world::Millis request_timeout,
    const std::string& scenario_file, world::ClientSetup& setup, nlohmann::json& written);

// The field reference's lines for it.
extern const char* const kProcessFields;

}  // namespace lockstep::scenario

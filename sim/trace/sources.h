// The algorithms' source text behind a trace's steps: each step names the
// line its request was made at ("setnx_takeover.cc:19", "lock.lua:7"), and
// the HTML page and the viewer show that line in its file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "sim/trace/trace.h"

namespace lockstep::trace {

// File name -> text, for every file the trace's steps and reasons name that
// lockstep knows: the built-in algorithms (embedded when lockstep was
// built) and the Lua scripts the trace's scenario carries. A program's own
// C++ algorithm is not among them.
std::map<std::string, std::string> SourcesOf(const Trace& t);
// The same for the source lines `sources` ("file.cc:12") of a run of the
// scenario `scenario_document`.
std::map<std::string, std::string> SourcesNamed(const nlohmann::json& scenario_document,
                                                const std::vector<std::string>& sources);

// What Lua calls the script of a client's `algorithm` (its object in a
// scenario document) in its line information, without folders: its file's
// name ("lua_file"), or "lua_inline" for one written in the scenario.
std::string ScriptName(const nlohmann::json& algorithm);

// "file.cc:12" -> {"file.cc", 12}; nullopt if it is not of that form.
std::optional<std::pair<std::string, int>> ParseSourceLine(const std::string& source);

}  // namespace lockstep::trace

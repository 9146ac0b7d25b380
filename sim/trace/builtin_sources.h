// The source text of the built-in algorithms, embedded at build time, so
// that the HTML page and the viewer can show the line each step came from
// (a trace names it "setnx_takeover.cc:19").
#pragma once

#include <map>
#include <string>

namespace lockstep::trace {

// File name (without folders) -> its text.
const std::map<std::string, std::string>& BuiltinSources();

}  // namespace lockstep::trace

// `lockstep render`: the space-time diagram of a trace as SVG or as a
// self-contained HTML page (see sim/trace/render_svg.h), for slides and
// pages. Also the loader the viewer shares: a trace file, or a scenario
// with a schedule (replayed into a trace).
#pragma once

#include <string>

#include "sim/trace/trace.h"

namespace lockstep::cli {

// Reads a trace ("format": "lockstep-trace/1"), or replays a scenario's
// schedule into one. Throws base::InputError ("FILE: at /pointer: what was
// expected") iff the file cannot be read or is neither.
trace::Trace LoadTraceFile(const std::string& file);

// Writes the SVG to `svg_out` and the HTML to `html_out` (each if not
// empty), atomically. Returns the exit code: 0 written, 2 bad input or a
// file that could not be written.
int Render(const std::string& file, const std::string& svg_out, const std::string& html_out);

}  // namespace lockstep::cli

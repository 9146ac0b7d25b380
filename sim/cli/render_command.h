// `lockstep render`: the space-time diagram of a trace as SVG or as a
// self-contained HTML page (see sim/trace/render_svg.h), for slides and
// pages.
#pragma once

#include <string>

#include "sim/trace/trace.h"

namespace lockstep::cli {

// Writes the SVG to `svg_out` and the HTML to `html_out` (each if not
// empty), atomically. Returns the exit code: 0 written, 2 bad input or a
// file that could not be written.
int Render(const std::string& file, const std::string& svg_out, const std::string& html_out);

}  // namespace lockstep::cli

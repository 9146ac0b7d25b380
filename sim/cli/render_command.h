// `lockstep render`: the space-time diagram of a trace as SVG, PNG or a
// self-contained HTML page (see sim/trace/render_svg.h), for slides and
// pages.
#pragma once

#include <string>

#include "sim/lang/language.h"
#include "sim/scenario/overrides.h"
#include "sim/trace/render_svg.h"

namespace lockstep::cli {

struct RenderOutputs {
  std::string svg, png, html;  // where to write each; empty: not wanted
  std::string play_html;       // the scheduler game's page (of a scenario)
  std::string course;          // a folder for a course's pages (run/course.h)
  std::string levels;          // its course file; "": the one lockstep ships
};

struct RenderRequest {
  std::string steps;  // "A..B", "A..", "..B" or "" (all)
  bool hide_idle = false;
  double font_size = trace::kDiagramFontSize;
  // --clients and --horizon: a game's scenario cut, as explore cuts it.
  scenario::Overrides cut;
  // --lang: the games' and the course's words.
  lang::Language language = lang::Language::kEn;
};

// Writes each picture asked for, atomically, or the course (`file` unused).
// Returns the exit code: 0 written, 2 bad input or a file that could not be
// written. The cut applies to the games (--play-html, --course); a trace's
// picture is of the run it records and refuses one.
int Render(const std::string& file, const RenderOutputs& out, const RenderRequest& request);

// "A..B" as the diagram's rows of the trace in `file`, whose steps are
// 0..last. Throws base::InputError naming the file and --steps unless
// 0 <= A <= B <= last.
trace::DiagramOptions ParseStepRange(const std::string& file, const std::string& steps, int last);

}  // namespace lockstep::cli

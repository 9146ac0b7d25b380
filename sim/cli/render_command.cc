#include "sim/cli/render_command.h"

#include <iostream>

#include "sim/base/input_error.h"
#include "sim/base/printable.h"
#include "sim/cli/commands.h"
#include "sim/cli/svg_png.h"
#include "sim/kv/int_parse.h"
#include "sim/run/course.h"
#include "sim/run/output_file.h"
#include "sim/run/play_page.h"
#include "sim/run/trace_file.h"

namespace lockstep::cli {

trace::DiagramOptions ParseStepRange(const std::string& file, const std::string& steps, int last) {
  trace::DiagramOptions o;
  const base::InputError bad(
      file, "--steps",
      "expected A..B, A.. or ..B with 0 <= A <= B <= " + std::to_string(last) +
          " (the trace's last step), got \"" + steps + "\"");
  const size_t dots = steps.find("..");
  if (dots == std::string::npos) throw bad;
  const std::string a = steps.substr(0, dots), b = steps.substr(dots + 2);
  int64_t from = 0, to = last;
  if ((!a.empty() && !kv::ParseInt64(a, &from)) || (!b.empty() && !kv::ParseInt64(b, &to)) ||
      from < 0 || to > last || from > to) {
    throw bad;
  }
  o.from_step = static_cast<int>(from);
  o.to_step = static_cast<int>(to);
  return o;
}

int Render(const std::string& file, const RenderOutputs& out, const RenderRequest& request) {
  if (!out.course.empty()) {
    const run::Course course = run::LoadCourse(
        out.levels.empty() ? run::DefaultCourseFile(DefaultScenarioDir()) : out.levels);
    for (const std::string& line :
         run::WriteCourse(course, out.course, request.cut, request.language).lines) {
      std::cout << "wrote " << base::Printable(line) << "\n";
    }
    return kExitSafe;
  }
  if (!request.cut.empty() && (!out.svg.empty() || !out.png.empty() || !out.html.empty())) {
    throw base::InputError(file, request.cut.clients ? "--clients" : "--horizon",
                           "a trace's picture is of the run it records and cannot be cut; "
                           "--clients and --horizon cut a game (--play-html, --course)");
  }
  for (const auto& [option, path] :
       {std::pair{"--svg", out.svg}, std::pair{"--png", out.png}, std::pair{"--html", out.html},
        std::pair{"--play-html", out.play_html}}) {
    if (!path.empty()) run::CheckOutput(option, path, {file});
  }
  if (!out.play_html.empty()) {
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    try {
      scenario::ApplyOverrides(s, request.cut);
    } catch (const base::InputError& e) {
      throw base::InputError(file, "", e.what());
    }
    const nlohmann::json graph = run::PlayGraph(s, file);
    run::WriteOutput(out.play_html, run::PlayPage(graph, request.language));
    (run::IsStandardOutput(out.play_html) ? std::cerr : std::cout)
        << "wrote " << out.play_html << " (the game: " << graph["states"].size()
        << " states, every choice shown)\n";
    if (out.svg.empty() && out.png.empty() && out.html.empty()) return kExitSafe;
  }
  trace::Trace t = run::LoadTraceFile(file);
  trace::PictureOptions options;
  if (!request.steps.empty()) {
    options.diagram = ParseStepRange(file, request.steps, static_cast<int>(t.steps.size()) - 1);
  }
  options.diagram.hide_idle = request.hide_idle;
  options.font_size = request.font_size;
  const std::string svg = trace::RenderSvg(t, options);
  for (const auto& [path, content] :
       {std::pair{out.svg, out.svg.empty() ? "" : svg},
        std::pair{out.png, out.png.empty() ? "" : SvgToPng(svg)},
        std::pair{out.html, out.html.empty() ? "" : trace::RenderHtml(t, options)}}) {
    if (path.empty()) continue;
    run::WriteOutput(path, content);
    (run::IsStandardOutput(path) ? std::cerr : std::cout) << "wrote " << path << "\n";
  }
  return kExitSafe;
}

}  // namespace lockstep::cli

#include "sim/cli/render_command.h"

#include <iostream>

#include "sim/cli/commands.h"
#include "sim/cli/output_file.h"
#include "sim/cli/runner.h"
#include "sim/explore/replay_strategy.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/render_svg.h"

namespace lockstep::cli {

trace::Trace LoadTraceFile(const std::string& file) {
  namespace jr = lockstep::json;
  std::string text = scenario::ReadFile(file);
  nlohmann::json doc;
  try {
    doc = jr::Parse(text);
  } catch (const jr::JsonError& e) {
    throw base::InputError(file, e.place, e.expected);
  }
  if (doc.is_object() && doc.contains("format")) return trace::FromJson(doc, file);
  scenario::Scenario s = scenario::LoadScenario(doc, file);
  if (!s.has_schedule) {
    throw base::InputError(file, "/",
                           "missing field \"schedule\" (a scenario is replayed by its "
                           "schedule; give a trace, or a scenario with a schedule)");
  }
  try {
    return ReplaySchedule(s);
  } catch (const explore::ScheduleError& e) {
    throw base::InputError(file, "/schedule/" + std::to_string(e.position), e.what());
  }
}

int Render(const std::string& file, const std::string& svg_out, const std::string& html_out) {
  for (const auto& [option, path] : {std::pair{"--svg", svg_out}, std::pair{"--html", html_out}}) {
    if (!path.empty()) CheckOutput(option, path, {file});
  }
  trace::Trace t = LoadTraceFile(file);
  for (const auto& [path, content] :
       {std::pair{svg_out, svg_out.empty() ? "" : trace::RenderSvg(t)},
        std::pair{html_out, html_out.empty() ? "" : trace::RenderHtml(t)}}) {
    if (path.empty()) continue;
    WriteOutput(path, content);
    (IsStandardOutput(path) ? std::cerr : std::cout) << "wrote " << path << "\n";
  }
  return kExitSafe;
}

}  // namespace lockstep::cli

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

std::optional<trace::Trace> LoadTraceFile(const std::string& file, std::string* error) {
  namespace jr = lockstep::json;
  try {
    std::string text = scenario::ReadFile(file);
    nlohmann::json doc;
    try {
      doc = jr::Parse(text);
    } catch (const jr::JsonError& e) {
      *error = file + ": " + e.what();
      return std::nullopt;
    }
    if (doc.is_object() && doc.contains("format")) {
      std::string why;
      std::optional<trace::Trace> t = trace::FromJson(doc, &why);
      if (!t) *error = file + ": " + why;
      return t;
    }
    scenario::Scenario s = scenario::LoadScenario(doc, file);
    if (!s.has_schedule) {
      *error = file +
               ": at /: missing field \"schedule\" (a scenario is drawn by replaying "
               "its schedule; give a trace, or a scenario with a schedule)";
      return std::nullopt;
    }
    try {
      return ReplaySchedule(s);
    } catch (const explore::ScheduleError& e) {
      *error = file + ": at /schedule/" + std::to_string(e.position) + ": " + e.what();
      return std::nullopt;
    }
  } catch (const scenario::ScenarioError& e) {
    *error = e.what();
    return std::nullopt;
  }
}

int Render(const std::string& file, const std::string& svg_out, const std::string& html_out) {
  for (const auto& [option, path] : {std::pair{"--svg", svg_out}, std::pair{"--html", html_out}}) {
    if (path.empty()) continue;
    if (std::string problem = OutputProblem(option, path, {file}); !problem.empty()) {
      std::cerr << "lockstep: " << problem << "\n";
      return kExitBadInput;
    }
  }
  std::string error;
  std::optional<trace::Trace> t = LoadTraceFile(file, &error);
  if (!t) {
    std::cerr << "lockstep: " << error << "\n";
    return kExitBadInput;
  }
  for (const auto& [path, content] :
       {std::pair{svg_out, svg_out.empty() ? "" : trace::RenderSvg(*t)},
        std::pair{html_out, html_out.empty() ? "" : trace::RenderHtml(*t)}}) {
    if (path.empty()) continue;
    if (!WriteOutput(path, content, &error)) {
      std::cerr << "lockstep: " << error << "\n";
      return kExitBadInput;
    }
    (IsStandardOutput(path) ? std::cerr : std::cout) << "wrote " << path << "\n";
  }
  return kExitSafe;
}

}  // namespace lockstep::cli

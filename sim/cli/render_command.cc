#include "sim/cli/render_command.h"

#include <iostream>

#include "sim/cli/commands.h"
#include "sim/explore/replay_strategy.h"
#include "sim/run/output_file.h"
#include "sim/run/runner.h"
#include "sim/run/trace_file.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/render_svg.h"

namespace lockstep::cli {

int Render(const std::string& file, const std::string& svg_out, const std::string& html_out) {
  for (const auto& [option, path] : {std::pair{"--svg", svg_out}, std::pair{"--html", html_out}}) {
    if (!path.empty()) run::CheckOutput(option, path, {file});
  }
  trace::Trace t = run::LoadTraceFile(file);
  for (const auto& [path, content] :
       {std::pair{svg_out, svg_out.empty() ? "" : trace::RenderSvg(t)},
        std::pair{html_out, html_out.empty() ? "" : trace::RenderHtml(t)}}) {
    if (path.empty()) continue;
    run::WriteOutput(path, content);
    (run::IsStandardOutput(path) ? std::cerr : std::cout) << "wrote " << path << "\n";
  }
  return kExitSafe;
}

}  // namespace lockstep::cli

#include "sim/run/trace_file.h"

#include "sim/base/input_error.h"
#include "sim/explore/replay_strategy.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"

namespace lockstep::run {

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

}  // namespace lockstep::run

#include "sim/run/trace_file.h"

#include "sim/base/input_error.h"
#include "sim/explore/replay_strategy.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"

namespace lockstep::run {

nlohmann::json ReadJsonFile(const std::string& file) {
  namespace jr = lockstep::json;
  std::string text = scenario::ReadFile(file);
  try {
    return jr::Parse(text);
  } catch (const jr::JsonError& e) {
    throw base::InputError(file, e.place, e.expected);
  }
}

bool IsTrace(const nlohmann::json& doc) { return doc.is_object() && doc.contains("format"); }

namespace {

// The scenario `doc` with its schedule replayed.
ReplayedTrace ReplayScenario(const nlohmann::json& doc, const std::string& file) {
  ReplayedTrace out;
  out.scenario = scenario::LoadScenario(doc, file);
  if (!out.scenario.has_schedule) {
    throw base::InputError(file, "/",
                           "missing field \"schedule\" (a scenario is replayed by its "
                           "schedule; give a trace, or a scenario with a schedule)");
  }
  try {
    out.trace = ReplaySchedule(out.scenario);
  } catch (const explore::ScheduleError& e) {
    throw base::InputError(file, "/schedule/" + std::to_string(e.position), e.what());
  }
  return out;
}

}  // namespace

trace::Trace LoadTraceFile(const std::string& file) {
  const nlohmann::json doc = ReadJsonFile(file);
  if (IsTrace(doc)) return trace::FromJson(doc, file);
  return ReplayScenario(doc, file).trace;
}

ReplayedTrace LoadReplayedTrace(const std::string& file) {
  const nlohmann::json doc = ReadJsonFile(file);
  return IsTrace(doc) ? ReplaySavedTrace(file, doc) : ReplayScenario(doc, file);
}

}  // namespace lockstep::run

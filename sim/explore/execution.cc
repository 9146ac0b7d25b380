#include "sim/explore/execution.h"

namespace lockstep::explore {

const char* EndReasonText(EndReason r) {
  switch (r) {
    case EndReason::kViolation: return "violation";
    case EndReason::kQuiescent: return "nothing left to do";
    case EndReason::kStrategyDone: return "schedule finished";
    case EndReason::kStepBound: return "step bound reached";
  }
  return "?";
}

ExecutionResult RunExecution(
    const world::WorldConfig& config, Strategy& strategy,
    const std::vector<std::unique_ptr<check::Property>>& properties,
    int max_steps) {
  world::World w(config);
  ExecutionResult result;
  result.steps.push_back(w.Initial());
  for (;;) {
    std::vector<world::Action> enabled = w.EnabledActions();
    if (enabled.empty()) {
      result.end = EndReason::kQuiescent;
      break;
    }
    if (static_cast<int>(result.schedule.size()) >= max_steps) {
      result.end = EndReason::kStepBound;
      break;
    }
    std::optional<world::Action> next = strategy.Next(w, enabled);
    if (!next) {
      result.end = EndReason::kStrategyDone;
      break;
    }
    result.schedule.push_back(*next);
    result.steps.push_back(w.Apply(*next));
    if (auto v = check::CheckAll(properties, w, result.steps.back())) {
      result.violation = std::move(v);
      result.end = EndReason::kViolation;
      break;
    }
  }
  return result;
}

}  // namespace lockstep::explore

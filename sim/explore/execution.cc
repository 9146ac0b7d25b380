#include "sim/explore/execution.h"

namespace lockstep::explore {

const char* EndReasonText(EndReason r) {
  switch (r) {
    case EndReason::kViolation:
      return "violation";
    case EndReason::kQuiescent:
      return "nothing left to do";
    case EndReason::kStrategyDone:
      return "schedule finished";
    case EndReason::kStepBound:
      return "step bound reached";
    case EndReason::kStopped:
      return "stopped";
  }
  return "?";
}

Properties MakeProperties(const std::vector<std::string>& names) {
  Properties out;
  for (const auto& n : names) {
    if (auto p = check::MakeProperty(n)) out.push_back(std::move(p));  // liveness: FindLasso
  }
  return out;
}

uint32_t GhostOf(const Properties& properties) {
  uint32_t ghost = 0;
  for (const auto& p : properties) ghost |= p->ghost();
  return ghost;
}

ExecutionResult RunExecution(world::Model& model, Strategy& strategy, const Properties& properties,
                             int max_steps, const std::atomic<bool>* stop, StepObserver* observer) {
  world::WorldState s = model.Initial();
  ExecutionResult result;
  std::vector<world::Action> enabled;
  for (;;) {
    model.EnabledActions(s, &enabled);
    if (enabled.empty()) {
      result.end = EndReason::kQuiescent;
      if (auto v =
              check::CheckAllEnd(properties, model, s, static_cast<int>(result.schedule.size()))) {
        result.violation = std::move(v);
        result.end = EndReason::kViolation;
      }
      break;
    }
    if (static_cast<int>(result.schedule.size()) >= max_steps) {
      result.end = EndReason::kStepBound;
      break;
    }
    if (stop && (result.schedule.size() & 1023) == 0 && stop->load()) {
      result.end = EndReason::kStopped;
      break;
    }
    std::optional<world::Action> next = strategy.Next(model, s, enabled);
    if (!next) {
      result.end = EndReason::kStrategyDone;
      break;
    }
    result.schedule.push_back(*next);
    const int step = static_cast<int>(result.schedule.size());
    if (observer) {
      world::StepEffects effects;
      model.Apply(s, *next, &effects);
      observer->Applied(model, s, step, *next, std::move(effects));
    } else {
      model.Apply(s, *next, nullptr);
    }
    if (auto v = check::CheckAll(properties, model, s, step)) {
      result.violation = std::move(v);
      result.end = EndReason::kViolation;
      break;
    }
  }
  return result;
}

}  // namespace lockstep::explore

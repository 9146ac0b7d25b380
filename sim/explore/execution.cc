#include "sim/explore/execution.h"

#include "sim/explore/state_space.h"

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

ExecutionResult RunExecution(StateSpace& space, Strategy& strategy, const std::atomic<bool>* stop,
                             StepObserver* observer) {
  world::WorldState s;
  ExecutionResult result;
  if ((result.violation = space.Initial(&s))) {
    result.end = EndReason::kViolation;
    return result;
  }
  std::vector<world::Action> enabled;
  for (;;) {
    const int depth = static_cast<int>(result.schedule.size());
    std::optional<check::Violation> end;
    const Offer offer = space.Offers(s, depth, &enabled, &end);
    if (offer == Offer::kEnd) {
      result.violation = std::move(end);
      result.end = result.violation ? EndReason::kViolation : EndReason::kQuiescent;
      break;
    }
    if (offer == Offer::kStepBound) {
      result.end = EndReason::kStepBound;
      break;
    }
    if (stop && stop->load(std::memory_order_relaxed)) {
      result.end = EndReason::kStopped;
      break;
    }
    std::optional<world::Action> next = strategy.Next(space.model(), s, enabled);
    if (!next) {
      result.end = EndReason::kStrategyDone;
      break;
    }
    result.schedule.push_back(*next);
    std::optional<check::Violation> v;
    if (observer) {
      world::StepEffects effects;
      v = space.Step(s, *next, depth + 1, observer->wants_effects() ? &effects : nullptr);
      observer->Applied(space.model(), s, depth + 1, *next, std::move(effects));
    } else {
      v = space.Step(s, *next, depth + 1);
    }
    if (v) {
      result.violation = std::move(v);
      result.end = EndReason::kViolation;
      break;
    }
  }
  return result;
}

}  // namespace lockstep::explore

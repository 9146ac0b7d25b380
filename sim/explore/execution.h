// Runs one execution: a world, a strategy choosing its actions, and the
// properties checked after every step.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "sim/check/property.h"
#include "sim/explore/strategy.h"
#include "sim/world/world.h"

namespace lockstep::explore {

enum class EndReason {
  kViolation,     // a property was violated
  kQuiescent,     // nothing is enabled: every client finished or waits
                  // on a clock that cannot move
  kStrategyDone,  // the strategy ended it (e.g. a replayed schedule ran out)
  kStepBound,     // max_steps actions were applied
};
const char* EndReasonText(EndReason r);

struct ExecutionResult {
  std::vector<world::Action> schedule;   // the actions applied, in order
  std::vector<world::StepRecord> steps;  // steps[0] is the initial state
  std::optional<check::Violation> violation;
  EndReason end = EndReason::kQuiescent;
};

// REQUIRES: max_steps >= 0. Throws what the strategy throws (ScheduleError).
ExecutionResult RunExecution(
    const world::WorldConfig& config, Strategy& strategy,
    const std::vector<std::unique_ptr<check::Property>>& properties,
    int max_steps);

}  // namespace lockstep::explore

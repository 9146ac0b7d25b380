// Runs one execution: a model's initial state, a strategy choosing its
// actions, and the properties checked after every step.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "sim/check/property.h"
#include "sim/explore/strategy.h"
#include "sim/world/model.h"

namespace lockstep::explore {

enum class EndReason {
  kViolation,     // a property was violated
  kQuiescent,     // nothing is enabled: every client finished or waits
                  // on a clock that cannot move
  kStrategyDone,  // the strategy ended it (e.g. a replayed schedule ran out)
  kStepBound,     // max_steps actions were applied
  kStopped,       // the caller's stop flag was set (a memory bound)
};
const char* EndReasonText(EndReason r);

struct ExecutionResult {
  std::vector<world::Action> schedule;  // the actions applied, in order
  std::optional<check::Violation> violation;
  EndReason end = EndReason::kQuiescent;
};

using Properties = std::vector<std::unique_ptr<check::Property>>;
Properties MakeProperties(const std::vector<std::string>& names);
// The check::Property::Ghost bits the properties read.
uint32_t GhostOf(const Properties& properties);

// Sees each step of an execution as it is applied (a trace recorder).
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // Step `index` (from 1) applied `a` with `effects` and left `s`.
  virtual void Applied(const world::Model& model, const world::WorldState& s, int index,
                       const world::Action& a, world::StepEffects effects) = 0;
};

// Runs from model.Initial() until the end. The model may be shared by many
// executions (its clients' learned behaviour is reused). Throws what the
// strategy throws (ScheduleError). Setting `*stop` ends it (kStopped).
// `observer`, if given, sees every step, before the properties are checked.
// REQUIRES: max_steps >= 0
ExecutionResult RunExecution(world::Model& model, Strategy& strategy, const Properties& properties,
                             int max_steps, const std::atomic<bool>* stop = nullptr,
                             StepObserver* observer = nullptr);

}  // namespace lockstep::explore

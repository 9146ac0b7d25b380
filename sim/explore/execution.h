// Runs one execution: a state space's initial state, a strategy choosing
// its actions, and the properties checked on every state.
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
  kStepBound,     // the space's step bound cut it
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
  // False: it reads no effects, and the model need not record them.
  virtual bool wants_effects() const { return true; }
};

class StateSpace;  // state_space.h

// Runs one execution of `space` from its initial state until the end. The
// space may serve many executions (its clients' learned behaviour is
// reused). Throws what the strategy throws (ScheduleError). Setting `*stop`
// ends it (kStopped). `observer`, if given, sees every step.
ExecutionResult RunExecution(StateSpace& space, Strategy& strategy,
                             const std::atomic<bool>* stop = nullptr,
                             StepObserver* observer = nullptr);

}  // namespace lockstep::explore

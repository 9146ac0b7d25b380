// A strategy chooses the next action of one execution among the enabled
// ones (RunExecution): one small interface, one file per strategy (replay,
// random, PCT). The exhaustive searches are not strategies: they walk the
// same state space (state_space.h) in their own order.
#pragma once

#include <optional>
#include <vector>

#include "sim/world/model.h"

namespace lockstep::explore {

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Picks one of `enabled` (never empty), or returns nullopt to end the
  // execution here.
  virtual std::optional<world::Action> Next(const world::Model& m, const world::WorldState& s,
                                            const std::vector<world::Action>& enabled) = 0;
};

}  // namespace lockstep::explore

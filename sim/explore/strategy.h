// A strategy chooses the next action of an execution among the enabled ones.
// One small interface, one file per strategy (replay, random; the search
// strategies build on the same interface).
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

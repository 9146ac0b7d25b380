#include "sim/explore/state_space.h"

namespace lockstep::explore {

StateSpace::StateSpace(const world::WorldConfig& config, const Properties& properties,
                       SpaceOptions options)
    : model_(config, options.forget_history),
      properties_(properties),
      ghost_(GhostOf(properties) | options.ghost),
      identity_(model_, options.symmetry, options.abstract_identity, ghost_),
      max_steps_(options.max_steps) {}

std::optional<check::Violation> StateSpace::Initial(world::WorldState* s) {
  *s = model_.Initial();
  return check::CheckAll(properties_, model_, *s, 0);
}

}  // namespace lockstep::explore

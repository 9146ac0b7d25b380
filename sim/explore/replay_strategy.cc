#include "sim/explore/replay_strategy.h"

namespace lockstep::explore {

std::optional<world::Action> ReplayStrategy::Next(const world::Model& m, const world::WorldState& s,
                                                  const std::vector<world::Action>&) {
  if (next_ >= schedule_.size()) return std::nullopt;
  const world::Action& a = schedule_[next_];
  std::string why;
  if (!m.IsEnabled(s, a, &why)) {
    throw ScheduleError(next_, "'" + world::FormatAction(a, m.client_names(), m.server_names()) +
                                   "' is not possible here: " + why);
  }
  ++next_;
  return a;
}

}  // namespace lockstep::explore

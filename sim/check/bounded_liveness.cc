#include "sim/check/property.h"

namespace lockstep::check {

std::optional<Violation> BoundedLiveness::CheckEnd(const world::Model& m,
                                                   const world::WorldState& s, int step) const {
  using world::ClientStatus;
  std::vector<std::string> waiting;
  for (int i = 0; i < m.client_count(); ++i) {
    const world::ClientSlot& c = s.clients[i];
    if (c.status == ClientStatus::kCrashed) continue;
    if (c.holding) return std::nullopt;  // a live client holds the lock
    if (c.status != ClientStatus::kDone) waiting.push_back(m.client_names()[i]);
  }
  if (waiting.empty()) return std::nullopt;
  Violation v;
  v.property = std::string(name());
  v.step = step;
  v.clients = waiting;
  std::string who;
  for (size_t i = 0; i < waiting.size(); ++i) who += (i ? ", " : "") + waiting[i];
  v.message = who + " still waits for the lock when the clock reaches the horizon (" +
              std::to_string(m.config().horizon.value_or(0)) +
              "), although no live client holds it";
  return v;
}

}  // namespace lockstep::check

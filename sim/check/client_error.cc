#include "sim/base/join.h"
#include "sim/check/property.h"

namespace lockstep::check {

std::optional<Violation> ClientError::Check(const world::Model& m, const world::WorldState& s,
                                            int step) const {
  std::optional<Violation> v;
  for (int i = 0; i < m.client_count(); ++i) {
    const world::ClientSlot& c = s.clients[i];
    if (c.status != world::ClientStatus::kFailed) continue;
    if (!v) {
      v.emplace();
      v->property = std::string(name());
      v->step = step;
    }
    v->clients.push_back(m.client_names()[i]);
    v->message += (v->message.empty() ? "" : "; ") + m.client_names()[i] +
                  "'s algorithm threw: " + m.automaton(i).RequestAt(c.local).error;
  }
  return v;
}

}  // namespace lockstep::check

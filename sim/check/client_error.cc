#include "sim/base/join.h"
#include "sim/check/property.h"

namespace lockstep::check {

namespace {

// No client's algorithm throws an exception that is a finding about it: a
// Redis error reply it did not handle, a timeout it did not expect
// (world::ClientStatus::kFailed). Always checked.
class ClientError final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

}  // namespace

extern const PropertyInfo kClientError;
const PropertyInfo kClientError{.name = "client_error", .reads = 0, .make = Make<ClientError>};

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

#include "sim/check/property.h"

namespace lockstep::check {

namespace {

// A client's lease was renewed after another client had acquired the lock
// since its own acquisition: its lock had been lost, and the renewal told it
// that it still holds it (a refresh that re-creates an expired key does).
// A client that lost its lease can be told so only when it next asks the
// servers; a renewal is that question, answered wrong.
class LostLeaseRenewed final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

}  // namespace

extern const PropertyInfo kLostLeaseRenewed;
const PropertyInfo kLostLeaseRenewed{.name = "lost_lease_renewed",
                                     .reads = Property::kLatestAcquirer,
                                     .make = Make<LostLeaseRenewed>};

std::optional<Violation> LostLeaseRenewed::Check(const world::Model& m, const world::WorldState& s,
                                                 int step) const {
  if (s.step.lost_renewer < 0) return std::nullopt;
  Violation v;
  v.property = std::string(name());
  v.step = step;
  const std::string& who = m.client_names()[s.step.lost_renewer];
  const std::string& other = m.client_names()[s.step.lost_to];
  v.clients = {who, other};
  if (s.step.lost_to < s.step.lost_renewer) std::swap(v.clients[0], v.clients[1]);
  v.message = who + "'s lease was renewed after " + other +
              " had acquired the lock: it lost the lock and was not told";
  return v;
}

}  // namespace lockstep::check

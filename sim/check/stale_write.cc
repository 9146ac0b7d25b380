#include "sim/check/property.h"

namespace lockstep::check {

namespace {

// The protected resource accepted a write from a client after a client that
// acquired the lock later had written it: a stale holder overwrote newer
// work (what fencing tokens are for).
class StaleWrite final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

}  // namespace

extern const PropertyInfo kStaleWrite;
const PropertyInfo kStaleWrite{.name = "stale_write",
                               .reads = Property::kLatestAcquirer | Property::kResource,
                               .make = Make<StaleWrite>};

std::optional<Violation> StaleWrite::Check(const world::Model& m, const world::WorldState& s,
                                           int step) const {
  if (s.step.stale_writer < 0) return std::nullopt;
  Violation v;
  v.property = std::string(name());
  v.step = step;
  const std::string& who = m.client_names()[s.step.stale_writer];
  const std::string& over = m.client_names()[s.step.stale_over];
  v.clients = {who, over};
  if (s.step.stale_over < s.step.stale_writer) std::swap(v.clients[0], v.clients[1]);
  v.message = "the resource accepted " + who + "'s write (token " +
              std::to_string(s.step.stale_token) + ") after " + over +
              ", which acquired the lock later, had written it";
  return v;
}

}  // namespace lockstep::check

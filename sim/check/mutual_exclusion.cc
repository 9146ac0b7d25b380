#include "sim/base/join.h"
#include "sim/check/property.h"

namespace lockstep::check {

namespace {

// At most one client is inside the critical section.
class MutualExclusion final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

}  // namespace

extern const PropertyInfo kMutualExclusion;
const PropertyInfo kMutualExclusion{
    .name = "mutual_exclusion", .reads = 0, .make = Make<MutualExclusion>};

std::optional<Violation> MutualExclusion::Check(const world::Model& m, const world::WorldState& s,
                                                int step) const {
  int inside = 0;
  for (const auto& c : s.clients) inside += c.in_critical_section;
  if (inside <= 1) return std::nullopt;
  Violation v;
  v.property = std::string(name());
  v.step = step;
  for (int i = 0; i < m.client_count(); ++i) {
    if (s.clients[i].in_critical_section) v.clients.push_back(m.client_names()[i]);
  }
  v.message = base::JoinWithAnd(v.clients) + " are in the critical section at once";
  return v;
}

}  // namespace lockstep::check

#include "sim/check/property.h"

namespace lockstep::check {

std::optional<Violation> MutualExclusion::Check(
    const world::World& w, const world::StepRecord& r) const {
  if (r.in_critical_section.size() <= 1) return std::nullopt;
  (void)w;
  Violation v;
  v.property = std::string(name());
  v.clients = r.in_critical_section;
  v.step = r.index;
  std::string who;
  for (size_t i = 0; i < v.clients.size(); ++i) {
    if (i > 0) who += i + 1 == v.clients.size() ? " and " : ", ";
    who += v.clients[i];
  }
  v.message = who + " are in the critical section at once";
  return v;
}

}  // namespace lockstep::check

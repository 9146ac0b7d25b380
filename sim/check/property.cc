#include "sim/check/property.h"

namespace lockstep::check {

std::vector<std::string> PropertyNames() { return {"mutual_exclusion"}; }

std::unique_ptr<Property> MakeProperty(std::string_view name) {
  if (name == "mutual_exclusion") return std::make_unique<MutualExclusion>();
  return nullptr;
}

std::optional<Violation> CheckAll(const std::vector<std::unique_ptr<Property>>& properties,
                                  const world::Model& m, const world::WorldState& s, int step) {
  for (const auto& p : properties) {
    if (auto v = p->Check(m, s, step)) return v;
  }
  return std::nullopt;
}

}  // namespace lockstep::check

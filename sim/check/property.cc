#include "sim/check/property.h"

#include "sim/check/liveness.h"

namespace lockstep::check {

std::vector<std::string> PropertyNames() {
  std::vector<std::string> names = {"mutual_exclusion", "foreign_release", "stale_write",
                                    "no_stuck_states", "client_error"};
  for (const std::string& n : LivenessNames()) names.push_back(n);
  return names;
}

bool IsProperty(std::string_view name) { return MakeProperty(name) || IsLiveness(name); }

std::unique_ptr<Property> MakeProperty(std::string_view name) {
  if (name == "mutual_exclusion") return std::make_unique<MutualExclusion>();
  if (name == "foreign_release") return std::make_unique<ForeignRelease>();
  if (name == "stale_write") return std::make_unique<StaleWrite>();
  if (name == "no_stuck_states") return std::make_unique<NoStuckStates>();
  if (name == "client_error") return std::make_unique<ClientError>();
  return nullptr;
}

std::string RetiredProperty(std::string_view name) {
  // It judged the states where the horizon stopped the clock, so a horizon
  // could make it hold or fail: liveness is judged on infinite executions.
  if (name == "bounded_liveness") {
    return "bounded_liveness is retired (the horizon could fake its verdict both ways): check "
           "deadlock_free or starvation_free for all time (\"clock\": {\"horizon\": null}), "
           "or no_stuck_states for runs that end with a client still waiting";
  }
  return "";
}

std::optional<Violation> CheckAll(const std::vector<std::unique_ptr<Property>>& properties,
                                  const world::Model& m, const world::WorldState& s, int step) {
  for (const auto& p : properties) {
    if (auto v = p->Check(m, s, step)) return v;
  }
  return std::nullopt;
}

std::optional<Violation> CheckAllEnd(const std::vector<std::unique_ptr<Property>>& properties,
                                     const world::Model& m, const world::WorldState& s, int step) {
  for (const auto& p : properties) {
    if (auto v = p->CheckEnd(m, s, step)) return v;
  }
  return std::nullopt;
}

}  // namespace lockstep::check

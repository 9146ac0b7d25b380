#include "sim/check/property.h"

namespace lockstep::check {

// Each declared in its own file, beside its check.
extern const PropertyInfo kMutualExclusion, kForeignRelease, kStaleWrite, kLostLeaseRenewed,
    kNoStuckStates, kSomeContenderEnters, kClientError, kDeadlockFree, kStarvationFree,
    kNoOrphanedLock;

const std::vector<const PropertyInfo*>& Catalogue() {
  // Liveness goals are judged in this order (explore::FindLasso reports
  // the first violated).
  static const std::vector<const PropertyInfo*> kAll = {
      &kMutualExclusion, &kForeignRelease,      &kStaleWrite,  &kLostLeaseRenewed,
      &kNoStuckStates,   &kSomeContenderEnters, &kClientError, &kDeadlockFree,
      &kStarvationFree,  &kNoOrphanedLock};
  return kAll;
}

const PropertyInfo* FindProperty(std::string_view name) {
  for (const PropertyInfo* p : Catalogue()) {
    if (p->name == name) return p;
  }
  return nullptr;
}

uint32_t ReadsOf(const std::vector<std::string>& names) {
  uint32_t reads = 0;
  for (const std::string& n : names) {
    if (const PropertyInfo* p = FindProperty(n)) reads |= p->reads;
  }
  return reads;
}

std::vector<std::string> PropertyNames() {
  std::vector<std::string> names;
  for (const PropertyInfo* p : Catalogue()) names.emplace_back(p->name);
  return names;
}

bool IsProperty(std::string_view name) { return FindProperty(name) != nullptr; }

std::unique_ptr<Property> MakeProperty(std::string_view name) {
  const PropertyInfo* p = FindProperty(name);
  return p && p->make ? p->make(*p) : nullptr;
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

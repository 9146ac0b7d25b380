#include "sim/check/liveness.h"

#include <algorithm>

namespace lockstep::check {

// Judged on lassos (explore/liveness.cc), not state by state: no `make`.
extern const PropertyInfo kDeadlockFree, kStarvationFree, kNoOrphanedLock;
const PropertyInfo kDeadlockFree{.name = "deadlock_free", .reads = 0, .make = nullptr};
const PropertyInfo kStarvationFree{.name = "starvation_free", .reads = 0, .make = nullptr};
// An orphan is a value whose writer no longer holds the lock.
const PropertyInfo kNoOrphanedLock{
    .name = "no_orphaned_lock", .reads = Property::kWriters, .make = nullptr};

const std::vector<std::string>& LivenessNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const PropertyInfo* p : Catalogue()) {
      if (!p->make) names.emplace_back(p->name);
    }
    return names;
  }();
  return kNames;
}

bool IsLiveness(std::string_view name) {
  const PropertyInfo* p = FindProperty(name);
  return p && !p->make;
}

std::vector<std::string> LivenessIn(const std::vector<std::string>& properties) {
  std::vector<std::string> out;
  for (const std::string& p : properties) {
    if (IsLiveness(p)) out.push_back(p);
  }
  return out;
}

bool Wants(const world::WorldState& s, int i) {
  const world::ClientSlot& c = s.clients[i];
  return (c.status == world::ClientStatus::kReady || c.status == world::ClientStatus::kSleeping) &&
         !c.holding;
}

std::vector<Orphan> Orphans(const world::Model& m, const world::WorldState& s) {
  std::vector<Orphan> out;
  const int n = m.client_count();
  for (int server : s.serving) {
    const world::ServerState& sv = s.servers[server];
    for (const kv::Entry& e : sv.keyspace.entries()) {
      if (e.writer < 0 || e.ExpiredAt(m.ServerClock(s, server))) continue;
      bool gone = e.writer >= n;
      if (!gone) {
        const world::ClientSlot& c = s.clients[e.writer];
        gone = !world::Runs(c.status) || !c.holding;
      }
      if (gone) out.push_back({server, e.key.str(), e.writer});
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace lockstep::check

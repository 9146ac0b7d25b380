// Liveness properties: promises about infinite executions, judged on
// lassos (a prefix, then a cycle repeated for ever) of the state graph by
// explore::FindLasso, under weak fairness of clients, of the clock and of
// replication (docs/design.md, "Liveness"). What this file holds is what
// they say of one state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/check/property.h"
#include "sim/world/model.h"

namespace lockstep::check {

// "deadlock_free": whenever some client wants the lock, some client
//   eventually acquires it.
// "starvation_free": every client that wants the lock eventually acquires it.
// "no_orphaned_lock": a lock value whose writer has crashed, or no longer
//   believes it holds the lock, eventually disappears or is taken over.
// The catalogue's liveness properties, in its order.
const std::vector<std::string>& LivenessNames();
bool IsLiveness(std::string_view name);
// The liveness properties among `properties`, in their order.
std::vector<std::string> LivenessIn(const std::vector<std::string>& properties);

// Client i wants the lock: it runs (ready or sleeping) and does not hold it.
bool Wants(const world::WorldState& s, int i);

// A value on a serving master whose writer is gone: crashed, finished, not
// a client of the run at all (a lock left before the start), or a client
// that does not believe it holds the lock.
struct Orphan {
  int server = 0;
  std::string key;
  int writer = 0;  // index into Model::writer_names()
  friend auto operator<=>(const Orphan&, const Orphan&) = default;
};
std::vector<Orphan> Orphans(const world::Model& m, const world::WorldState& s);

}  // namespace lockstep::check

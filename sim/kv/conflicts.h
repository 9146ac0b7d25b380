// Which commands conflict: the dependence relation the explorer's
// partial-order reduction uses, decided next to the command table.
//
// Two commands commute when running them in either order gives the same
// replies and the same keyspace: commands on different keys do, and so do
// two reads of the same key. A command that finds an expired key removes it,
// so it counts as a write.
#pragma once

#include <string>
#include <vector>

namespace lockstep::kv {

// Returns true iff commands `a` and `b` (full argv, names first) commute in
// every keyspace where neither finds an expired key. Unknown commands and
// wrong arity conflict with everything, and so do scripts (EVAL), which may
// touch keys they do not declare.
//
// The condition is the caller's to meet: the explorer may ask only where no
// key has expired, which sim/world's Model::Settle guarantees by removing a
// master's expired keys whenever its clock moves (docs/design.md, Semantics).
bool CommandsCommute(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace lockstep::kv

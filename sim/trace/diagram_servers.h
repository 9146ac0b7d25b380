// The servers' columns of a diagram: the lock key on each server after
// each step, and the boxes server actions (faults, replication) draw.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/trace/diagram.h"

namespace lockstep::trace {

// The lock key on one server after one step, and the server's state.
struct ServerCell {
  std::optional<kv::Entry> entry;
  std::string writer;  // empty if unknown
  bool available = true;
  std::string role;  // several servers: "master", "replica", "failed"
  world::Millis clock = 0;
};

// Per step of `t` (the initial state first), per server: its cell for `key`.
std::vector<std::vector<ServerCell>> ServerCells(const Trace& t, const std::string& key);

// The boxes a server action of step i draws in the servers' columns.
std::vector<ServerEvent> ServerEventsOf(const Trace& t,
                                        const std::vector<std::vector<ServerCell>>& cells, int i,
                                        const std::string& key);

// "crash C3" -> "CRASH", "jump +5" -> "JUMP +5": a fault in capitals, without
// the client it happens to (its lane says that).
std::string FaultLabel(const std::string& action, const std::string& client);

}  // namespace lockstep::trace

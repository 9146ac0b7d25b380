// Ghost state kept in each key's entry (kv::Entry::writer and owner): who
// wrote the key's current value and whose acquisition it belongs to,
// shared by the model's steps, its replication, persistence and restarts.
#pragma once

#include <string_view>

#include "sim/world/model.h"

namespace lockstep::world {

// Records `ghost` for `key`'s entry on `s`, if it has one; a negative writer
// forgets both facts.
void SetGhost(ServerState& s, std::string_view key, ValueGhost ghost);

// What a restart gets back: the keyspace as it is now, without its ghosts
// (a restart keeps each key's ghost facts as they were before it).
void Persist(ServerState& s);

// `s` restarted from `persisted`: each key keeps the ghost facts it had
// before the restart, whatever value it comes back with.
void RestartFrom(ServerState& s, const kv::Keyspace& persisted);

}  // namespace lockstep::world

// Ghost state kept per server beside its keyspace: who wrote each key's
// current value and whose acquisition it belongs to (ServerState::ghosts),
// shared by the model's steps, its replication and its clock.
#pragma once

#include <string>

#include "sim/world/model.h"

namespace lockstep::world {

// Records `ghost` for `key` on `s`; a negative writer forgets the key.
void SetGhost(ServerState& s, const std::string& key, ValueGhost ghost);

// Drops the ghost facts of keys that are gone.
void ForgetGoneGhosts(ServerState& s, Millis server_now);

}  // namespace lockstep::world

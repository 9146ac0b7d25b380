// Ghost state kept per server beside its keyspace: the writer of each key's
// current value (ServerState::writers), shared by the model's steps, its
// replication and its clock.
#pragma once

#include <string>

#include "sim/world/model.h"

namespace lockstep::world {

// Records `writer` as the writer of `key` on `s`; a negative writer forgets it.
void SetWriter(ServerState& s, const std::string& key, int writer);

// Drops the writers of keys that are gone.
void ForgetGoneWriters(ServerState& s, Millis server_now);

}  // namespace lockstep::world

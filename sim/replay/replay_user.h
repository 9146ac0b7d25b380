// The Redis user a replay's clients run as. Vetting in the model cannot
// see a script that tells the model's Lua from Redis's (a library that
// differs, a count the model does not keep) and then calls, on the real
// server only, FLUSHALL, SELECT or MIGRATE. So the server binds the replay:
// its clients are a user allowed the model's commands alone, which Redis
// (6 and later) applies to a script's redis.call too, and no command that
// leaves database 0 (SELECT, SWAPDB, MOVE, COPY ... DB) or the server
// (MIGRATE). Redis's key patterns are not per database, so the user gets
// every key (~*): confined to database 0, that is the replay's own
// database, empty when it starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/replay/redis_connection.h"

namespace lockstep::replay {

inline constexpr const char* kReplayUser = "lockstep-replay";

// The rules after `ACL SETUSER NAME on >PASSWORD`: no keys but ~*, no
// channels, no commands but each of the model's. With `setup`, also what
// lockstep's own setup on a server the user names needs (DBSIZE, TIME,
// FLUSHDB: database 0 alone, as SELECT is refused).
std::vector<std::string> ReplayUserRules(bool setup);

// 32 hex digits from the kernel's random source.
std::string RandomPassword();

// What to run on a server, as a user allowed ACL SETUSER, to make the user
// a replay there can run as, and the --redis URL to name it by: two lines.
std::string HowToMakeReplayUser(const HostPort& at);

// Asks, through `c`, a few commands the replay's user must not run, each
// harmless if it runs (SELECT 0, FLUSHALL with a bad option, ...): sets
// *allowed to the first one not refused for want of permission, or "" if
// all are. Returns false, with *error, iff the connection failed.
bool ProbeReplayUser(RedisConnection& c, std::string* allowed, std::string* error);

}  // namespace lockstep::replay

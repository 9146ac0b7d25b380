// SET key token NX PX ttl: the lock and its time to live in one command,
// with a random token per acquisition. Three ways to release it:
//
//   kDel:         plain DEL (deletes whatever lock is there, even another's);
//   kGetCompare:  GET, compare with our token in the client, then DEL (the
//                 value can change between the GET and the DEL);
//   kScript:      the compare-and-delete script of the Redis distributed-locks
//                 page, atomic at the server.
#pragma once

#include "sim/algo/lock_settings.h"

namespace lockstep::algo {

enum class Release { kDel, kGetCompare, kScript };

// The compare-and-delete release script, verbatim from the Redis
// distributed-locks page.
inline constexpr const char* kCompareAndDelete =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
    "    return redis.call(\"del\",KEYS[1])\n"
    "else\n"
    "    return 0\n"
    "end";

void RunSetNxPx(world::Client& c, const LockSettings& s, Release release);

// Releases by `release`; the client has left its critical section.
void ReleaseToken(world::Client& c, const LockSettings& s, const std::string& token,
                  Release release);

}  // namespace lockstep::algo

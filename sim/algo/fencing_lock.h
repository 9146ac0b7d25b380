// SET NX PX with a fencing token: the acquiring script increments a counter
// and sets the lock in one atomic step, returning the counter as the token.
// The holder sends the token with every write to the resource; a fenced
// resource refuses tokens not larger than one it has seen, so a holder whose
// lock expired cannot overwrite a later holder's work. Released with the
// compare-and-delete script.
#pragma once

#include "sim/algo/lock_settings.h"

namespace lockstep::algo {

inline constexpr const char* kAcquireWithToken =
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n"
    "    return redis.call('incr', KEYS[2])\n"
    "else\n"
    "    return false\n"
    "end";

void RunFencedLock(world::Client& c, const LockSettings& s);

}  // namespace lockstep::algo

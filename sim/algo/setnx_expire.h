// SETNX followed by EXPIRE as two commands: the lock gets its time to live
// only in the second step, so a client that crashes in between leaves a lock
// nobody can ever take again.
#pragma once

#include "sim/algo/lock_settings.h"

namespace lockstep::algo {

void RunSetnxExpire(world::Client& c, const LockSettings& s);

}  // namespace lockstep::algo

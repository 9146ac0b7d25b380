// The SETNX documentation's lock with its "Handling deadlocks" takeover of
// an expired lock, in the two forms the documentation discusses:
//
//   naive:  SETNX; on 0, GET; if expired, DEL then SETNX (racy: two clients
//           can both DEL and both SETNX successfully);
//   getset: SETNX; on 0, GET; if expired, GETSET, and own the lock iff the
//           old value returned is still an expired timestamp.
//
// Release, for both: leave the critical section, then DEL the lock only if
// its own timestamp has not expired (so as not to delete a lock another
// client has taken over).
#pragma once

#include "sim/algo/lock_settings.h"

namespace lockstep::algo {

enum class Takeover { kNaive, kGetSet };

void RunSetnxLock(world::Client& c, const LockSettings& s, Takeover takeover);

}  // namespace lockstep::algo

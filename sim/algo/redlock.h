// Redlock, as the Redis distributed-locks page specifies it, over N
// independent masters (LockSettings::instances):
//
//   1. take the current time;
//   2. try to SET key value NX PX ttl on every instance in turn, with the same
//      key and random value, each try bounded by the client's small
//      request timeout;
//   3. the lock is acquired iff a majority (N/2+1) was locked and the time
//      elapsed is below the lock's validity; the validity left is
//      ttl - elapsed - drift, with drift = ttl * 0.01 + 2 as in the
//      reference implementation;
//   4. otherwise unlock every instance and retry after a random delay;
//   5. release with the compare-and-delete script on every instance.
//
// Fencing tokens come from one of two places (RedlockTokens):
//  - kInstanceCounters: each instance's acquisition also increments a
//    counter there in the same script (as fenced-set-px does), and the token
//    is the largest among the instances locked. Not safe: a counter inflated
//    by a failed attempt can make an older holder's token the larger one.
//  - kTokenService: once a majority is locked, one INCR on the token server
//    (lock.token_server), which is not one of the N; a later holder always
//    draws a larger token.
#pragma once

#include "sim/algo/lock_settings.h"

namespace lockstep::algo {

enum class RedlockTokens { kNone, kInstanceCounters, kTokenService };

// The reference implementation's allowance for clock drift between the
// client and the instances, in ticks (milliseconds).
Millis RedlockDrift(Millis ttl);

void RunRedlock(world::Client& c, const LockSettings& s, RedlockTokens tokens);

}  // namespace lockstep::algo

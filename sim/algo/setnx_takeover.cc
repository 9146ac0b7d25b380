#include "sim/algo/setnx_takeover.h"

#include "sim/algo/lock_timestamp.h"

namespace lockstep::algo {
namespace {

// Takes the lock; returns the timestamp this client wrote.
Millis Acquire(world::Client& c, const LockSettings& s, Takeover takeover, int round) {
  const world::Value stamp = world::Client::ClockPlus(s.timeout + 1);
  for (;;) {
    // Each retry starts afresh: only the round matters from here.
    c.ForgetHistory("acquire", {round});

    // "SETNX lock.foo <current Unix time + lock timeout + 1>"
    if (c.SetNx(s.key, stamp)) return c.SentTimestamp();

    // "GET lock.foo to check if the lock expired."
    std::optional<std::string> seen = c.Get(s.key);
    if (!seen) continue;  // released meanwhile: retry SETNX at once
    std::optional<Millis> seen_stamp = ParseTimestamp(*seen);
    if (!seen_stamp || !TimestampExpired(*seen_stamp, c.Now())) {
      // "If it is not, it will sleep for some time and retry from the start."
      c.Sleep(s.retry_delay);
      continue;
    }
    // The decision is taken: what was seen no longer matters.
    c.ForgetHistory("take over", {round});

    if (takeover == Takeover::kNaive) {
      // The race the documentation warns about: DEL, then SETNX.
      c.Del(s.key);
      if (c.SetNx(s.key, stamp)) return c.SentTimestamp();
      continue;
    }

    // "GETSET lock.foo <current Unix timestamp + lock timeout + 1>": the
    // lock is ours iff the old value is still an expired timestamp.
    std::optional<std::string> old = c.GetSet(s.key, stamp);
    if (old) {
      std::optional<Millis> old_stamp = ParseTimestamp(*old);
      if (old_stamp && TimestampExpired(*old_stamp, c.Now())) return c.SentTimestamp();
    }
    // Another client was faster: "retry with the first step".
  }
}

void Release(world::Client& c, const LockSettings& s, Millis mine) {
  // Delete the lock only while our own timestamp has not expired: after
  // that another client may legitimately hold it.
  if (s.release_with_leave) {
    std::string key = s.key;
    c.LeaveCriticalSection([key, mine](Millis now) {
      return TimestampExpired(mine, now) ? std::vector<std::string>{}
                                         : std::vector<std::string>{"DEL", key};
    });
  } else {
    c.LeaveCriticalSection();
    if (!TimestampExpired(mine, c.Now())) c.Del(s.key);
  }
  c.ForgetLock();
}

}  // namespace

void RunSetnxLock(world::Client& c, const LockSettings& s, Takeover takeover) {
  for (int round = 0; round < s.rounds; ++round) {
    Millis mine = Acquire(c, s, takeover, round);
    // Holding: only the round and our timestamp matter.
    c.ForgetHistory("hold", {round, mine});
    HoldLock(c, s, mine, 0);
    Release(c, s, mine);
  }
}

LOCKSTEP_ALGORITHM(setnx_naive,
                   {.name = "setnx-naive",
                    .summary = "SETNX lock; expired lock taken over with GET, DEL, SETNX (racy)",
                    .make = MakeLockBody<RunSetnxLock, Takeover::kNaive>,
                    .settings = kTimestampLockSettings,
                    .timestamp_lock = true});
LOCKSTEP_ALGORITHM(
    setnx_getset,
    {.name = "setnx-getset",
     .summary = "SETNX lock; expired lock taken over with GETSET (the documented fix)",
     .make = MakeLockBody<RunSetnxLock, Takeover::kGetSet>,
     .settings = kTimestampLockSettings,
     .timestamp_lock = true});

}  // namespace lockstep::algo

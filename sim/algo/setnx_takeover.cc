#include "sim/algo/setnx_takeover.h"

#include "sim/algo/lock_timestamp.h"

namespace lockstep::algo {
namespace {

// Takes the lock; returns the timestamp this client wrote.
Millis Acquire(world::Client& c, const LockSettings& s, Takeover takeover) {
  const world::Value stamp = world::Client::ClockPlus(s.timeout + 1);
  for (;;) {
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

    if (takeover == Takeover::kNaive) {
      // The race the documentation warns about: DEL, then SETNX.
      c.Del(s.key);
      if (c.SetNx(s.key, stamp)) return c.SentTimestamp();
      continue;
    }

    // "GETSET lock.foo <current Unix timestamp + lock timeout + 1>": the
    // lock is ours iff the old value is still an expired timestamp.
    std::optional<std::string> old = c.GetSet(s.key, stamp);
    Millis mine = c.SentTimestamp();
    if (old) {
      std::optional<Millis> old_stamp = ParseTimestamp(*old);
      if (old_stamp && TimestampExpired(*old_stamp, c.Now())) return mine;
    }
    // Another client was faster: "retry with the first step".
  }
}

void Release(world::Client& c, const LockSettings& s, Millis mine) {
  c.LeaveCriticalSection();
  // Delete the lock only while our own timestamp has not expired: after
  // that another client may legitimately hold it.
  if (!TimestampExpired(mine, c.Now())) c.Del(s.key);
  c.ForgetLock();
}

}  // namespace

void RunSetnxLock(world::Client& c, const LockSettings& s, Takeover takeover) {
  for (int round = 0; round < s.rounds; ++round) {
    Millis mine = Acquire(c, s, takeover);
    c.EnterCriticalSection(mine);
    Release(c, s, mine);
  }
}

}  // namespace lockstep::algo

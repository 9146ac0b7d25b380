#include "sim/algo/setnx_takeover.h"

#include "sim/algo/lock_timestamp.h"

namespace lockstep::algo {
namespace {

std::string Quoted(const std::string& v) { return "\"" + v + "\""; }

// The lock is ours: say until when, and where the number comes from.
Millis Mine(world::Client& c, const LockSettings& s, const char* how) {
  const Millis mine = c.SentTimestamp();
  c.Because(std::string(how) + ": the lock is mine until " + std::to_string(mine) + " (my clock " +
            std::to_string(mine - s.timeout - 1) + " + timeout " + std::to_string(s.timeout) +
            " + 1)");
  return mine;
}

// Takes the lock; returns the timestamp this client wrote.
Millis Acquire(world::Client& c, const LockSettings& s, Takeover takeover, int round) {
  const world::Value stamp = world::Client::ClockPlus(s.timeout + 1);
  for (;;) {
    // Each retry starts afresh: only the round matters from here.
    c.ForgetHistory("acquire", {round});

    // "SETNX lock.foo <current Unix time + lock timeout + 1>"
    if (c.SetNx(s.key, stamp)) return Mine(c, s, "SETNX set the key");
    c.Because("the key is set: someone holds the lock; GET it to see if it expired");

    // "GET lock.foo to check if the lock expired."
    std::optional<std::string> seen = c.Get(s.key);
    if (!seen) {
      c.Because("the key is gone (released meanwhile): retry SETNX at once");
      continue;
    }
    std::optional<Millis> seen_stamp = ParseTimestamp(*seen);
    if (!seen_stamp) {
      c.Because(Quoted(*seen) + " is no timestamp: never taken over; sleep " +
                std::to_string(s.retry_delay) + " and retry");
      c.Sleep(s.retry_delay);
      continue;
    }
    const Millis now = c.Now();
    if (!TimestampExpired(*seen_stamp, now)) {
      // "If it is not, it will sleep for some time and retry from the start."
      c.Because(Quoted(*seen) + " >= my clock " + std::to_string(now) + ": not expired; sleep " +
                std::to_string(s.retry_delay) + " and retry from SETNX");
      c.Sleep(s.retry_delay);
      continue;
    }
    c.Because(Quoted(*seen) + " < my clock " + std::to_string(now) + ": expired; take it over " +
              (takeover == Takeover::kNaive ? "with DEL, then SETNX" : "with GETSET"));
    // The decision is taken: what was seen no longer matters.
    c.ForgetHistory("take over", {round});

    if (takeover == Takeover::kNaive) {
      // The race the documentation warns about: DEL, then SETNX.
      c.Because(c.Del(s.key) == 1 ? "deleted the expired lock; now SETNX it"
                                  : "someone deleted it first; SETNX it anyway");
      if (c.SetNx(s.key, stamp)) return Mine(c, s, "SETNX set the key");
      c.Because("someone set it first: retry from the start");
      continue;
    }

    // "GETSET lock.foo <current Unix timestamp + lock timeout + 1>": the
    // lock is ours iff the old value is still an expired timestamp.
    std::optional<std::string> old = c.GetSet(s.key, stamp);
    if (old) {
      std::optional<Millis> old_stamp = ParseTimestamp(*old);
      if (old_stamp) {
        const Millis now_after = c.Now();
        if (TimestampExpired(*old_stamp, now_after)) {
          return Mine(c, s,
                      ("the old value " + Quoted(*old) + " < my clock " +
                       std::to_string(now_after) + " is still expired")
                          .c_str());
        }
        c.Because("the old value " + Quoted(*old) + " >= my clock " + std::to_string(now_after) +
                  ": another client took it first; retry from the first step");
        continue;
      }
    }
    // Another client was faster: "retry with the first step".
    c.Because(old ? "the old value " + Quoted(*old) + " is no timestamp; retry from the first step"
                  : "GETSET found no key: not taken over; retry from the first step");
  }
}

void ReleaseIfStillMine(world::Client& c, const LockSettings& s, Millis mine) {
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
    const Millis now = c.Now();
    if (!TimestampExpired(mine, now)) {
      c.Because("my timestamp " + std::to_string(mine) + " >= my clock " + std::to_string(now) +
                ": still mine, DEL it");
      c.Del(s.key);
    } else {
      c.Because("my timestamp " + std::to_string(mine) + " < my clock " + std::to_string(now) +
                ": expired, another client may hold it; leave the key");
    }
  }
  c.ForgetLock();
}

}  // namespace

void RunSetnxLock(world::Client& c, const LockSettings& s, Takeover takeover) {
  for (int round = 0; round < s.rounds; ++round) {
    Millis mine = Acquire(c, s, takeover, round);
    // Holding: only the round and our timestamp matter.
    c.ForgetHistory("hold", {round}, {mine});
    HoldLock(c, s, mine, 0);
    ReleaseIfStillMine(c, s, mine);
  }
}

LOCKSTEP_ALGORITHM(setnx_naive,
                   {.name = "setnx-naive",
                    .summary = "SETNX lock; expired lock taken over with GET, DEL, SETNX (racy)",
                    .make = MakeLockBody<RunSetnxLock, Takeover::kNaive>,
                    .settings = kTimestampLockSettings,
                    .timestamp_lock = true,
                    .relative_time = true});
LOCKSTEP_ALGORITHM(
    setnx_getset,
    {.name = "setnx-getset",
     .summary = "SETNX lock; expired lock taken over with GETSET (the documented fix)",
     .make = MakeLockBody<RunSetnxLock, Takeover::kGetSet>,
     .settings = kTimestampLockSettings,
     .timestamp_lock = true,
     .relative_time = true});

}  // namespace lockstep::algo

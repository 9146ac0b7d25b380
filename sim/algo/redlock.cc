#include "sim/algo/redlock.h"

#include <algorithm>

#include "sim/algo/fencing_lock.h"
#include "sim/algo/set_nx_px.h"

namespace lockstep::algo {

Millis RedlockDrift(Millis ttl) { return ttl / 100 + 2; }  // int(ttl * 0.01) + 2

namespace {

// Redlock's N instances: every master but the token server.
bool IsLockInstance(const LockSettings& s, int i) { return i != s.token_instance; }

// What one instance's reply means for the count, in words.
std::string Tally(bool locked_here, int instance, int locked) {
  return "instance " + std::to_string(instance + 1) +
         (locked_here ? " locked" : " not locked (held, or no reply)") + ": " +
         std::to_string(locked) + " locked so far";
}

void UnlockAll(world::Client& c, const LockSettings& s, const std::string& value) {
  for (int i = 0; i < s.instances; ++i) {
    if (IsLockInstance(s, i)) c.CallOn(i, {"EVAL", kCompareAndDelete, "1", s.key, value});
  }
}

}  // namespace

void RunRedlock(world::Client& c, const LockSettings& s, RedlockTokens tokens) {
  const int n = s.instances - (s.token_instance >= 0 ? 1 : 0);
  const int quorum = n / 2 + 1;
  const std::string counter = s.key + ":token";
  for (int round = 0; round < s.rounds; ++round) {
    const std::string value = c.RandomToken();
    int64_t token = 0;
    Millis valid_until = 0;
    for (;;) {
      // The token need not be live: where the client is in its random stream
      // (kept by ForgetHistory) says which draw it is.
      c.ForgetHistory("acquire", {round});
      // Only `now - start < ttl - drift` reads the start: one that many
      // ticks old or older leaves no validity, whatever its age.
      const Millis start = c.NowAsStart(std::max<Millis>(s.ttl - RedlockDrift(s.ttl) - 1, 0));
      int locked = 0;
      token = 0;
      for (int i = 0; i < s.instances; ++i) {
        if (!IsLockInstance(s, i)) continue;
        if (tokens == RedlockTokens::kInstanceCounters) {
          kv::Reply r = c.CallOn(
              i, {"EVAL", kAcquireWithToken, "2", s.key, counter, value, world::Value(s.ttl)});
          if (r.type == kv::Reply::Type::kInteger) {
            ++locked;
            token = std::max(token, r.integer);
          }
          c.Because(Tally(r.type == kv::Reply::Type::kInteger, i, locked));
        } else {
          kv::Reply r = c.CallOn(i, {"SET", s.key, value, "NX", "PX", world::Value(s.ttl)});
          if (r.type == kv::Reply::Type::kStatus) ++locked;  // OK; nil: held; error: unknown
          c.Because(Tally(r.type == kv::Reply::Type::kStatus, i, locked));
        }
      }
      if (tokens == RedlockTokens::kTokenService && locked >= quorum) {
        kv::Reply r = c.CallOn(s.token_instance, {"INCR", counter});
        // Without a token the client cannot write the fenced resource.
        if (r.type == kv::Reply::Type::kInteger) {
          token = r.integer;
        } else {
          locked = 0;
        }
      }
      const Millis now = c.Now();
      const Millis validity = s.ttl - (now - start) - RedlockDrift(s.ttl);
      const std::string count = std::to_string(locked) + " of " + std::to_string(n) +
                                " instances locked (a majority is " + std::to_string(quorum) + ")";
      if (locked >= quorum && validity > 0) {
        valid_until = now + validity;
        c.Because(count + ", validity " + std::to_string(validity) +
                  " left: the lock is mine until " + std::to_string(valid_until));
        break;
      }
      c.Because(count + (locked >= quorum ? ", but no validity left" : "") +
                ": unlock them all and back off");
      UnlockAll(c, s, value);
      // Nothing of this attempt matters any more: its times left in the
      // state would tell apart, for as long as the all-time window lasts,
      // clients that back off alike.
      c.ForgetHistory("back off", {round});
      // A random back-off: every delay the explorer tries, or in a
      // probabilistic search one drawn (Client::SleepRandom).
      c.SleepRandom(1, std::max<Millis>(s.retry_delay, 1));
    }
    // The attempt's times (its start, the clock at its end) are dead once
    // the validity is known: only where the lease ends is live.
    c.ForgetHistory("hold", {round, token}, {valid_until});
    HoldLock(c, s, valid_until, token);
    c.LeaveCriticalSection();
    c.ForgetHistory("release", {round});
    UnlockAll(c, s, value);
    c.ForgetLock();
  }
}

LOCKSTEP_ALGORITHM(redlock,
                   {.name = "redlock",
                    .summary = "Redlock: SET NX PX on every instance, a majority within the "
                               "validity; release by script on all",
                    .make = MakeLockBody<RunRedlock, RedlockTokens::kNone>,
                    .settings = kTtlLockSettings,
                    .never_reads_tokens = true,
                    .relative_time = true});
LOCKSTEP_ALGORITHM(redlock_instance_tokens,
                   {.name = "redlock-instance-tokens",
                    .summary = "Redlock with a fencing token: the largest INCR among the "
                               "instances locked (unsafe)",
                    .make = MakeLockBody<RunRedlock, RedlockTokens::kInstanceCounters>,
                    .settings = kTtlLockSettings,
                    .never_reads_tokens = true,
                    .relative_time = true});
LOCKSTEP_ALGORITHM(redlock_fenced,
                   {.name = "redlock-fenced",
                    .summary = "Redlock with a fencing token from INCR on lock.token_server",
                    .make = MakeLockBody<RunRedlock, RedlockTokens::kTokenService>,
                    .settings = kTtlLockSettings,
                    .never_reads_tokens = true,
                    .needs_token_server = true,
                    .relative_time = true});

}  // namespace lockstep::algo

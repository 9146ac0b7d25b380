#include "sim/algo/fencing_lock.h"

#include "sim/algo/set_nx_px.h"

namespace lockstep::algo {

void RunFencedLock(world::Client& c, const LockSettings& s) {
  const std::string counter = s.key + ":token";
  for (int round = 0; round < s.rounds; ++round) {
    const std::string value = c.RandomToken();
    int64_t token = 0;
    for (;;) {
      c.ForgetHistory("acquire", {round});
      kv::Reply r =
          c.Call({"EVAL", kAcquireWithToken, "2", s.key, counter, value, world::Value(s.ttl)});
      if (r.type == kv::Reply::Type::kInteger) {
        token = r.integer;
        break;
      }
      c.Because("another client holds the lock (or no reply); sleep " +
                std::to_string(s.retry_delay) + " and retry");
      c.Sleep(s.retry_delay);
    }
    const Millis now = c.Now();
    c.Because("the script set the key and gave fencing token " + std::to_string(token) +
              ": the lock is mine until my clock reads " + std::to_string(now + s.ttl));
    HoldLock(c, s, now + s.ttl, token);
    c.LeaveCriticalSection();
    ReleaseToken(c, s, value, Release::kScript);
    c.ForgetLock();
  }
}

LOCKSTEP_ALGORITHM(
    fenced_set_px,
    {.name = "fenced-set-px",
     .summary = "SET NX PX and a fencing token from INCR in one script; release by script",
     .make = MakeLockBody<RunFencedLock>,
     .settings = kTtlLockSettings,
     .never_reads_tokens = true,
     .relative_time = true});

}  // namespace lockstep::algo

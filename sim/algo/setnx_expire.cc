#include "sim/algo/setnx_expire.h"

namespace lockstep::algo {

void RunSetnxExpire(world::Client& c, const LockSettings& s) {
  for (int round = 0; round < s.rounds; ++round) {
    const std::string token = c.RandomToken();
    for (;;) {
      c.ForgetHistory("acquire", {round});
      if (c.SetNx(s.key, token)) break;
      c.Because("the key is set: sleep " + std::to_string(s.retry_delay) + " and retry");
      c.Sleep(s.retry_delay);
    }
    c.Because(
        "SETNX set the key, with no TTL yet: PEXPIRE it next (a crash now leaves it forever)");
    c.Call({"PEXPIRE", s.key, world::Value(s.ttl)});
    const Millis now = c.Now();
    c.Because("the key expires in " + std::to_string(s.ttl) +
              ": the lock is mine until my clock reads " + std::to_string(now + s.ttl));
    HoldLock(c, s, now + s.ttl, 0);
    c.LeaveCriticalSection();
    c.Because("DEL the key, whoever's lock it is by now");
    c.Del(s.key);
    c.ForgetLock();
  }
}

LOCKSTEP_ALGORITHM(setnx_expire,
                   {.name = "setnx-expire",
                    .summary = "SETNX, then PEXPIRE as a second command; release by DEL",
                    .make = MakeLockBody<RunSetnxExpire>,
                    .settings = kTtlLockSettings,
                    .never_reads_tokens = true,
                    .relative_time = true});

}  // namespace lockstep::algo

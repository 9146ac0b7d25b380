#include "sim/algo/setnx_expire.h"

namespace lockstep::algo {

void RunSetnxExpire(world::Client& c, const LockSettings& s) {
  for (int round = 0; round < s.rounds; ++round) {
    const std::string token = c.RandomToken();
    for (;;) {
      c.ForgetHistory("acquire", {round});
      if (c.SetNx(s.key, token)) break;
      c.Sleep(s.retry_delay);
    }
    c.Call({"PEXPIRE", s.key, world::Value(s.ttl)});
    HoldLock(c, s, c.Now() + s.ttl, 0);
    c.LeaveCriticalSection();
    c.Del(s.key);
    c.ForgetLock();
  }
}

LOCKSTEP_ALGORITHM(setnx_expire,
                   {.name = "setnx-expire",
                    .summary = "SETNX, then PEXPIRE as a second command; release by DEL",
                    .make = MakeLockBody<RunSetnxExpire>,
                    .settings = kTtlLockSettings});

}  // namespace lockstep::algo

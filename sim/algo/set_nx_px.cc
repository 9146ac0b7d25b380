#include "sim/algo/set_nx_px.h"

namespace lockstep::algo {

void ReleaseToken(world::Client& c, const LockSettings& s, const std::string& token,
                  Release release) {
  switch (release) {
    case Release::kDel:
      c.Because("DEL the key, whoever's lock it is by now");
      c.Del(s.key);
      break;
    case Release::kGetCompare: {
      c.Because("GET the key to see whether it still holds my token");
      std::optional<std::string> v = c.Get(s.key);
      if (v && *v == token) {
        c.Because("the value is my token: DEL it (the key may change before the DEL runs)");
        c.Del(s.key);
      } else {
        c.Because("not my token: leave the key alone");
      }
      break;
    }
    case Release::kScript:
      c.Because("delete the key only if it still holds my token, in one script");
      c.Call({"EVAL", kCompareAndDelete, "1", s.key, token});
      break;
  }
}

void RunSetNxPx(world::Client& c, const LockSettings& s, Release release) {
  for (int round = 0; round < s.rounds; ++round) {
    const std::string token = c.RandomToken();
    for (;;) {
      c.ForgetHistory("acquire", {round});
      kv::Reply r = c.Call({"SET", s.key, token, "NX", "PX", world::Value(s.ttl)});
      if (r.type == kv::Reply::Type::kStatus) break;  // OK: ours
      // nil: held by another; an error (a timeout): we cannot know; retry.
      c.Because(std::string(r.type == kv::Reply::Type::kNil ? "another client holds the lock"
                                                            : "no reply: I cannot know") +
                "; sleep " + std::to_string(s.retry_delay) + " and retry");
      c.Sleep(s.retry_delay);
    }
    const Millis now = c.Now();
    c.Because("SET NX set the key: the lock is mine for its TTL, until my clock reads " +
              std::to_string(now + s.ttl));
    HoldLock(c, s, now + s.ttl, 0);
    c.LeaveCriticalSection();
    ReleaseToken(c, s, token, release);
    c.ForgetLock();
  }
}

LOCKSTEP_ALGORITHM(set_px_del, {.name = "set-px-del",
                                .summary = "SET key token NX PX ttl; release by plain DEL",
                                .make = MakeLockBody<RunSetNxPx, Release::kDel>,
                                .settings = kTtlLockSettings,
                                .never_reads_tokens = true,
                                .relative_time = true});
LOCKSTEP_ALGORITHM(
    set_px_get_del,
    {.name = "set-px-get-del",
     .summary = "SET key token NX PX ttl; release by GET, compare in the client, DEL",
     .make = MakeLockBody<RunSetNxPx, Release::kGetCompare>,
     .settings = kTtlLockSettings,
     .relative_time = true});
LOCKSTEP_ALGORITHM(set_px_script,
                   {.name = "set-px-script",
                    .summary = "SET key token NX PX ttl; release by the compare-and-delete script",
                    .make = MakeLockBody<RunSetNxPx, Release::kScript>,
                    .settings = kTtlLockSettings,
                    .never_reads_tokens = true,
                    .relative_time = true});

}  // namespace lockstep::algo

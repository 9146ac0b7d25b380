// A lock of our own: SET key token NX PX ttl, retried with a delay that
// doubles up to a bound, released by the compare-and-delete script. It
// declares two settings of its own beside the shipped key and ttl.
#include <algorithm>
#include <string>

#include <lockstep/lockstep.h>

namespace {

constexpr const char* kCompareAndDelete =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
    "else return 0 end";

void RunBackoffLock(lockstep::Client& c, const lockstep::Settings& s) {
  const std::string& key = s.String("key");
  const lockstep::Millis ttl = s.Int("ttl");
  lockstep::Millis delay = s.Int("first_delay");
  const std::string token = c.RandomToken();
  for (;;) {
    // Only the delay to wait next matters to what this client does later.
    c.ForgetHistory("acquire", {delay});
    lockstep::Reply r = c.Call({"SET", key, token, "NX", "PX", lockstep::Value(ttl)});
    if (r.type == lockstep::Reply::Type::kStatus) break;
    c.Sleep(delay);
    delay = std::min<lockstep::Millis>(delay * 2, s.Int("max_delay"));
  }
  lockstep::HoldLock(c, s.world.write_resource, c.Now() + ttl, 0);
  c.LeaveCriticalSection();
  c.Call({"EVAL", kCompareAndDelete, "1", key, token});
  c.ForgetLock();
}

constexpr lockstep::Setting kBackoffSettings[] = {
    lockstep::kKeySetting,
    lockstep::kTtlSetting,
    {.name = "first_delay",
     .help = "the first retry's delay, in ticks",
     .min = 1,
     .max = 100,
     .default_value = 1},
    {.name = "max_delay",
     .help = "the longest retry delay, in ticks",
     .min = 1,
     .max = 1000,
     .default_value = 4},
};

}  // namespace

LOCKSTEP_ALGORITHM(backoff_lock,
                   {.name = "backoff-lock",
                    .summary = "SET NX PX retried with doubling delays; release by script",
                    .make = lockstep::MakeBody<RunBackoffLock>,
                    .settings = kBackoffSettings});

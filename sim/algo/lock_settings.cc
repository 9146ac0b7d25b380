#include "sim/algo/lock_settings.h"

namespace lockstep::algo {

LockSettings LockSettings::From(const Settings& s) {
  LockSettings l;
  if (s.Declares("key")) l.key = s.String("key");
  if (s.Declares("timeout")) l.timeout = s.Int("timeout");
  if (s.Declares("rounds")) l.rounds = static_cast<int>(s.Int("rounds"));
  if (s.Declares("retry_delay")) l.retry_delay = s.Int("retry_delay");
  if (s.Declares("release_with_leave")) l.release_with_leave = s.Bool("release_with_leave");
  if (s.Declares("ttl")) l.ttl = s.Int("ttl");
  l.write_resource = s.world.write_resource;
  l.instances = s.world.instances;
  l.token_instance = s.world.token_instance;
  return l;
}

}  // namespace lockstep::algo

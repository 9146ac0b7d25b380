"""redis-py's Lock, unmodified, as one client of a lockstep scenario.

Each round: acquire with blocking_timeout, hold (enter, optionally write the
resource, and with EXTEND_MS > 0 extend the lease once inside), leave, release.
The lock settings come from the scenario: key, ttl (PX, in ticks of one
millisecond), retry_delay (the sleep between attempts), rounds.
"""
import os

import redis
from redis.exceptions import LockError

from lockstep_client import Lockstep, now_ms, redis_url, settings

s = settings()
r = redis.Redis.from_url(redis_url())
say = Lockstep(r)
ttl = s["ttl"]
blocking_timeout = int(os.environ.get("BLOCKING_TIMEOUT_MS", "3"))
extend = int(os.environ.get("EXTEND_MS", "0"))
lock = r.lock(s["key"], timeout=ttl / 1000, sleep=s["retry_delay"] / 1000)

for _ in range(s["rounds"]):
    if not lock.acquire(blocking_timeout=blocking_timeout / 1000):
        say.because("gave up: blocking_timeout passed")
        continue
    # The SET that gave the lock ran at this clock: its PX runs out at +ttl.
    valid_until = now_ms() + ttl
    say.enter(valid_until)
    if extend:
        try:
            lock.extend(extend / 1000)
            say.renew(valid_until + extend)
        except LockError as e:
            say.because("extend failed: %s" % e)
    if s.get("write_resource"):
        say.write(0)
    say.leave()
    try:
        lock.release()
    except LockError as e:
        say.because("release failed: %s" % e)
    say.released()

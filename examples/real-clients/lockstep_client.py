"""What a Python client tells lockstep about its critical section.

lockstep runs the client as a process and serves it as Redis would; these
calls are ECHO commands lockstep intercepts and never sends on
(README, "Real lock libraries"). Outside lockstep they are harmless ECHOs.
"""
import json
import os
import time

import redis


def settings():
    """The scenario's lock settings for this client (key, ttl, rounds, ...)."""
    return json.loads(os.environ.get("LOCKSTEP_SETTINGS", "{}"))


def redis_url(instance=0):
    """The URL of the scenario's instance `instance` (0-based)."""
    urls = os.environ.get("LOCKSTEP_REDIS_URLS", "redis://127.0.0.1:6379/0").split()
    return urls[instance]


def now_ms():
    """This client's clock, in ticks (milliseconds): the monotonic clock."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1_000_000


class Lockstep:
    """The critical-section calls, sent on the client's own connection."""

    def __init__(self, client: redis.Redis):
        self.r = client

    def _say(self, text):
        return self.r.echo("lockstep:" + text)

    def enter(self, valid_until_ms):
        """Enters the critical section, believing the lock valid until then (its clock)."""
        self._say("enter %d" % valid_until_ms)

    def renew(self, valid_until_ms):
        """The lease was extended: the lock is believed valid until then."""
        self._say("renew %d" % valid_until_ms)

    def leave(self):
        """Leaves the critical section (a step of its own)."""
        self._say("leave")

    def released(self):
        """No longer believes it holds the lock."""
        self._say("released")

    def write(self, token=0):
        """Writes the protected resource with a fencing token; True iff accepted."""
        return self._say("write %d" % token) == b"1"

    def because(self, text):
        """Why the code does what it does next, shown under the step."""
        self._say("because " + text)

"""What a Python client tells lockstep about its critical section.

lockstep runs the client as a process and serves it as Redis would; these
calls are ECHO commands lockstep intercepts and never sends on
(README, "Real lock libraries"). Outside lockstep they are harmless ECHOs.
"""
import json
import os
import random
import time


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
    """The calls, sent on a connection of the client's own: any object with
    an echo(text) method, such as a redis.Redis."""

    def __init__(self, connection):
        self.r = connection
        self._stamp = None  # outside lockstep: the last clock_plus value

    def _say(self, text):
        reply = self.r.echo("lockstep:" + text)
        return reply.decode() if isinstance(reply, bytes) else reply

    def enter(self, valid_until_ms):
        """Enters the critical section, believing the lock valid until then (its clock)."""
        self._say("enter %d" % valid_until_ms)

    def renew(self, valid_until_ms):
        """The lease was extended: the lock is believed valid until then."""
        self._say("renew %d" % valid_until_ms)

    def leave(self, release=None, unless_expired=None):
        """Leaves the critical section (a step of its own). With `release`
        (a command, as a list of strings), sends it in the same step, unless
        `unless_expired` is given and is before the clock then."""
        if release is None:
            self._say("leave")
            return None
        arg = {"command": list(release)}
        if unless_expired is not None:
            arg["unless_expired"] = unless_expired
        return self._say("leave " + json.dumps(arg))

    def released(self):
        """No longer believes it holds the lock."""
        self._say("released")

    def write(self, token=0):
        """Writes the protected resource with a fencing token; True iff accepted."""
        return self._say("write %d" % token) == "1"

    def draw(self, least, most):
        """A random integer from least to most: a step of lockstep's, each
        value tried, or weighed as likely with --probabilistic. Outside
        lockstep, Python's own."""
        reply = self._say("draw %d %d" % (least, most))
        return random.randint(least, most) if reply.startswith("lockstep:") else int(reply)

    def give_up(self):
        """This attempt ended without the lock (some_contender_enters)."""
        self._say("give_up")

    def because(self, text):
        """Why the code does what it does next, shown under the step."""
        self._say("because " + text)

    def forget_history(self, label, live=(), times=()):
        """From here on, what the client does depends only on `label`, the
        integers `live`, the times `times` and what it observes next (a
        promise, as Client::ForgetHistory: the search merges the states
        that agree on them)."""
        arg = {"label": label, "live": list(live), "times": list(times)}
        self._say("forget_history " + json.dumps(arg))

    def clock_plus(self, offset):
        """An argument that stands for this client's clock plus `offset` when
        the command runs (its age is the scheduler's, as max_arg_delay allows)."""
        reply = self._say("clock_plus %d" % offset)
        if reply.startswith("lockstep:clock+"):
            return reply
        self._stamp = now_ms() + offset  # outside lockstep: the clock now
        return str(self._stamp)

    def sent_timestamp(self):
        """The time the clock_plus argument of the last command stood for."""
        reply = self._say("sent_timestamp")
        return self._stamp if reply == "lockstep:sent_timestamp" else int(reply)

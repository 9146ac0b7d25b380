"""The SETNX documentation's lock as a program: the same steps as the
built-in algorithms setnx-naive (TAKEOVER=naive) and setnx-getset
(TAKEOVER=getset), which tests/process/differential_test.cc holds it to.

It speaks RESP itself over a plain socket (importing redis-py would cost
each start a fifth of a second) and says through lockstep_client.py what
the built-ins say through the client API: the critical section, the
forgetting of its history at the loop heads, the timestamp argument
"clock + timeout + 1" and the timestamp it stood for.
"""
import os
import re
import socket
import time

from lockstep_client import Lockstep, now_ms, redis_url, settings


class Connection:
    """One RESP2 connection; replies as Python values (an error as RespError)."""

    def __init__(self, url):
        host, port = re.match(r"redis://([^:/]+):(\d+)", url).groups()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.connect((host, int(port)))
        self.buffer = b""

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode() if isinstance(a, str) else a
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)
        return self._reply()

    def echo(self, text):
        return self.call("ECHO", text)

    def _line(self):
        while b"\r\n" not in self.buffer:
            self._more()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _more(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("lockstep closed the connection")
        self.buffer += data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buffer) < n + 2:
                self._more()
            data, self.buffer = self.buffer[:n], self.buffer[n + 2:]
            return data.decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ConnectionError("not RESP: %r" % line)


class RespError(str):
    """An error reply (a lost request's timeout, say): never a timestamp."""


def timestamp(value):
    """The lock value as a timestamp, or None if it is none (as ParseTimestamp)."""
    if isinstance(value, RespError) or not isinstance(value, str):
        return None
    if not re.fullmatch(r"-?[0-9]+", value):
        return None
    t = int(value)
    return t if -(2**63) <= t < 2**63 else None


def expired(stamp, now):
    return stamp < now


s = settings()
naive = os.environ["TAKEOVER"] == "naive"
r = Connection(redis_url())
say = Lockstep(r)


def pause():
    """Sleeps retry_delay ticks (none: retries at once, as Client::Sleep(0))."""
    if s["retry_delay"] > 0:
        time.sleep(s["retry_delay"] / 1000)


def acquire(round_):
    """Takes the lock; returns the timestamp this client wrote."""
    stamp = say.clock_plus(s["timeout"] + 1)
    while True:
        # Each retry starts afresh: only the round matters from here.
        say.forget_history("acquire", [round_])
        if r.call("SETNX", s["key"], stamp) == 1:
            return say.sent_timestamp()
        seen = r.call("GET", s["key"])
        if seen is None or isinstance(seen, RespError):
            continue  # released meanwhile, or no reply: retry at once
        seen_stamp = timestamp(seen)
        if seen_stamp is None:
            pause()
            continue
        if not expired(seen_stamp, now_ms()):
            pause()
            continue
        # The decision is taken: what was seen no longer matters.
        say.forget_history("take over", [round_])
        if naive:
            r.call("DEL", s["key"])
            if r.call("SETNX", s["key"], stamp) == 1:
                return say.sent_timestamp()
            continue
        old = r.call("GETSET", s["key"], stamp)
        old_stamp = timestamp(old)
        if old_stamp is not None and expired(old_stamp, now_ms()):
            return say.sent_timestamp()


def release(mine):
    """Deletes the lock only while our own timestamp has not expired."""
    if s.get("release_with_leave"):
        say.leave(["DEL", s["key"]], unless_expired=mine)
    else:
        say.leave()
        if not expired(mine, now_ms()):
            r.call("DEL", s["key"])
    say.released()


for round_ in range(s["rounds"]):
    mine = acquire(round_)
    # Holding: only the round and our timestamp matter.
    say.forget_history("hold", [round_], [mine])
    say.enter(mine)
    if s.get("write_resource"):
        say.write(0)
    release(mine)

"""One run's cost as /usr/bin/time -v reports it: CPU seconds (user + system,
the time the process and its waited-for children ran, resolution 0.01 s),
wall seconds (start to exit) and peak resident memory.

The bench compares tools by CPU seconds: on a shared machine a run that waits
for a core takes longer by the clock but not in CPU time.

  import time_v; time_v.parse(PATH)     -> {"cpu_s", "wall_s", "rss_mb"} or None
  python3 bench/time_v.py PATH          prints "cpu_s wall_s rss_mb" ("- - -" if none)
"""
import re
import sys


def _field(text, label):
    m = re.search(r"^\s*" + re.escape(label) + r": (.+)$", text, re.M)
    return m.group(1).strip() if m else None


def _clock(value):
    """'m:ss.ss' or 'h:mm:ss' as seconds."""
    parts = [float(p) for p in value.split(":")]
    seconds = 0.0
    for p in parts:
        seconds = seconds * 60 + p
    return seconds


def parse(path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return None
    user = _field(text, "User time (seconds)")
    system = _field(text, "System time (seconds)")
    wall = _field(text, "Elapsed (wall clock) time (h:mm:ss or m:ss)")
    rss = _field(text, "Maximum resident set size (kbytes)")
    if user is None or system is None or wall is None:
        return None
    return {
        "cpu_s": round(float(user) + float(system), 2),
        "wall_s": _clock(wall),
        "rss_mb": int(rss) / 1024 if rss else None,
    }


if __name__ == "__main__":
    r = parse(sys.argv[1])
    if r is None:
        print("- - -")
    else:
        print(f"{r['cpu_s']:.2f} {r['wall_s']:.2f} {r['rss_mb'] or 0:.1f}")

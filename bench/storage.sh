#!/usr/bin/env bash
# Memory per state, SPIN and lockstep side by side, in one run: the same-space
# GETSET search (horizon 16, 3 rounds, --no-symmetry --no-por, pan -DSAFETY)
# with each way of keeping visited states.
#
#   bench/storage.sh                 N=5
#   bench/storage.sh --quick         N=3, a smoke run of well under a minute
#   bench/storage.sh --n 4           fewer clients
#
# Options:
#   --n N               clients, 1..5 (default 5)
#   --quick             N=3
#   --cpu C             pin every run to CPU C with taskset (default 0), the same core
#                       for SPIN and lockstep
#   --lockstep PATH     use this lockstep binary instead of building one
#   --build-dir DIR     where to build lockstep (default: <repo>/build-bench)
#   --rev REV           build this commit (git archive) instead of the working tree
# Environment:
#   TIMEOUT   per-run cap in seconds (default 300)
#   OUT       where the table goes (default bench/results/storage.md)
#   SPIN_DIR  the SPIN models (default <repo>/../shared/spin)
#
# Rows: pan compiled plain, with -DHC4 (hash compaction) and with -DBITSTATE
# (-w27, SPIN's bitstate), and lockstep --storage exact | fingerprint |
# hash-compact | bitstate --bitstate-bits 27, the like-for-like pairs one
# after the other.
# Each run alone, pinned to one core, under /usr/bin/time -v. Columns: states,
# CPU seconds (user + system) beside wall seconds and the search time, peak
# resident memory, and for lockstep the visited table's own bytes per state and
# the expected states missed, from its --json report. Ratios are of CPU seconds.
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
. "$BENCH/scenario_set.sh"
TIMEOUT=${TIMEOUT:-300}
SPIN_DIR=${SPIN_DIR:-$REPO/../shared/spin}
OUT=${OUT:-$BENCH/results/storage.md}
N=5
CPU=0
LOCKSTEP=""
BUILD_DIR="$REPO/build-bench"
REV=""
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift ;;
    --quick) N=3 ;;
    --cpu) CPU=$2; shift ;;
    --lockstep) LOCKSTEP=$2; shift ;;
    --build-dir) BUILD_DIR=$2; shift ;;
    --rev) REV=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "storage: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case $N in 1|2|3|4|5) ;; *) echo "storage: --n must be 1..5, got $N" >&2; exit 2 ;; esac
bench_needs storage spin time gcc python3 timeout taskset
bench_pin storage "$CPU"
[ -f "$SPIN_DIR/getset.pml" ] || { echo "storage: SPIN models not found in $SPIN_DIR" >&2; exit 1; }
if [ -z "$LOCKSTEP" ]; then
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$BUILD_DIR" "$REV"
else
  LOCKSTEP_LABEL="prebuilt ${LOCKSTEP#"$REPO"/} ($("$LOCKSTEP" --version 2>/dev/null | head -1))"
fi
[ -x "$LOCKSTEP" ] || { echo "storage: no lockstep binary at $LOCKSTEP" >&2; exit 1; }
# The runs start in the work dir: a path given relative to here must still lead to it.
LOCKSTEP=$(realpath "$LOCKSTEP")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/storage.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/runs" "$WORK/cx"
scenario_set "$REPO/scenarios/getset-bounded.json" "$WORK/getset.json" 16 3
{ echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host=$(nproc) cores, $(uname -sr)"
  echo "lockstep=$LOCKSTEP_LABEL"
  echo "spin=$(spin -V 2>/dev/null | head -1)"
  echo "n=$N"
  echo "pin=$CPU"
  echo "load_start=$(cut -d" " -f1-3 /proc/loadavg)"
} > "$WORK/env.txt"

# pan VARIANT FLAGS HASH: compile pan (not timed), then one timed run
pan() {
  local v=$1 flags=$2 hash=$3 b="$WORK/pan-$1" rc=0
  mkdir -p "$b" && cp "$SPIN_DIR"/*.pml "$b/"
  (cd "$b" && spin -DN="$N" -DT=2 -DMAXT=16 -DROUNDS=3 -a getset.pml >/dev/null &&
    gcc -O2 -DSAFETY -DMEMLIM=16000 $flags -o pan pan.c) ||
    { echo "storage: spin -a or gcc failed for pan $v" >&2; exit 1; }
  printf '%s... ' "pan $v"
  (cd "$b" && timeout -s INT "$TIMEOUT" /usr/bin/time -v -o "$WORK/runs/pan-$v.time" \
    "${PIN[@]}" ./pan -m100000 "$hash" > "$WORK/runs/pan-$v.pan" 2>&1) || rc=$?
  echo "rc=$rc" > "$WORK/runs/pan-$v.rc"
  rm -rf "$b"
}

# lockstep STORAGE [FLAGS...]: one timed run of the same-space search
lockstep() {
  local storage=$1 rc=0
  shift
  printf '%s... ' "lockstep $storage"
  (cd "$WORK" && timeout -s INT "$TIMEOUT" /usr/bin/time -v -o "$WORK/runs/lockstep-$storage.time" \
    "${PIN[@]}" "$LOCKSTEP" explore "$WORK/getset.json" --clients "$N" --no-symmetry --no-por \
    --storage "$storage" "$@" --json --out "$WORK/cx" \
    > "$WORK/runs/lockstep-$storage.json" 2> "$WORK/runs/lockstep-$storage.err") || rc=$?
  echo "rc=$rc" > "$WORK/runs/lockstep-$storage.rc"
}

echo "same-space GETSET, N=$N, horizon 16, 3 rounds, on CPU $CPU"
pan plain "" -w26
lockstep exact
pan HC4 -DHC4 -w26
lockstep fingerprint
lockstep hash-compact
pan BITSTATE -DBITSTATE -w27
lockstep bitstate --bitstate-bits 27
echo
echo "load_end=$(cut -d" " -f1-3 /proc/loadavg)" >> "$WORK/env.txt"

mkdir -p "$(dirname "$OUT")"
python3 - "$WORK" "$OUT" "$BENCH" <<'PY'
import json, os, re, sys

work, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import judge, time_v

env = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(work, "env.txt")) if "=" in l)

def read(path):
    try:
        return open(path, errors="replace").read()
    except OSError:
        return ""

def run(key):
    r = {"rc": int(read(f"{work}/runs/{key}.rc").strip().split("=")[-1] or 0),
         "states": None, "transitions": None, "s": None, "storage": {}}
    r.update(time_v.parse(f"{work}/runs/{key}.time") or {"cpu_s": None, "wall_s": None, "rss_mb": None})
    if key.startswith("pan-"):
        text = read(f"{work}/runs/{key}.pan")
        for field, rx in (("states", r"([\d.e+]+) states, stored"),
                          ("transitions", r"([\d.e+]+) transitions \(= stored\+matched\)"),
                          ("s", r"pan: elapsed time ([\d.e+-]+) seconds")):
            m = re.search(rx, text)
            r[field] = float(m.group(1)) if m else None
        for field in ("states", "transitions"):
            r[field] = None if r[field] is None else int(r[field])
        r["ok"] = r["rc"] == 0 and r["states"] is not None and "errors: 0" in text
    else:
        try:
            j = json.loads(read(f"{work}/runs/{key}.json"))
        except ValueError:
            j = {}
        r["states"], r["transitions"], r["s"] = j.get("states"), j.get("transitions"), j.get("elapsed_s")
        r["storage"] = j.get("storage") or {}
        r["ok"] = j.get("verdict") == "safe"
    return r

ROWS = [("pan-plain", "pan"), ("lockstep-exact", "lockstep --storage exact"),
        ("pan-HC4", "pan -DHC4"), ("lockstep-fingerprint", "lockstep --storage fingerprint"),
        ("lockstep-hash-compact", "lockstep --storage hash-compact"),
        ("pan-BITSTATE", "pan -DBITSTATE -w27"),
        ("lockstep-bitstate", "lockstep --storage bitstate --bitstate-bits 27")]
R = {key: run(key) for key, _ in ROWS}
NAMES = dict(ROWS)
pan, hc4 = R["pan-plain"], R["pan-HC4"]

def counts(r, key):
    """Against plain pan, which keeps every state."""
    if key == "pan-plain":
        return ""
    if not (r["ok"] and pan["ok"]):
        return "—"
    return judge.counts(pan, r, lockstep=key.startswith("lockstep"))

# Each row's like-for-like: pan's variants and lockstep's exact store (both
# keep every state whole) against plain pan, lockstep's fingerprint and
# hash-compact stores against hash compaction, bitstate against bitstate.
ALIKE = {"pan-HC4": "pan-plain", "pan-BITSTATE": "pan-plain", "lockstep-exact": "pan-plain",
         "lockstep-fingerprint": "pan-HC4", "lockstep-hash-compact": "pan-HC4",
         "lockstep-bitstate": "pan-BITSTATE"}

def ratio(key, r):
    if key not in ALIKE:
        return ""
    den = R[ALIKE[key]]
    if r["cpu_s"] is None or not den["cpu_s"]:
        return "—"
    return f"{r['cpu_s'] / den['cpu_s']:.2f}× {NAMES[ALIKE[key]]}"

def target(key, r):
    if key != "lockstep-fingerprint" or env["n"] != "5":
        return ""
    if not (r["ok"] and hc4["ok"]):
        return "not measured (a run failed or timed out)"
    search = r["s"] / hc4["s"] if r["s"] and hc4["s"] else None
    return judge.against_hc4(r["cpu_s"], hc4["cpu_s"], judge.SAME_SPACE_VS_HC4,
                             counts(r, key) == "✓", search)

def f(v, fmt):
    return "—" if v is None else format(v, fmt)

L = ["# Visited-state storage, lockstep and SPIN", ""]
L.append(f"Measured {env['date']} by `bench/storage.sh --n {env['n']}`: {env['host']}; lockstep "
         f"{env['lockstep']}; {env['spin']}. Load average (1, 5, 15 min): {env['load_start']} at the "
         f"start, {env['load_end']} at the end. The same-space GETSET search, N={env['n']}, horizon 16, "
         f"3 rounds (`--no-symmetry --no-por`; pan `-DSAFETY -w26`), each run alone and pinned to "
         f"CPU {env['pin']} (`taskset`), once.")
L.append("")
L.append("**CPU s** is user + system time of the whole process from `/usr/bin/time -v` (resolution "
         "0.01 s; pan's includes clearing its hash table, about 1.8 s at `-w26`), **wall s** the "
         "same process's elapsed time, **search s** the tool's own (pan's `elapsed time`, lockstep's "
         "`elapsed_s`); RSS is the process's peak. = says whether the counts equal plain pan's, which "
         "keeps every state (lockstep counts one transition fewer: pan's step into the initial "
         "state), or how many states were missed. Table B/state is lockstep's visited table in bytes "
         "per stored state; expected missed its expected number of states taken for visited ones "
         "(`--json` `storage`). **CPU ratio** is of CPU seconds, against the like-for-like pan: "
         "plain pan for lockstep's exact store (both keep each state whole), pan's hash "
         "compaction (`-DHC4`) for lockstep's store of 96-bit fingerprints and "
         f"for hash-compact, pan's bitstate for bitstate, plain pan for pan's variants. Target (at N=5): lockstep "
         f"fingerprint ≤ {judge.SAME_SPACE_VS_HC4}× pan -DHC4 with counts equal.")
L.append("")
L.append("| run | states | transitions | = | CPU s | wall s | search s | RSS MB | table B/state | expected missed | CPU ratio | target |")
L.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
for key, name in ROWS:
    r = R[key]
    st = r["storage"]
    lockstep = key.startswith("lockstep")
    L.append("| " + " | ".join([
        name + ("" if r["ok"] else f" (failed or timed out, exit {r['rc']})"),
        f(r["states"], ","), f(r["transitions"], ","), counts(r, key),
        f(r["cpu_s"], ".2f"), f(r["wall_s"], ".2f"), f(r["s"], ".2f"), f(r["rss_mb"], ".0f"),
        f(st.get("bytes_per_state"), ".2f") if lockstep else "—",
        f(st.get("expected_omissions"), ".3g") if lockstep else "—",
        ratio(key, r), target(key, r),
    ]) + " |")
L.append("")

text = "\n".join(L)
open(out, "w").write(text)
print(text)
print(f"(written to {out})")
PY

#!/usr/bin/env bash
# SPIN and lockstep side by side, in one run, on the same lock models.
#
#   bench/spin_vs_lockstep.sh                full matrix: naive + getset, S and L, N=2..5
#   bench/spin_vs_lockstep.sh --quick        smoke run: S only, N<=4
#   bench/spin_vs_lockstep.sh --models "naive getset getset_unbounded" --sets L --ns "4 5"
#
# Options:
#   --quick             S parameter set only and N=2..4
#   --models LIST       any of: naive getset getset_unbounded   (default: "naive getset")
#   --sets LIST         any of: S L                             (default: "S L")
#   --ns LIST           client counts, 1..5                     (default: "2 3 4 5")
#   --lockstep PATH     use this lockstep binary instead of building one
#   --build-dir DIR     where to build lockstep (default: <repo>/build-bench)
#   --rev REV           build this commit (git archive) instead of the working tree
#   --repeat K          run every search K times, SPIN's and lockstep's in turn, and
#                       report the medians (default 3; --quick: 1)
#   --cpu C             pin every search to CPU C with taskset (default 0), so that SPIN
#                       and lockstep run on the same core
#   --keep              keep the work dir (pan sources, logs, JSON reports)
# Environment:
#   TIMEOUT   per-run cap in seconds, for pan and for lockstep (default 120)
#   OUT       where the Markdown tables go (default bench/results/spin_vs_lockstep.md)
#   SPIN_DIR  the SPIN models (default <repo>/../shared/spin)
#
# For each model x parameter set x N it
#   1. compiles pan twice as shared/spin/run.sh does (spin -a, gcc -O2 -DSAFETY
#      -DMEMLIM=16000): plain, and with -DHC4 (hash compaction, 4 bytes a state: the
#      like-for-like figure for lockstep's store of 96-bit fingerprints), timing the
#      compiles on their own;
#   2. runs `./pan -m100000 -w20|-w26` (DFS, SPIN's partial-order reduction on, its
#      default), plain and -DHC4;
#   3. runs `lockstep explore` on the same model and parameters:
#      (a) --no-symmetry --no-por: the very state space pan searches;
#      (b) the default reductions (symmetry among identical clients, partial-order
#          reduction);
#      (c) for the naive model, --shortest (breadth-first violation hunting).
#   Steps 2 and 3 are repeated K times (--repeat), in turn, so that a machine whose speed
#   drifts slows both tools alike; the tables give the medians.
# Every run is under /usr/bin/time -v: the tables give CPU seconds (user + system) beside
# wall seconds, and every ratio is one of CPU seconds. Every pan/lockstep run is alone,
# one after the other, pinned to one core (pan uses one core; so does lockstep without
# --jobs).
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/scenario_set.sh"
. "$BENCH/deps.sh"
REPO=$(cd "$BENCH/.." && pwd)
TIMEOUT=${TIMEOUT:-120}
OUT=${OUT:-$BENCH/results/spin_vs_lockstep.md}
SPIN_DIR=${SPIN_DIR:-$REPO/../shared/spin}
MODELS="naive getset"
SETS="S L"
NS="2 3 4 5"
LOCKSTEP=""
BUILD_DIR="$REPO/build-bench"
REV=""
LOCKSTEP_LABEL=""
KEEP=0
REPEAT=3
CPU=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) SETS="S"; NS="2 3 4"; REPEAT=1 ;;
    --models) MODELS=$2; shift ;;
    --sets) SETS=$2; shift ;;
    --ns) NS=$2; shift ;;
    --lockstep) LOCKSTEP=$2; shift ;;
    --build-dir) BUILD_DIR=$2; shift ;;
    --rev) REV=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --cpu) CPU=$2; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "spin_vs_lockstep: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case $REPEAT in ''|*[!0-9]*|0) echo "spin_vs_lockstep: --repeat needs a positive whole number: $REPEAT" >&2; exit 2 ;; esac
for m in $MODELS; do
  case $m in naive|getset|getset_unbounded) ;; *) echo "spin_vs_lockstep: unknown model: $m" >&2; exit 2 ;; esac
done
for s in $SETS; do
  case $s in S|L) ;; *) echo "spin_vs_lockstep: unknown parameter set: $s (S or L)" >&2; exit 2 ;; esac
done
for n in $NS; do
  case $n in 1|2|3|4|5) ;; *) echo "spin_vs_lockstep: N must be 1..5 (the scenarios have 5 clients): $n" >&2; exit 2 ;; esac
done

# --- tools -------------------------------------------------------------------------------
bench_needs spin_vs_lockstep spin time gcc python3 timeout taskset
bench_pin spin_vs_lockstep "$CPU"

if [ ! -f "$SPIN_DIR/lock_core.pml" ]; then
  echo "spin_vs_lockstep: SPIN models not found: $SPIN_DIR/lock_core.pml" >&2
  echo "  expected shared/spin/ beside the repository (or set SPIN_DIR)" >&2
  exit 1
fi
SPIN_DIR=$(cd "$SPIN_DIR" && pwd)

# --- lockstep, Release, in a build dir of its own ---------------------------------------
if [ -z "$LOCKSTEP" ]; then
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$BUILD_DIR" "$REV"
else
  LOCKSTEP_LABEL="prebuilt $LOCKSTEP ($("$LOCKSTEP" --version 2>/dev/null | head -1))"
fi
[ -x "$LOCKSTEP" ] || { echo "spin_vs_lockstep: no lockstep binary at $LOCKSTEP" >&2; exit 1; }
LOCKSTEP=$(cd "$(dirname "$LOCKSTEP")" && pwd)/$(basename "$LOCKSTEP")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/spin_vs_lockstep.XXXXXX")
if [ "$KEEP" = 1 ]; then echo "work dir (kept): $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/pml" "$WORK/scen" "$WORK/logs" "$WORK/cx"
cp "$SPIN_DIR"/*.pml "$WORK/pml/"

# --- parameter sets (as in shared/spin/run.sh) ------------------------------------------
declare -A DEFS HASH MAXT ROUNDS
MAXT[S]=8;  ROUNDS[S]=1; HASH[S]=-w20
MAXT[L]=16; ROUNDS[L]=3; HASH[L]=-w26
for s in S L; do DEFS[$s]="-DT=2 -DMAXT=${MAXT[$s]} -DROUNDS=${ROUNDS[$s]}"; done
CFLAGS="-O2 -DSAFETY -DMEMLIM=16000"
PAN_DEPTH="-m100000"

declare -A SCEN
SCEN[naive]=setnx-naive
SCEN[getset]=getset-bounded
SCEN[getset_unbounded]=getset-unbounded

# The scenarios in scenarios/ are the S set; the L set is a copy with horizon 16, 3 rounds.
for m in $MODELS; do
  for s in $SETS; do
    scenario_set "$REPO/scenarios/${SCEN[$m]}.json" "$WORK/scen/$m.$s.json" "${MAXT[$s]}" "${ROUNDS[$s]}"
  done
done

LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
{ echo "spin=$(spin -V 2>&1 | head -1)"
  echo "gcc=$(gcc --version | head -1)"
  echo "host=$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -sr)"
  echo "cpu=$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
  echo "date=$(date -u +%FT%TZ)"
  echo "lockstep=$LOCKSTEP_LABEL"
  echo "timeout=$TIMEOUT"
  echo "repeat=$REPEAT"
  echo "pin=$CPU"
} > "$WORK/env.txt"

declare -A PAN_FLAGS
PAN_FLAGS[pan]=""
PAN_FLAGS[hc4]="-DHC4"

# compile_pan MODEL SET N VARIANT: pan (VARIANT pan: plain; hc4: -DHC4) in
# $WORK/build/ID.VARIANT; the compile's own /usr/bin/time report beside the logs
compile_pan() {
  local m=$1 s=$2 n=$3 v=$4 id="$1.$2.N$3"
  local b="$WORK/build/$id.$v" cflags="$CFLAGS ${PAN_FLAGS[$4]}"
  mkdir -p "$b"; cp "$WORK"/pml/*.pml "$b/"
  (
    cd "$b"
    /usr/bin/time -v -o "$WORK/logs/$id.$v.compile.time" \
      sh -c "spin -DN=$n ${DEFS[$s]} -a $m.pml > spin_a.log 2>&1 && gcc $cflags -o pan pan.c 2> gcc.log" ||
      { echo "spin -a or gcc failed: $id ($v)" >&2; cat spin_a.log gcc.log >&2 2>/dev/null; exit 1; }
  )
  echo "cmd=spin -DN=$n ${DEFS[$s]} -a $m.pml && gcc $cflags -o pan pan.c && ./pan $PAN_DEPTH ${HASH[$s]}" \
    > "$WORK/logs/$id.$v.meta"
}

# run_pan MODEL SET N VARIANT K: the K-th run of the compiled pan
run_pan() {
  local m=$1 s=$2 n=$3 v=$4 k=$5 id="$1.$2.N$3" rc=0
  (
    cd "$WORK/build/$id.$v"
    timeout -k 5 -s INT "$TIMEOUT" /usr/bin/time -v -o "$WORK/logs/$id.$v.r$k.time" \
      "${PIN[@]}" ./pan $PAN_DEPTH ${HASH[$s]} > "$WORK/logs/$id.$v.r$k.pan" 2>&1
  ) || rc=$?
  echo "rc=$rc" > "$WORK/logs/$id.$v.r$k.rc"
}

# run_lockstep MODEL SET N TAG K [FLAGS...]: the K-th run of one lockstep search
run_lockstep() {
  local m=$1 s=$2 n=$3 tag=$4 k=$5; shift 5
  local id="$m.$s.N$n" rc=0
  (
    cd "$WORK"
    timeout -k 5 -s INT "$TIMEOUT" /usr/bin/time -v -o "$WORK/logs/$id.$tag.r$k.time" \
      "${PIN[@]}" "$LOCKSTEP" explore "$WORK/scen/$m.$s.json" --clients "$n" "$@" --json --out "$WORK/cx" \
      > "$WORK/logs/$id.$tag.r$k.json" 2> "$WORK/logs/$id.$tag.r$k.err"
  ) || rc=$?
  { echo "rc=$rc"; echo "cmd=lockstep explore ${SCEN[$m]}.json[$s] --clients $n $* --json"; } > "$WORK/logs/$id.$tag.r$k.meta"
}

echo "SPIN: $(spin -V 2>&1 | head -1); lockstep: $LOCKSTEP; per-run cap ${TIMEOUT}s;" \
  "$REPEAT run(s) of each search on CPU $CPU"
for s in $SETS; do
  for m in $MODELS; do
    for n in $NS; do
      id="$m.$s.N$n"
      printf '%-28s compile...' "$id"
      compile_pan "$m" "$s" "$n" pan
      compile_pan "$m" "$s" "$n" hc4
      for ((k = 1; k <= REPEAT; k++)); do
        printf ' pan...'
        run_pan "$m" "$s" "$n" pan "$k"
        printf ' pan -DHC4...'
        run_pan "$m" "$s" "$n" hc4 "$k"
        printf ' same...'
        run_lockstep "$m" "$s" "$n" same "$k" --no-symmetry --no-por
        printf ' reduced...'
        run_lockstep "$m" "$s" "$n" red "$k"
        if [ "$m" = naive ]; then
          printf ' shortest...'
          run_lockstep "$m" "$s" "$n" bfs "$k" --shortest
        fi
      done
      rm -rf "$WORK/build/$id.pan" "$WORK/build/$id.hc4"
      echo " done"
      echo "$id" >> "$WORK/runs.txt"
    done
  done
done

echo "load=$LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end" >> "$WORK/env.txt"
mkdir -p "$(dirname "$OUT")"
python3 - "$WORK" "$OUT" "$BENCH" <<'PY'
import json, os, re, statistics, sys

work, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import judge, time_v

logs = os.path.join(work, "logs")
env = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(work, "env.txt")) if "=" in l)
runs = [l.strip() for l in open(os.path.join(work, "runs.txt")) if l.strip()]
repeat = int(env.get("repeat", "1"))

# What the rows are called; pan and pan -DHC4 run for every model, --shortest for naive.
NAMES = {"pan": "pan", "hc4": "pan -DHC4", "same": "lockstep same space",
         "red": "lockstep reduced", "bfs": "lockstep --shortest"}

def read(path):
    try:
        return open(path, errors="replace").read()
    except FileNotFoundError:
        return ""

def meta(path):
    return dict(l.rstrip("\n").split("=", 1) for l in read(path).splitlines() if "=" in l)

def with_time(r, path):
    t = time_v.parse(path) or {}
    r["cpu"], r["wall"], r["mb"] = t.get("cpu_s"), t.get("wall_s"), t.get("rss_mb")
    return r

def pan_one(id_, v, k):
    pan = read(f"{logs}/{id_}.{v}.r{k}.pan")
    r = {"rc": int(meta(f"{logs}/{id_}.{v}.r{k}.rc").get("rc", "0") or 0)}
    def num(rx):
        m = re.search(rx, pan)
        return int(float(m.group(1))) if m else None
    r["states"] = num(r"([\d.e+]+) states, stored")
    r["transitions"] = num(r"([\d.e+]+) transitions \(= stored\+matched\)")
    m = re.search(r"pan: elapsed time ([\d.e+-]+) seconds", pan)
    r["s"] = float(m.group(1)) if m else None
    if r["rc"] in (124, 130) or "Interrupted" in pan:
        r["result"] = "TIMEOUT"
    elif "assertion violated" in pan or re.search(r"errors: [1-9]", pan):
        r["result"] = "violation"
    elif re.search(r"errors: 0", pan):
        r["result"] = "safe"
    else:
        r["result"] = "error"
    return with_time(r, f"{logs}/{id_}.{v}.r{k}.time")

def lockstep_one(id_, tag, k):
    rc = int(meta(f"{logs}/{id_}.{tag}.r{k}.meta").get("rc", "0") or 0)
    r = with_time({"rc": rc, "states": None, "transitions": None, "s": None},
                  f"{logs}/{id_}.{tag}.r{k}.time")
    try:
        j = json.loads(read(f"{logs}/{id_}.{tag}.r{k}.json"))
    except ValueError:
        j = None
    if j is None:
        r["result"] = "TIMEOUT" if rc in (124, 130, 137) else f"error (rc {rc})"
        return r
    r["states"], r["transitions"], r["s"] = j.get("states"), j.get("transitions"), j.get("elapsed_s")
    r["result"] = j.get("verdict", "?")
    cx = j.get("counterexample") or {}
    r["found_steps"], r["shortest"] = cx.get("found_steps"), cx.get("steps")
    return r

def median(rs, key):
    xs = [x[key] for x in rs]
    return statistics.median(xs) if None not in xs else None

def combine(rs):
    """The runs of one search: their counts and verdict (the same in every run, or the
    result says they are not), the medians of the times and memory, the range of CPU s."""
    r = dict(rs[0])
    for x in rs[1:]:
        if (x["states"], x["transitions"], x["result"]) != (rs[0]["states"], rs[0]["transitions"], rs[0]["result"]):
            r["result"] = f"runs differ ({rs[0]['result']}, then {x['result']})"
    for key in ("s", "cpu", "wall", "mb"):
        r[key] = median(rs, key)
    cpus = [x["cpu"] for x in rs]
    r["cpu_range"] = (min(cpus), max(cpus)) if None not in cpus and len(rs) > 1 else None
    return r

def search(id_, tag):
    if tag in ("pan", "hc4"):
        r = combine([pan_one(id_, tag, k) for k in range(1, repeat + 1)])
        c = time_v.parse(f"{logs}/{id_}.{tag}.compile.time") or {}
        r["compile"] = (c.get("cpu_s"), c.get("wall_s"))
        return r
    return combine([lockstep_one(id_, tag, k) for k in range(1, repeat + 1)])

def f_int(v):
    return "—" if v is None else f"{v:,}"

def f_s(v):
    if v is None:
        return "—"
    if v == 0:
        return "<0.01"
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}" if v < 10 else f"{v:.1f}"

def f_cpu(r):
    if r["cpu"] is None:
        return "—"
    text = f"{r['cpu']:.2f}"
    if r.get("cpu_range"):
        lo, hi = r["cpu_range"]
        text += f" ({lo:.2f}–{hi:.2f})"
    return text

def f_time_v(v):
    """Seconds as /usr/bin/time -v resolves them."""
    return "—" if v is None else f"{v:.2f}"

def f_mb(v):
    return "—" if v is None else f"{v:.1f}"

def cpu_ratio(num, den):
    """num's CPU s / den's; None where either is missing or den is below the 0.01 s
    that /usr/bin/time resolves."""
    if num["cpu"] is None or den["cpu"] is None or den["cpu"] < 0.01:
        return None
    return num["cpu"] / den["cpu"]

def f_ratio(q, den):
    if q is None:
        return "n/a (< 0.01 CPU s)" if den["cpu"] is not None and den["cpu"] < 0.01 else "—"
    return judge.ratio_text(q)

def target(model, pset, n, tag, r, R):
    """The aim this row is judged by, "" if it has none."""
    if n != "5":
        return ""
    pan, hc = R["pan"], R["hc4"]
    if model == "getset" and pset == "L" and tag in ("same", "red"):
        if r["result"] != pan["result"] or hc["result"] != pan["result"]:
            return f"not measured ({r['result']}; pan {pan['result']}; pan -DHC4 {hc['result']})"
        search = r["s"] / hc["s"] if r["s"] and hc["s"] else None
        if tag == "same":
            return judge.against_hc4(r["cpu"], hc["cpu"], judge.SAME_SPACE_VS_HC4,
                                     judge.counts(pan, r, lockstep=True) == "✓", search)
        return judge.against_hc4(r["cpu"], hc["cpu"], judge.REDUCED_VS_HC4, None, search)
    if model == "naive" and tag in ("same", "red", "bfs"):
        return judge.naive_found(r["s"], r["result"])
    return ""

rows, targets = [], []
for id_ in runs:
    model, pset, n = id_.split(".")
    n = n[1:]
    tags = ["pan", "hc4", "same", "red"] + (["bfs"] if model == "naive" else [])
    R = {tag: search(id_, tag) for tag in tags}
    rows.append((model, pset, n, R))

L = []
L.append("# SPIN vs lockstep")
L.append("")
L.append(f"Measured {env.get('date','?')} by `bench/spin_vs_lockstep.sh`: {env.get('spin','?')}; "
         f"{env.get('gcc','?')}; {env.get('host','?')} ({env.get('cpu','?')}); "
         f"lockstep {env.get('lockstep','?')}. Per-run cap {env.get('timeout','?')} s. "
         f"Load average (1, 5, 15 min): {env.get('load','?')}. "
         f"Every search ran {repeat} time(s), SPIN's and lockstep's in turn, each pinned to "
         f"CPU {env.get('pin','?')} (`taskset`); times and MB are the medians.")
L.append("")
L.append("SPIN: `./pan -m100000 -w20` (S) or `-w26` (L), DFS, POR on (default), compiled plain "
         "and with `-DHC4` (hash compaction: 4 bytes a state, the like-for-like of lockstep's "
         "96-bit fingerprints). lockstep: `lockstep explore` on the same model; *same space* = "
         "`--no-symmetry --no-por`, *reduced* = default reductions (symmetry, POR), *--shortest* = "
         "breadth-first violation hunting. "
         "**CPU s** is user + system time of the whole process from `/usr/bin/time -v` "
         "(resolution 0.01 s; with the range over the runs), **wall s** the same process's "
         "elapsed time, **search s** the tool's own search time (pan's `elapsed time`, "
         "lockstep's `elapsed_s`); MB is max RSS. **Every ratio is of CPU seconds**: this "
         "row's CPU s / pan's, and / pan -DHC4's (≤ 1.0: no slower); "
         "where both runs take under about 0.1 CPU s the ratio compares start-up costs "
         "(loading, pan clearing its hash table), not searches. pan's CPU s includes setting "
         "up its hash table, about 1.8 s at `-w26` (the L rows; see L N=2, whose search takes "
         "under 0.01 s); the targets give the ratio of search times beside. "
         "= is ✓ when lockstep's same-space states equal pan's *states stored* and its "
         "transitions + 1 equal pan's *transitions* (for a violation, where both stop at the "
         "first one: transitions equal), and for pan -DHC4 when its counts equal plain pan's "
         "(otherwise the states hash compaction missed). For a violation, states and "
         "transitions count what was searched up to the first violation.")
L.append("")
L.append(f"Targets: GETSET L N=5, same space: CPU s ≤ {judge.SAME_SPACE_VS_HC4}× pan -DHC4's with "
         f"counts equal to pan's; reduced: ≤ {judge.REDUCED_VS_HC4}× pan -DHC4's; naive N=5: the "
         f"violation found in under {judge.NAIVE_FOUND_MS} ms of search time (below what CPU "
         "seconds resolve).")
L.append("")
hdr = ["model", "params", "N", "run", "result", "states", "transitions", "=",
       "CPU s", "wall s", "search s", "MB", "CPU / pan", "CPU / pan -DHC4", "target"]
L.append("| " + " | ".join(hdr) + " |")
L.append("|" + "|".join("---:" if h in ("states", "transitions", "CPU s", "wall s", "search s",
                                        "MB", "CPU / pan", "CPU / pan -DHC4") else "---"
                        for h in hdr) + "|")
for model, pset, n, R in rows:
    sp, hc = R["pan"], R["hc4"]
    for tag, r in R.items():
        result = r["result"]
        if tag != "pan" and result != sp["result"]:
            result = f"{result} (pan: {sp['result']})"
        eq = judge.counts(sp, r, lockstep=True) if tag == "same" else \
            judge.counts(sp, r, lockstep=False) if tag == "hc4" else ""
        vs_pan = "" if tag == "pan" else f_ratio(cpu_ratio(r, sp), sp)
        vs_hc4 = "" if tag in ("pan", "hc4") else f_ratio(cpu_ratio(r, hc), hc)
        aim = target(model, pset, n, tag, r, R)
        if aim:
            targets.append(f"- {model} {pset} N={n}, {NAMES[tag]}: {aim} (CPU s {f_cpu(r)}; "
                           f"pan -DHC4 {f_cpu(hc)}, pan {f_cpu(sp)})")
        L.append("| " + " | ".join([
            model, pset, n, NAMES[tag], result, f_int(r["states"]), f_int(r["transitions"]), eq,
            f_cpu(r), f_time_v(r["wall"]), f_s(r["s"]), f_mb(r["mb"]), vs_pan, vs_hc4, aim,
        ]) + " |")
L.append("")
L.append("SPIN's compile time (`spin -a` + `gcc -O2`), not included above:")
L.append("")
L.append("| model | params | N | pan CPU s | pan wall s | pan -DHC4 CPU s | pan -DHC4 wall s |")
L.append("|---|---|---|---:|---:|---:|---:|")
for model, pset, n, R in rows:
    (pc, pw), (hc, hw) = R["pan"]["compile"], R["hc4"]["compile"]
    L.append(f"| {model} | {pset} | {n} | {f_time_v(pc)} | {f_time_v(pw)} | {f_time_v(hc)} | {f_time_v(hw)} |")
L.append("")
if targets:
    L.append("Targets:")
    L.append("")
    L.extend(targets)
    L.append("")

text = "\n".join(L)
open(out, "w").write(text)
print()
print(text)
print(f"(written to {out})")
PY

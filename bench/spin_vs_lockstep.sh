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
#   --repeat K          run every search K times, alternating SPIN and lockstep, and
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
#   1. compiles pan as shared/spin/run.sh does (spin -a, gcc -O2 -DSAFETY -DMEMLIM=16000),
#      timing the compile on its own;
#   2. runs `./pan -m100000 -w20|-w26` (DFS, SPIN's partial-order reduction on, its default)
#      under /usr/bin/time -v;
#   3. runs `lockstep explore` on the same model and parameters twice, under /usr/bin/time -v:
#      (a) --no-symmetry --no-por: the very state space pan searches;
#      (b) the default reductions (symmetry among identical clients, partial-order reduction).
#   Steps 2 and 3 are repeated K times (--repeat), in turn, so that a machine whose speed
#   drifts slows both tools alike; the tables give the medians.
# Every pan/lockstep invocation runs alone, one after the other, pinned to one core (pan
# uses one core; so does lockstep without --jobs).
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/scenario_set.sh"
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
case $CPU in ''|*[!0-9]*) echo "spin_vs_lockstep: --cpu needs a CPU number: $CPU" >&2; exit 2 ;; esac
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
need=()
command -v spin >/dev/null 2>&1 || need+=(spin)
[ -x /usr/bin/time ] || need+=(time)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v timeout >/dev/null 2>&1 || need+=(coreutils)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "spin_vs_lockstep: needs these Debian packages: ${need[*]}" >&2
    echo "install them with: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

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
  echo "cpu=$CPU"
} > "$WORK/env.txt"
PIN=(taskset -c "$CPU")
"${PIN[@]}" true 2>/dev/null || { echo "spin_vs_lockstep: cannot pin to CPU $CPU (taskset -c $CPU)" >&2; exit 2; }

now() { date +%s.%N; }

# compile_pan MODEL SET N: pan for this model in $WORK/build/ID, its compile time in the meta file
compile_pan() {
  local m=$1 s=$2 n=$3 id="$1.$2.N$3"
  local b="$WORK/build/$id"
  mkdir -p "$b"; cp "$WORK"/pml/*.pml "$b/"
  (
    cd "$b"
    local t0 t1
    t0=$(now)
    spin -DN="$n" ${DEFS[$s]} -a "$m.pml" > spin_a.log 2>&1 || { echo "spin -a failed: $id" >&2; cat spin_a.log >&2; exit 1; }
    gcc $CFLAGS -o pan pan.c 2> gcc.log || { echo "gcc failed: $id" >&2; cat gcc.log >&2; exit 1; }
    t1=$(now)
    { echo "compile_s=$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")"
      echo "cmd=spin -DN=$n ${DEFS[$s]} -a $m.pml && gcc $CFLAGS -o pan pan.c && ./pan $PAN_DEPTH ${HASH[$s]}"
    } > "$WORK/logs/$id.spin.meta"
  )
}

# run_pan MODEL SET N K: the K-th run of the compiled pan
run_pan() {
  local m=$1 s=$2 n=$3 k=$4 id="$1.$2.N$3" rc=0
  (
    cd "$WORK/build/$id"
    timeout -k 5 -s INT "$TIMEOUT" /usr/bin/time -v -o "$WORK/logs/$id.spin.r$k.time" \
      "${PIN[@]}" ./pan $PAN_DEPTH ${HASH[$s]} > "$WORK/logs/$id.spin.r$k.pan" 2>&1
  ) || rc=$?
  echo "rc=$rc" > "$WORK/logs/$id.spin.r$k.rc"
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
      compile_pan "$m" "$s" "$n"
      for ((k = 1; k <= REPEAT; k++)); do
        printf ' spin...'
        run_pan "$m" "$s" "$n" "$k"
        printf ' same...'
        run_lockstep "$m" "$s" "$n" same "$k" --no-symmetry --no-por
        printf ' reduced...'
        run_lockstep "$m" "$s" "$n" red "$k"
        if [ "$m" = naive ]; then
          printf ' shortest...'
          run_lockstep "$m" "$s" "$n" bfs "$k" --shortest
        fi
      done
      rm -rf "$WORK/build/$id"
      echo " done"
      echo "$id" >> "$WORK/runs.txt"
    done
  done
done

echo "load=$LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end" >> "$WORK/env.txt"
mkdir -p "$(dirname "$OUT")"
python3 - "$WORK" "$OUT" <<'PY'
import json, os, re, statistics, sys

work, out = sys.argv[1], sys.argv[2]
logs = os.path.join(work, "logs")
env = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(work, "env.txt")) if "=" in l)
runs = [l.strip() for l in open(os.path.join(work, "runs.txt")) if l.strip()]
repeat = int(env.get("repeat", "1"))

def read(path):
    try:
        return open(path, errors="replace").read()
    except FileNotFoundError:
        return ""

def meta(path):
    return dict(l.rstrip("\n").split("=", 1) for l in read(path).splitlines() if "=" in l)

def max_rss_mb(path):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", read(path))
    return int(m.group(1)) / 1024 if m else None

def spin_one(id_, k):
    pan = read(f"{logs}/{id_}.spin.r{k}.pan")
    r = {"rc": int(meta(f"{logs}/{id_}.spin.r{k}.rc").get("rc", "0") or 0)}
    def num(rx):
        m = re.search(rx, pan)
        return int(float(m.group(1))) if m else None
    r["states"] = num(r"([\d.e+]+) states, stored")
    r["transitions"] = num(r"([\d.e+]+) transitions \(= stored\+matched\)")
    m = re.search(r"pan: elapsed time ([\d.e+-]+) seconds", pan)
    r["s"] = float(m.group(1)) if m else None
    r["mb"] = max_rss_mb(f"{logs}/{id_}.spin.r{k}.time")
    if r["rc"] in (124, 130) or "Interrupted" in pan:
        r["result"] = "TIMEOUT"
    elif "assertion violated" in pan or re.search(r"errors: [1-9]", pan):
        r["result"] = "violation"
    elif re.search(r"errors: 0", pan):
        r["result"] = "safe"
    else:
        r["result"] = "error"
    m = re.search(r"at depth (\d+)", pan)
    r["depth"] = int(m.group(1)) if m else None
    return r

def lockstep_one(id_, tag, k):
    mt = meta(f"{logs}/{id_}.{tag}.r{k}.meta")
    rc = int(mt.get("rc", "0") or 0)
    r = {"rc": rc, "mb": max_rss_mb(f"{logs}/{id_}.{tag}.r{k}.time"),
         "states": None, "transitions": None, "s": None}
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

def combine(rs):
    """The runs of one search: their counts and verdict (the same in every run, or the
    result says they are not), the median time and memory, and the range of times."""
    r = dict(rs[0])
    for x in rs[1:]:
        if (x["states"], x["transitions"], x["result"]) != (r["states"], r["transitions"], rs[0]["result"]):
            r["result"] = f"runs differ ({rs[0]['result']}, then {x['result']})"
    ts = [x["s"] for x in rs]
    ms = [x["mb"] for x in rs if x["mb"] is not None]
    r["s"] = statistics.median(ts) if None not in ts else None
    r["range"] = (min(ts), max(ts)) if None not in ts and len(ts) > 1 else None
    r["mb"] = statistics.median(ms) if ms else None
    return r

def spin_run(id_):
    r = combine([spin_one(id_, k) for k in range(1, repeat + 1)])
    r["compile_s"] = float(meta(f"{logs}/{id_}.spin.meta").get("compile_s", "nan"))
    return r

def lockstep_run(id_, tag):
    return combine([lockstep_one(id_, tag, k) for k in range(1, repeat + 1)])

def spread(r):
    """ (min–max over the runs)" for a median of several."""
    if not r.get("range"):
        return ""
    lo, hi = r["range"]
    return f" ({f_s(lo)}–{f_s(hi)})"

def f_int(v):
    return "—" if v is None else f"{v:,}"

def f_s(v):
    if v is None:
        return "—"
    if v == 0:
        return "<0.01"
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}" if v < 10 else f"{v:.1f}"

def f_mb(v):
    return "—" if v is None else f"{v:.1f}"

def ratio(ls, sp):
    if ls is None or sp is None:
        return "—"
    if sp == 0:
        return "n/a (SPIN <0.01 s)"
    return f"{ls / sp:.2f}"

def same_space(sp, ls):
    """pan counts one transition more than lockstep on a finished search (its initial
    'transition' into the first state); on a search stopped by an assertion it does not
    count the violating transition, which lockstep counts, so the totals are equal."""
    if sp["states"] is None or ls["states"] is None or "TIMEOUT" in (sp["result"], ls["result"]):
        return "—"
    if sp["result"] == "violation":
        ok = sp["states"] == ls["states"] and sp["transitions"] == ls["transitions"]
    else:
        ok = sp["states"] == ls["states"] and sp["transitions"] == ls["transitions"] + 1
    return "✓" if ok else "✗"

rows, comp = [], []
for id_ in runs:
    model, pset, n = id_.split(".")
    sp, same, red = spin_run(id_), lockstep_run(id_, "same"), lockstep_run(id_, "red")
    rows.append((model, pset, n[1:], sp, same, red))
    comp.append((model, pset, n[1:], sp["compile_s"]))

L = []
L.append("# SPIN vs lockstep")
L.append("")
L.append(f"Measured {env.get('date','?')} by `bench/spin_vs_lockstep.sh`: {env.get('spin','?')}; "
         f"{env.get('gcc','?')}; {env.get('host','?')} ({env.get('cpu','?')}); "
         f"lockstep {env.get('lockstep','?')}. Per-run cap {env.get('timeout','?')} s. "
         f"Load average (1, 5, 15 min): {env.get('load','?')}. "
         f"Every search ran {repeat} time(s), SPIN's and lockstep's in turn, each pinned to "
         f"CPU {env.get('cpu','?')} (`taskset`); times and MB are the medians.")
L.append("")
L.append("SPIN: `./pan -m100000 -w20` (S) or `-w26` (L), DFS, POR on (default). "
         "lockstep: `lockstep explore` on the same model; *same space* = `--no-symmetry --no-por`, "
         "*reduced* = default reductions (symmetry, POR). "
         "Times are search times (pan's `elapsed time`, which has a resolution of 0.01 s; lockstep's `elapsed_s`); MB is max RSS "
         "(`/usr/bin/time -v`); ratio = lockstep s / SPIN s (≤ 1.0: lockstep is no slower). "
         "= is ✓ when lockstep's states equal pan's *states stored* and its transitions + 1 equal "
         "pan's *transitions* (for a violation, where both stop at the first one: transitions equal). "
         "For a violation, states and transitions count what was searched up to the first violation, "
         "and the time is the time to find it.")
L.append("")
hdr = ["model", "params", "N", "result",
       "SPIN states", "SPIN transitions", "SPIN s", "SPIN MB",
       "lockstep states", "lockstep transitions", "lockstep s", "lockstep MB", "ratio", "=",
       "reduced states", "reduced transitions", "reduced s", "reduced MB", "reduced ratio"]
L.append("| " + " | ".join(hdr) + " |")
L.append("|" + "|".join("---" if i < 4 or h == "=" else "---:" for i, h in enumerate(hdr)) + "|")
for model, pset, n, sp, same, red in rows:
    res = sp["result"]
    if same["result"] not in (res,) or red["result"] not in (res,):
        res = f"SPIN {sp['result']} / lockstep {same['result']} / reduced {red['result']}"
    L.append("| " + " | ".join([
        model, pset, n, res,
        f_int(sp["states"]), f_int(sp["transitions"]), f_s(sp["s"]), f_mb(sp["mb"]),
        f_int(same["states"]), f_int(same["transitions"]), f_s(same["s"]), f_mb(same["mb"]),
        ratio(same["s"], sp["s"]), same_space(sp, same),
        f_int(red["states"]), f_int(red["transitions"]), f_s(red["s"]), f_mb(red["mb"]),
        ratio(red["s"], sp["s"]),
    ]) + " |")
L.append("")
L.append("SPIN's compile time (`spin -a` + `gcc -O2`), not included above:")
L.append("")
L.append("| model | params | N | compile s |")
L.append("|---|---|---|---:|")
for model, pset, n, c in comp:
    L.append(f"| {model} | {pset} | {n} | {c:.2f} |")
L.append("")

# Targets
tg = []
for model, pset, n, sp, same, red in rows:
    if model == "getset" and pset == "L" and n == "5":
        # The issue's aims: the same space no slower than SPIN; the default
        # reductions in a fiftieth of SPIN's time.
        for name, r, aim in (("same space", same, 1.0), ("reduced", red, 0.02)):
            if r["s"] is not None and sp["s"]:
                q = r["s"] / sp["s"]
                tg.append(f"- GETSET L N=5, {name}: {f_s(r['s'])}{spread(r)} s vs SPIN "
                          f"{f_s(sp['s'])}{spread(sp)} s, "
                          f"ratio {q:.3f}: {'met' if q <= aim else 'missed'} (target ≤ {aim})")
            else:
                tg.append(f"- GETSET L N=5, {name}: not measured ({r['result']}, SPIN {sp['result']})")
    if model == "naive" and n == "5":
        bfs = lockstep_run(f"{model}.{pset}.N{n}", "bfs")
        for name, r in (("same space", same), ("reduced", red), ("--shortest (breadth-first)", bfs)):
            if r["s"] is not None and r["result"] == "violation":
                ms = r["s"] * 1000
                tg.append(f"- naive {pset} N=5, {name}: violation found in {ms:.1f} ms "
                          f"({r.get('found_steps')} steps, {r.get('shortest')} shortest; "
                          f"SPIN {f_s(sp['s'])} s): {'met' if ms < 10 else 'missed'} (target < 10 ms)")
            else:
                tg.append(f"- naive {pset} N=5, {name}: {r['result']}")
if tg:
    L.append("Targets:")
    L.append("")
    L.extend(tg)
    L.append("")

text = "\n".join(L)
open(out, "w").write(text)
print()
print(text)
print(f"(written to {out})")
PY

#!/usr/bin/env bash
# Simulated steps per CPU second of lockstep on one core, the speed-up of --jobs 2,
# and the cost of a Boost.Fiber switch on this machine (the ceiling), in one run.
#
#   bench/throughput.sh                 everything (about 2-4 minutes)
#   bench/throughput.sh --quick         smaller configurations, one repetition
#
# Options:
#   --lockstep PATH     use this lockstep binary instead of building one
#   --build-dir DIR     where to build lockstep (default: <repo>/build-bench)
#   --rev REV           build this commit (git archive) instead of the working tree
#   --repeat K          repetitions of each measurement; the median is reported (default 3)
#   --executions E      executions of the sampled (random, pct) runs (default 20000)
#   --no-fiber          skip the Boost.Fiber switch microbenchmark
#   --cpu C             pin the one-core runs to CPU C with taskset (default 0); the
#                       --jobs 2 runs are not pinned
# Environment:
#   OUT   where the Markdown table goes (default bench/results/throughput.md)
#
# A step is one simulated action: one Redis command of one client (with the client's
# local code up to its next command) or one clock tick. lockstep's JSON report counts
# them as "transitions". Every run is under /usr/bin/time -v; steps per CPU second =
# transitions / the process's CPU seconds (user + system), the rate of one core however
# busy the machine is. The table gives wall seconds and lockstep's search time beside.
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/scenario_set.sh"
. "$BENCH/deps.sh"
REPO=$(cd "$BENCH/.." && pwd)
OUT=${OUT:-$BENCH/results/throughput.md}
LOCKSTEP=""
BUILD_DIR="$REPO/build-bench"
REV=""
LOCKSTEP_LABEL=""
REPEAT=3
EXECUTIONS=20000
QUICK=0
FIBER=1
CPU=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; REPEAT=1; EXECUTIONS=2000 ;;
    --lockstep) LOCKSTEP=$2; shift ;;
    --build-dir) BUILD_DIR=$2; shift ;;
    --rev) REV=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --executions) EXECUTIONS=$2; shift ;;
    --no-fiber) FIBER=0 ;;
    --cpu) CPU=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "throughput: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

case $REPEAT in ''|*[!0-9]*|0) echo "throughput: --repeat needs a positive whole number: $REPEAT" >&2; exit 2 ;; esac
bench_needs throughput python3 taskset time g++
bench_pin throughput "$CPU"

if [ -z "$LOCKSTEP" ]; then
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$BUILD_DIR" "$REV"
else
  LOCKSTEP_LABEL="prebuilt $LOCKSTEP ($("$LOCKSTEP" --version 2>/dev/null | head -1))"
fi
[ -x "$LOCKSTEP" ] || { echo "throughput: no lockstep binary at $LOCKSTEP" >&2; exit 1; }
LOCKSTEP=$(cd "$(dirname "$LOCKSTEP")" && pwd)/$(basename "$LOCKSTEP")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/throughput.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/scen" "$WORK/cx" "$WORK/runs"

# The scenarios in scenarios/ are SPIN's S parameter set (T=2, MAXT=8, ROUNDS=1);
# L (MAXT=16, ROUNDS=3) is a copy with a longer horizon and three rounds.
for m in getset-bounded setnx-naive; do
  cp "$REPO/scenarios/$m.json" "$WORK/scen/$m.S.json"
  scenario_set "$REPO/scenarios/$m.json" "$WORK/scen/$m.L.json" 16 3
done

HAS_JOBS=0
"$LOCKSTEP" explore --help 2>&1 | grep -q -- '--jobs' && HAS_JOBS=1
HAS_STRATEGY=0
"$LOCKSTEP" explore --help 2>&1 | grep -q -- '--strategy' && HAS_STRATEGY=1

# measure NAME CPUS -- lockstep explore args...   (K repetitions, one JSON report each)
measure() {
  local name=$1 cpus=$2; shift 3
  local i pin=()
  [ "$cpus" = 1 ] && pin=("${PIN[@]}")
  printf '%-34s' "$name"
  for ((i = 1; i <= REPEAT; i++)); do
    # Exit 0, 1 and 3 are verdicts (safe, violation, bound); anything else,
    # or no report, is a failed run and fails the bench: a median over the
    # runs that happened to work would misreport.
    local rc=0
    ( cd "$WORK" && /usr/bin/time -v -o "$WORK/runs/$name.$i.time" \
        "${pin[@]}" "$LOCKSTEP" explore "$@" --json --out "$WORK/cx" ) \
      > "$WORK/runs/$name.$i.json" 2> "$WORK/runs/$name.$i.err" || rc=$?
    if { [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "$rc" != 3 ]; } || [ ! -s "$WORK/runs/$name.$i.json" ]; then
      echo >&2
      echo "throughput: $name, run $i failed (exit $rc): lockstep explore $*" >&2
      head -5 "$WORK/runs/$name.$i.err" >&2
      exit 1
    fi
    printf ' %d' "$i"
  done
  echo "$name|$*" >> "$WORK/runs.txt"
  echo
}

LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
# What every run's CPU seconds include besides its search: starting the process.
printf '%-34s' "start-up (lockstep --version)"
for ((i = 1; i <= 3; i++)); do
  /usr/bin/time -v -o "$WORK/runs/startup.$i.time" "${PIN[@]}" "$LOCKSTEP" --version > /dev/null
  printf ' %d' "$i"
done
echo
S="$WORK/scen"
if [ "$QUICK" = 1 ]; then
  measure dfs.same.getset.S.N5 1 -- "$S/getset-bounded.S.json" --clients 5 --no-symmetry --no-por
  measure dfs.same.getset.L.N3 1 -- "$S/getset-bounded.L.json" --clients 3 --no-symmetry --no-por
  measure dfs.reduced.getset.L.N4 1 -- "$S/getset-bounded.L.json" --clients 4
  JOBS_ARGS=("$S/getset-bounded.L.json" --clients 3 --no-symmetry --no-por)
else
  measure dfs.same.getset.S.N5 1 -- "$S/getset-bounded.S.json" --clients 5 --no-symmetry --no-por
  measure dfs.same.getset.L.N4 1 -- "$S/getset-bounded.L.json" --clients 4 --no-symmetry --no-por
  measure dfs.reduced.getset.L.N5 1 -- "$S/getset-bounded.L.json" --clients 5
  measure dfs.same.naive.L.N5 1 -- "$S/setnx-naive.L.json" --clients 5 --no-symmetry --no-por
  JOBS_ARGS=("$S/getset-bounded.L.json" --clients 4 --no-symmetry --no-por)
fi
if [ "$HAS_STRATEGY" = 1 ]; then
  measure random.getset.S.N5 1 -- "$S/getset-bounded.S.json" --clients 5 --strategy random --executions "$EXECUTIONS" --seed 1
  measure pct.getset.S.N5 1 -- "$S/getset-bounded.S.json" --clients 5 --strategy pct --executions "$EXECUTIONS" --seed 1
fi
if [ "$HAS_JOBS" = 1 ]; then
  measure jobs1.same.getset 1 -- "${JOBS_ARGS[@]}" --jobs 1
  measure jobs2.same.getset 2 -- "${JOBS_ARGS[@]}" --jobs 2
  if [ "$QUICK" = 0 ]; then
    measure jobs1.reduced.getset.L.N5 1 -- "$S/getset-bounded.L.json" --clients 5 --jobs 1
    measure jobs2.reduced.getset.L.N5 2 -- "$S/getset-bounded.L.json" --clients 5 --jobs 2
  fi
fi

# The ceiling: one Boost.Fiber switch, measured here with g++ -O2.
FIBER_JSON=""
if [ "$FIBER" = 1 ]; then
  cat > "$WORK/fiber_switch.cc" <<'CC'
// Cost of a context switch on this machine, in CPU time and wall time.
//  - fiber_yield: two Boost.Fiber fibers on one thread hand control to each other with
//    this_fiber::yield(); one yield = one switch through the fiber scheduler.
//  - context_switch: a bare boost::context::fiber resumed and suspended; one resume or
//    one suspend = one switch (no scheduler).
#include <boost/context/fiber.hpp>
#include <boost/fiber/all.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <utility>

namespace ctx = boost::context;
using clk = std::chrono::steady_clock;

struct Cost {
  double cpu_ns, wall_ns;  // per switch
};

// Times f(), which makes `switches` switches: the process's CPU time (std::clock,
// microseconds on Linux) and the wall time.
template <class F>
static Cost Timed(double switches, F f) {
  std::clock_t c0 = std::clock();
  auto t0 = clk::now();
  f();
  double wall = std::chrono::duration<double>(clk::now() - t0).count();
  double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  return {cpu * 1e9 / switches, wall * 1e9 / switches};
}

static Cost fiber_yield(long rounds) {
  auto body = [rounds] {
    for (long i = 0; i < rounds; ++i) boost::this_fiber::yield();
  };
  return Timed(2.0 * rounds, [&] {
    boost::fibers::fiber a(body), b(body);
    a.join();
    b.join();
  });
}

static Cost context_switch(long rounds) {
  ctx::fiber f{[rounds](ctx::fiber&& caller) {
    for (long i = 0; i < rounds; ++i) caller = std::move(caller).resume();
    return std::move(caller);
  }};
  Cost c = Timed(2.0 * rounds, [&] {
    for (long i = 0; i < rounds; ++i) f = std::move(f).resume();
  });
  f = std::move(f).resume();  // let it finish
  return c;
}

int main(int argc, char** argv) {
  long rounds = argc > 1 ? std::atol(argv[1]) : 2000000;
  fiber_yield(rounds / 10);  // warm up
  context_switch(rounds / 10);
  Cost best_y{1e9, 1e9}, best_c{1e9, 1e9};
  for (int k = 0; k < 5; ++k) {
    Cost y = fiber_yield(rounds), c = context_switch(rounds);
    if (y.cpu_ns < best_y.cpu_ns) best_y = y;
    if (c.cpu_ns < best_c.cpu_ns) best_c = c;
  }
  std::printf(
      "{\"fiber_yield_ns\": %.2f, \"fiber_yield_wall_ns\": %.2f, "
      "\"context_switch_ns\": %.2f, \"context_switch_wall_ns\": %.2f}\n",
      best_y.cpu_ns, best_y.wall_ns, best_c.cpu_ns, best_c.wall_ns);
}
CC
  if g++ -O2 -std=c++17 "$WORK/fiber_switch.cc" -o "$WORK/fiber_switch" -lboost_fiber -lboost_context 2> "$WORK/fiber.err"; then
    printf '%-34s' "boost.fiber switch"
    FIBER_JSON=$("${PIN[@]}" "$WORK/fiber_switch")
    echo " $FIBER_JSON"
  else
    echo "fiber microbenchmark did not compile (needs libboost-fiber-dev):" >&2
    cat "$WORK/fiber.err" >&2
  fi
fi

{ echo "date=$(date -u +%FT%TZ)"
  echo "host=$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -sr)"
  echo "cpu=$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
  echo "lockstep=$LOCKSTEP_LABEL"
  echo "load=$LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end"
  echo "repeat=$REPEAT"
  echo "has_jobs=$HAS_JOBS"
  echo "fiber=$FIBER_JSON"
  echo "pin=$CPU"
} > "$WORK/env.txt"

mkdir -p "$(dirname "$OUT")"
python3 - "$WORK" "$OUT" "$BENCH" <<'PY'
import json, os, statistics, sys

work, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import judge, time_v

env = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(work, "env.txt")) if "=" in l)
runs = [l.rstrip("\n").split("|", 1) for l in open(os.path.join(work, "runs.txt")) if l.strip()]
repeat = int(env["repeat"])

def load(name):
    """Each run's JSON report with its /usr/bin/time figures (cpu_s, wall_s) added."""
    res = []
    for i in range(1, repeat + 1):
        try:
            j = json.load(open(f"{work}/runs/{name}.{i}.json"))
        except (OSError, ValueError):
            continue
        j.update(time_v.parse(f"{work}/runs/{name}.{i}.time") or {})
        res.append(j)
    return res

def med(xs):
    return statistics.median(xs) if xs and None not in xs else None

def rate(j):
    """Steps per CPU second; None below the 0.01 s that /usr/bin/time resolves."""
    return j["transitions"] / j["cpu_s"] if j.get("cpu_s") else None

R = {}
for name, args in runs:
    js = load(name)
    rates = [rate(j) for j in js]
    R[name] = {
        "args": args,
        "s": med([j.get("elapsed_s") for j in js]),
        "cpu": med([j.get("cpu_s") for j in js]),
        "wall": med([j.get("wall_s") for j in js]),
        "rate": med(rates),
        "rates": rates if None not in rates else [],
        "transitions": js[0]["transitions"] if js else None,
        "states": js[0]["states"] if js else None,
    }

startups = [t["cpu_s"] for t in (time_v.parse(f"{work}/runs/startup.{i}.time") for i in (1, 2, 3)) if t]
startup = statistics.median(startups) if startups else None

def M(v):
    return "—" if v is None else f"{v / 1e6:.2f} M"

def S(v, digits=2):
    return "—" if v is None else f"{v:.{digits}f}"

L = ["# lockstep throughput", ""]
L.append(f"Measured {env['date']} by `bench/throughput.sh`: {env['host']} ({env['cpu']}); "
         f"lockstep {env['lockstep']}; load average (1, 5, 15 min) {env['load']}. Each figure is the median of {repeat} run(s) "
         f"(min–max in brackets); one-core runs are pinned with `taskset -c {env['pin']}`. "
         "A step is one Redis command of one client or one clock tick (`transitions` in "
         "lockstep's JSON report). **CPU s** is user + system time of the whole process from "
         "`/usr/bin/time -v` (resolution 0.01 s), **wall s** its elapsed time, **search s** "
         "lockstep's `elapsed_s`; **steps per CPU s** = transitions / CPU s, so a busy machine "
         "does not lower it; starting the process counts against it ("
         + (f"{startup:.2f} CPU s, the median of three `lockstep --version`" if startup is not None else "not measured")
         + f"), so the aim is judged on runs of at least {judge.STEPS_MIN_CPU_S:g} CPU s. "
         "S = T 2, horizon 8, 1 round; L = T 2, horizon 16, 3 rounds.")
L.append("")
L.append(f"| run | command (lockstep explore …) | states | steps | CPU s | wall s | search s | steps per CPU s | ≥ {judge.STEPS_PER_CPU_S / 1e6:g} M a core |")
L.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
for name, args in runs:
    if name.startswith("jobs"):
        continue
    r = R[name]
    short = " ".join(a if not a.endswith(".json") else os.path.basename(a) for a in args.split())
    if r["states"] is None:
        L.append(f"| {name} | `{short}` | — | — | — | — | — | — | failed |")
        continue
    rng = f" ({min(r['rates'])/1e6:.2f}–{max(r['rates'])/1e6:.2f})" if len(r["rates"]) > 1 else ""
    aim = judge.steps_per_cpu_s(r["rate"], r["cpu"])
    L.append(f"| {name} | `{short}` | {r['states']:,} | {r['transitions']:,} | {S(r['cpu'])} | "
             f"{S(r['wall'])} | {S(r['s'], 3)} | {M(r['rate'])}{rng} | {aim} |")
L.append("")

fib = env.get("fiber", "")
if fib:
    f = json.loads(fib)
    y, c = f["fiber_yield_ns"], f["context_switch_ns"]
    L.append(f"Ceiling on this machine (`g++ -O2`, Boost.Fiber/Boost.Context, pinned to one core, best of 5 "
             f"by CPU time): a `boost::this_fiber::yield()` between two fibers costs **{y:.1f} ns** of CPU "
             f"({f['fiber_yield_wall_ns']:.1f} ns wall; ≈ {1e3 / y:.1f} M switches per CPU second); a bare "
             f"`boost::context::fiber` switch costs **{c:.1f} ns** ({f['context_switch_wall_ns']:.1f} ns wall; "
             f"≈ {1e3 / c:.1f} M/s). A step that resumes a client's fiber and returns to the scheduler "
             f"costs two yields, ≈ {2 * y:.0f} ns: a simulator that runs a fiber for every step is bounded "
             f"at ≈ {1e3 / (2 * y):.1f} M steps per CPU second on this machine.")
    L.append("")

L.append("## --jobs 2")
L.append("")
if env.get("has_jobs") != "1":
    L.append("Speed-up with --jobs 2: not available (this lockstep has no --jobs option).")
else:
    L.append("--jobs 1 is pinned to one core, --jobs 2 is not. The speed-up is the one ratio of "
             "wall time, search s with --jobs 1 / with --jobs 2: what the second core buys. "
             "CPU / --jobs 1 is the CPU seconds both threads spent over those of one: what "
             "sharing the search costs.")
    L.append("")
    L.append("| configuration | jobs | states | steps | CPU s | wall s | search s | speed-up (search s) | CPU / --jobs 1 | same states |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    pairs = [(a, a.replace("jobs1", "jobs2")) for a, _ in runs if a.startswith("jobs1")]
    for a, b in pairs:
        ra, rb = R[a], R.get(b)
        cfg = " ".join(x if not x.endswith(".json") else os.path.basename(x) for x in ra["args"].split() if x not in ("--jobs", "1"))
        for r, j in ((ra, 1), (rb, 2)):
            if r is None or r["s"] is None:
                L.append(f"| `{cfg}` | {j} | — | — | — | — | — | — | — | — |")
                continue
            sp = ra["s"] / r["s"] if ra["s"] and r["s"] else None
            cpu = r["cpu"] / ra["cpu"] if ra["cpu"] and r["cpu"] is not None else None
            same = "—" if j == 1 else ("✓" if r["states"] == ra["states"] else f"✗ ({r['states']:,} vs {ra['states']:,})")
            L.append(f"| `{cfg}` | {j} | {r['states']:,} | {r['transitions']:,} | {S(r['cpu'])} | "
                     f"{S(r['wall'])} | {S(r['s'], 3)} | {'—' if sp is None else f'{sp:.2f}×'} | "
                     f"{'—' if cpu is None else f'{cpu:.2f}'} | {same} |")
L.append("")

text = "\n".join(L)
open(out, "w").write(text)
print()
print(text)
print(f"(written to {out})")
PY

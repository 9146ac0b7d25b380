#!/usr/bin/env bash
# The search without a horizon beside bounded searches, per scenario: the
# verdict and distinct states with --horizon none, then with horizons 8, 16,
# 24, 32 and 40 ticks past the clock's start. The all-time verdict should
# equal the bounded verdict once it has stabilised; the table says whether
# it does. Scenarios the loader refuses without a horizon are listed so.
# Each cell gives the search's CPU seconds (user + system, /usr/bin/time -v)
# and wall seconds beside its verdict and states.
#
#   bench/all_time.sh [--lockstep PATH] [--clients N] [--timeout S]
#
# Options:
#   --lockstep PATH   the binary (default: <repo>/build/lockstep; build the release preset)
#   --clients N       keep the first N contending clients of each scenario (default 3)
#   --timeout S       seconds per search before it is reported as "timeout" (default 60)
# Environment:
#   OUT   where the Markdown table goes (default bench/results/all_time.md)
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
OUT=${OUT:-$BENCH/results/all_time.md}
LOCKSTEP="$REPO/build/lockstep"
CLIENTS=3
TIMEOUT=60

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    --clients) CLIENTS=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --help|-h) usage; exit 0 ;;
    *) echo "all_time.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
bench_needs all_time.sh time python3 timeout
if [ ! -x "$LOCKSTEP" ]; then
  echo "all_time.sh: $LOCKSTEP is missing: cmake --preset release && cmake --build --preset release" >&2
  exit 2
fi

# Counterexamples go to a folder of our own, removed on every exit.
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# "verdict[:property] states (CPU s / wall s)" of one search, or "refused" / "timeout".
search() {
  local out rc
  set +e
  out=$(timeout "$TIMEOUT" /usr/bin/time -v -o "$SCRATCH/time" "$LOCKSTEP" explore "$@" --json --out "$SCRATCH" 2>/dev/null)
  rc=$?
  set -e
  if [ $rc -eq 124 ]; then echo "timeout"; return; fi
  if [ $rc -eq 2 ]; then echo "refused"; return; fi
  python3 -c '
import json, sys
sys.path.insert(0, sys.argv[2])
import time_v
d = json.load(sys.stdin)
t = time_v.parse(sys.argv[1])
v = d["verdict"]
ce = d.get("counterexample") or {}
if ce.get("violation"): v += ":" + ce["violation"]["property"]
print(v, "{:,}".format(d["states"]), "({:.2f} / {:.2f} s)".format(t["cpu_s"], t["wall_s"]))' "$SCRATCH/time" "$BENCH" <<<"$out"
}

mkdir -p "$(dirname "$OUT")"
{
  echo "Each search: verdict, distinct states (CPU s / wall s)."
  echo
  echo "| scenario | all time | h+8 | h+16 | h+24 | h+32 | h+40 | agrees |"
  echo "|---|---|---|---|---|---|---|---|"
  for f in "$REPO"/scenarios/*.json; do
    name=$(basename "$f" .json)
    start=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["clock"].get("start", 0))' "$f")
    # At most --clients contenders (a scenario with fewer keeps its own).
    contenders=$(python3 -c 'import json,sys; print(sum(1 for c in json.load(open(sys.argv[1]))["clients"] if not c.get("crashed")))' "$f")
    keep=()
    if [ "$contenders" -gt "$CLIENTS" ]; then keep=(--clients "$CLIENTS"); fi
    all=$(search "$f" "${keep[@]}" --horizon none)
    row="| $name | $all |"
    prev=""; stable=""
    for h in 8 16 24 32 40; do
      b=$(search "$f" "${keep[@]}" --horizon $((start + h)))
      row="$row $b |"
      v=${b%% *}
      if [ -z "$stable" ] && [ "$v" = "$prev" ] && [ "$v" != timeout ] && [ "$v" != refused ]; then
        stable=$v
      fi
      prev=$v
    done
    if [ "$all" = refused ]; then
      agrees="-"
    elif [ "$prev" = refused ]; then
      agrees="liveness: no bounded search"
    elif [ -z "$stable" ]; then
      agrees="not stable"
    elif [ "${all%% *}" = "$stable" ]; then
      agrees="yes"
    else
      agrees="NO"
    fi
    echo "$row $agrees |"
  done
} | tee "$OUT"

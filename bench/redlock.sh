#!/usr/bin/env bash
# Redlock's two searches that did not end: `redlock-safe` for all time
# (--horizon none, two clients, three instances), and `redlock-safe` with a
# third client at its own horizon 6. Each row: the strategy, the verdict
# line, the distinct states, the whole process's peak resident size, CPU
# seconds and wall seconds (/usr/bin/time -v), on one pinned core. With
# --vs, a second binary's row follows each row, so two builds are compared
# side by side in one run.
#
#   bench/redlock.sh [--lockstep PATH] [--vs PATH] [--cpu N] [--timeout S]
#
# Options:
#   --lockstep PATH   the binary (default: <repo>/build/lockstep; build the release preset)
#   --vs PATH         a second binary to run beside it (e.g. an older build)
#   --cpu N           the core to pin to (default 0)
#   --timeout S       seconds per search before it is reported as "timeout" (default 120)
# Environment:
#   OUT   where the Markdown table goes (default bench/results/redlock.md)
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
. "$BENCH/binaries.sh"
OUT=${OUT:-$BENCH/results/redlock.md}
LOCKSTEP="$REPO/build/lockstep"
VS=""
CPU=0
TIMEOUT=120

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    --vs) VS=$2; shift ;;
    --cpu) CPU=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --help|-h) usage; exit 0 ;;
    *) echo "redlock.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
bench_needs redlock.sh time python3 timeout taskset
bench_binaries redlock.sh "$LOCKSTEP" ${VS:+"$VS"}

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# One row: BINARY, a title, then the arguments of explore.
row() {
  local bin=$1 title=$2 rc
  shift 2
  set +e
  timeout --signal=INT "$TIMEOUT" /usr/bin/time -v -o "$SCRATCH/time" taskset -c "$CPU" \
    "$bin" explore "$@" --out "$SCRATCH/cx" > "$SCRATCH/out.txt" 2>/dev/null
  rc=$?
  set -e
  python3 -c '
import re, sys
sys.path.insert(0, sys.argv[2])
import time_v
t = time_v.parse(sys.argv[1])
text = open(sys.argv[3]).read()
strategy = re.search(r"strategy (\w+)", text)
states = re.search(r"([\d,]+) distinct states", text)
verdict = next((l.split(":")[0] for l in text.splitlines()
                if l.startswith(("SAFE", "VIOLATION", "INCOMPLETE"))), "?")
if sys.argv[6] in ("124", "130") or "interrupted" in text:
    verdict = "stopped at " + sys.argv[7] + " s"
print("| {} | {} | {} | {} | {} | {:.0f} | {:.1f} / {:.1f} |".format(
    sys.argv[4], sys.argv[5], strategy.group(1) if strategy else "?",
    verdict, states.group(1) if states else "?", t["rss_mb"], t["cpu_s"], t["wall_s"]))' \
    "$SCRATCH/time" "$BENCH" "$SCRATCH/out.txt" "$title" "$(label "$bin")" "$rc" "$TIMEOUT"
}

python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["clients"].append({"name": "C3", "algorithm": "redlock"})
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$REPO/scenarios/redlock-safe.json" "$SCRATCH/redlock-3.json"

mkdir -p "$(dirname "$OUT")"
{
  echo "redlock-safe (3 instances, ttl 5, retry 3), default reductions, one core (taskset -c $CPU), at most $TIMEOUT s a search."
  echo "$(nproc) cores, $(uname -sr); binaries: $LOCKSTEP ($("$LOCKSTEP" --version | head -1))${VS:+, $VS ($("$VS" --version | head -1))}."
  echo
  echo "| search | binary | strategy | verdict | states | peak RSS MB | CPU s / wall s |"
  echo "|---|---|---|---|---|---|---|"
  for bin in "$LOCKSTEP" ${VS:+"$VS"}; do
    row "$bin" "2 clients, all time" "$REPO/scenarios/redlock-safe.json" --horizon none
  done
  for bin in "$LOCKSTEP" ${VS:+"$VS"}; do
    row "$bin" "2 clients, all time, depth first" "$REPO/scenarios/redlock-safe.json" --horizon none --strategy dfs
  done
  for bin in "$LOCKSTEP" ${VS:+"$VS"}; do
    row "$bin" "3 clients, horizon 6" "$SCRATCH/redlock-3.json"
  done
} | tee "$OUT"

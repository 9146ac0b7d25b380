#!/usr/bin/env bash
# Memory at long horizons: GETSET (SPIN's parameters, 3 rounds) with 3 and 5
# clients at horizons 16, 64 and 256, the default reductions. Each row: the
# distinct states, the whole process's peak resident size and that size a
# stored state, the visited table's and the clients' automata's shares (as
# `--json` "memory" reports them), CPU seconds and wall seconds
# (/usr/bin/time -v), on one pinned core. With --vs, a second binary's row
# follows each row, so two builds are compared side by side in one run.
#
#   bench/automata_memory.sh [--lockstep PATH] [--vs PATH] [--cpu N] [--timeout S]
#
# Options:
#   --lockstep PATH   the binary (default: <repo>/build/lockstep; build the release preset)
#   --vs PATH         a second binary to run beside it (e.g. an older build)
#   --cpu N           the core to pin to (default 0)
#   --timeout S       seconds per search before it is reported as "timeout" (default 300)
# Environment:
#   OUT   where the Markdown table goes (default bench/results/automata_memory.md)
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
. "$BENCH/binaries.sh"
. "$BENCH/scenario_set.sh"
OUT=${OUT:-$BENCH/results/automata_memory.md}
LOCKSTEP="$REPO/build/lockstep"
VS=""
CPU=0
TIMEOUT=300

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    --vs) VS=$2; shift ;;
    --cpu) CPU=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --help|-h) usage; exit 0 ;;
    *) echo "automata_memory.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
bench_needs automata_memory.sh time python3 timeout taskset
bench_binaries automata_memory.sh "$LOCKSTEP" ${VS:+"$VS"}

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# One row of the table for BINARY on the scenario at HORIZON with N clients.
row() {
  local bin=$1 horizon=$2 n=$3 rc
  set +e
  timeout "$TIMEOUT" /usr/bin/time -v -o "$SCRATCH/time" taskset -c "$CPU" \
    "$bin" explore "$SCRATCH/getset-$horizon.json" --clients "$n" --json --out "$SCRATCH/cx" \
    > "$SCRATCH/out.json" 2>/dev/null
  rc=$?
  set -e
  if [ $rc -eq 124 ]; then echo "| $n | $horizon | $(label "$bin") | timeout | | | | | |"; return; fi
  python3 -c '
import json, sys
sys.path.insert(0, sys.argv[2])
import time_v
d = json.load(open(sys.argv[3]))
t = time_v.parse(sys.argv[1])
m = d["memory"]
rss = t["rss_mb"] * 2**20
mb = lambda b: "{:.1f}".format(b / 2**20)
print("| {} | {} | {} | {:,} | {} | {:.0f} | {} | {} | {:.2f} / {:.2f} |".format(
    sys.argv[5], sys.argv[4], sys.argv[6], d["states"], mb(rss), rss / d["states"],
    mb(m["table_bytes"]), mb(m["automata_bytes"]), t["cpu_s"], t["wall_s"]))' \
    "$SCRATCH/time" "$BENCH" "$SCRATCH/out.json" "$horizon" "$n" "$(label "$bin")"
}

for h in 16 64 256; do scenario_set "$REPO/scenarios/getset-bounded.json" "$SCRATCH/getset-$h.json" "$h" 3; done
mkdir -p "$(dirname "$OUT")"
{
  echo "GETSET, 3 rounds, default reductions, one core (taskset -c $CPU)."
  echo "$(nproc) cores, $(uname -sr); binaries: $LOCKSTEP ($("$LOCKSTEP" --version | head -1))${VS:+, $VS ($("$VS" --version | head -1))}."
  echo
  echo "| clients | horizon | binary | states | peak RSS MB | RSS B/state | table MB | automata MB | CPU s / wall s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for n in 3 5; do
    for h in 16 64 256; do
      [ "$n" = 5 ] && [ "$h" = 256 ] && continue  # hours, not minutes
      row "$LOCKSTEP" "$h" "$n"
      [ -z "$VS" ] || row "$VS" "$h" "$n"
    done
  done
} | tee "$OUT"

#!/usr/bin/env bash
# The distributed search beside the threaded one, in one run: the same
# scenario with --jobs 1, --jobs 2, --strategy distributed (one rank, no
# MPI) and mpirun -np K --distributed for K = 1..4, with the distinct
# states (they must be equal), CPU seconds (user + system of every thread
# and rank, from /usr/bin/time -v) beside wall seconds and lockstep's search
# time, peak resident memory of the largest process, and the states and
# bytes each rank sent to the others per distinct state.
#
#   bench/distributed.sh                       getset-delay-2 (649,836 states)
#   bench/distributed.sh --scenario FILE       another scenario
#   bench/distributed.sh --lockstep PATH       use this binary instead of building one
#   bench/distributed.sh --same-space N        same-space GETSET L (getset-bounded, horizon 16,
#                                              3 rounds, N clients, --no-symmetry; --no-por for dfs)
#   bench/distributed.sh --ranks "2 4"         the mpirun rows (default 1 2 3 4)
#
# On a 2-core machine -np 3 and 4 are oversubscribed: they show how the
# traffic grows with the ranks, not a speed-up. Environment: TIMEOUT (s,
# default 300).
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
TIMEOUT=${TIMEOUT:-300}
SCENARIO=$REPO/scenarios/getset-delay-2.json
LOCKSTEP=""
SAME_SPACE=""
RANKS="1 2 3 4"
while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) SCENARIO=$2; shift ;;
    --lockstep) LOCKSTEP=$2; shift ;;
    --same-space) SAME_SPACE=$2; shift ;;
    --ranks) RANKS=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "distributed: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$SCENARIO" ] || { echo "distributed: no scenario $SCENARIO" >&2; exit 2; }
bench_needs distributed time python3 timeout
command -v mpirun >/dev/null || { echo "distributed: needs mpirun (.ci/install-deps)" >&2; exit 1; }
if [ -z "$LOCKSTEP" ]; then
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$REPO/build-bench"
fi
mpi=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)  # Open MPI refuses root otherwise

WORK=$(mktemp -d "${TMPDIR:-/tmp}/distributed.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DFS_FLAGS=()
DIST_FLAGS=()
if [ -n "$SAME_SPACE" ]; then
  . "$BENCH/scenario_set.sh"
  scenario_set "$REPO/scenarios/getset-bounded.json" "$WORK/getset-same-space.json" 16 3
  SCENARIO=$WORK/getset-same-space.json
  DIST_FLAGS=(--clients "$SAME_SPACE" --no-symmetry)
  DFS_FLAGS=("${DIST_FLAGS[@]}" --no-por)
fi

if [ -n "$SAME_SPACE" ]; then
  echo "same-space GETSET L, N=$SAME_SPACE (horizon 16, 3 rounds, no symmetry, no POR); $(nproc) cores"
else
  echo "$(basename "$SCENARIO"), default reductions; $(nproc) cores"
fi
echo "lockstep $("$LOCKSTEP" --version 2>/dev/null | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %11s %7s %7s %9s %7s %11s %11s\n' run states "CPU s" "wall s" "search s" "RSS MB" "sent/state" "bytes/state"
row() {
  local label=$1; shift
  timeout "$TIMEOUT" /usr/bin/time -v -o "$WORK/time" "$@" --json --out "$WORK/cx" \
    > "$WORK/report.json" 2> "$WORK/err" || true
  python3 - "$WORK/report.json" "$label" "$WORK/time" "$BENCH" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
import time_v
try:
    j = json.load(open(sys.argv[1]))
except ValueError:
    print(f"{sys.argv[2]:<34} failed or timed out"); sys.exit()
t = time_v.parse(sys.argv[3]) or {}
d = j.get("distributed", {})
states = j["states"] or 1
sent = f"{d['states_sent'] / states:.2f}" if d else "—"
sent_bytes = f"{d['bytes_sent'] / states:.1f}" if d else "—"
print(f"{sys.argv[2]:<34} {j['states']:>11,} {t.get('cpu_s', 0):>7.2f} {t.get('wall_s', 0):>7.2f} "
      f"{j['elapsed_s']:>9.2f} {t.get('rss_mb') or 0:>7.0f} {sent:>11} {sent_bytes:>11}")
PY
}
row "--jobs 1" "$LOCKSTEP" explore "$SCENARIO" "${DFS_FLAGS[@]}" --jobs 1
row "--jobs 2" "$LOCKSTEP" explore "$SCENARIO" "${DFS_FLAGS[@]}" --jobs 2
row "--strategy distributed (no MPI)" "$LOCKSTEP" explore "$SCENARIO" "${DIST_FLAGS[@]}" --strategy distributed
for k in $RANKS; do
  row "mpirun -np $k --distributed" "${mpi[@]}" -np "$k" "$LOCKSTEP" explore "$SCENARIO" "${DIST_FLAGS[@]}" --distributed
done
echo "CPU s: every thread and rank (/usr/bin/time counts mpirun's children); RSS: the largest process."

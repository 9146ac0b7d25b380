#!/usr/bin/env bash
# Random back-off, the scheduler's and weighed: the split vote of
# examples/lua/redlock-split-vote.json (SET NX PX on every master, a split
# vote unlocks all and waits retry_delay plus a jitter drawn with
# lock.draw) for all time, with 2 or 3 clients on 3 or 4 masters, each
# jitter once as the scheduler's choice and once with --probabilistic.
# Each row gives deadlock_free's verdict, the safety search's distinct
# states and the liveness graph's, and the CPU seconds (user + system,
# /usr/bin/time -v) beside the wall seconds of the whole run.
#
#   bench/probabilistic.sh [--lockstep PATH] [--timeout S]
#
# Options:
#   --lockstep PATH   the binary (default: <repo>/build/lockstep; build the release preset)
#   --timeout S       seconds per search before it is reported as "timeout" (default 120)
# Environment:
#   OUT   where the Markdown table goes (default bench/results/probabilistic.md)
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
OUT=${OUT:-$BENCH/results/probabilistic.md}
LOCKSTEP="$REPO/build/lockstep"
TIMEOUT=120

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --help|-h) usage; exit 0 ;;
    *) echo "probabilistic.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
bench_needs probabilistic.sh time python3 timeout
if [ ! -x "$LOCKSTEP" ]; then
  echo "probabilistic.sh: $LOCKSTEP is missing: cmake --preset release && cmake --build --preset release" >&2
  exit 2
fi

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# The variant: CLIENTS MASTERS JITTER, written to $SCRATCH/case.json.
variant() {
  python3 - "$REPO" "$SCRATCH/case.json" "$1" "$2" "$3" <<'EOF'
import json, sys
repo, out, clients, masters, jitter = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
doc = json.load(open(repo + "/examples/lua/redlock-split-vote.json"))
one = doc["clients"][0]
one["algorithm"]["lua"] = repo + "/examples/lua/redlock_retry.lua"
one["algorithm"]["settings"]["jitter"] = jitter
doc["clients"] = [dict(json.loads(json.dumps(one)), name="C%d" % (k + 1)) for k in range(clients)]
doc["servers"] = [{"name": chr(ord("A") + k)} for k in range(masters)]
doc.pop("expect")
json.dump(doc, open(out, "w"))
EOF
}

# "verdict | states | liveness states | CPU s | wall s" of one search.
search() {
  local out rc
  set +e
  out=$(timeout "$TIMEOUT" /usr/bin/time -v -o "$SCRATCH/time" "$LOCKSTEP" explore "$SCRATCH/case.json" "$@" --json --out "$SCRATCH" 2>/dev/null)
  rc=$?
  set -e
  if [ $rc -eq 124 ]; then echo "timeout | | | | "; return; fi
  python3 -c '
import json, sys
sys.path.insert(0, sys.argv[2])
import time_v
r = json.loads(sys.argv[1])
t = time_v.parse(sys.argv[3]) or {"cpu_s": 0, "wall_s": 0}
c = r.get("counterexample") or {}
v = r["verdict"] + (":" + c["violation"]["property"] if c.get("violation") else "")
live = r.get("liveness", {}).get("states", "-")
states = "{:,}".format(r["states"])
live = "{:,}".format(live) if live != "-" else live
print("%s | %s | %s | %.2f | %.2f" % (v, states, live, t["cpu_s"], t["wall_s"]))
' "$out" "$BENCH" "$SCRATCH/time"
}

{
  echo "# Random back-off: the scheduler's jitter and a weighed one"
  echo
  echo "By \`bench/probabilistic.sh\` at commit \`$(git -C "$REPO" rev-parse --short HEAD)\`, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)."
  echo
  echo "| clients | masters | jitter | draws | verdict | states | liveness graph | CPU s | wall s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for shape in "2 4" "2 3" "3 3"; do
    set -- $shape
    for jitter in 0 2; do
      variant "$1" "$2" "$jitter"
      echo "| $1 | $2 | 0-$jitter | the scheduler's | $(search) |"
      echo "| $1 | $2 | 0-$jitter | weighed | $(search --probabilistic) |"
    done
  done
} | tee "$OUT"

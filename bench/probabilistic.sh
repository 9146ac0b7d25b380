#!/usr/bin/env bash
# Random back-off, the scheduler's and weighed: the split vote of
# examples/lua/redlock-split-vote.json (node-redlock 4.2.0: a split vote
# unlocks all and waits retry_delay plus a jitter of -J to J-1 drawn with
# lock.draw) for all time, with 2 or 3 clients on 3 or 4 masters, each
# jitter once as the scheduler's choice and once with --probabilistic.
# Each row gives deadlock_free's verdict, the safety search's distinct
# states and the liveness graph's, and the CPU seconds (user + system,
# /usr/bin/time -v) beside the wall seconds of the whole run. Then the
# worst-case odds that every contender gives up, node-redlock 5.0.0-beta.2
# (node-redlock-5-split-vote.json) beside 4.2.0 with the same two retries
# (node-redlock-4-retries.json), on the same shapes: the odds graph's
# states and the least and greatest odds.
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

# The variant: CLIENTS MASTERS JITTER [SCENARIO], written to
# $SCRATCH/case.json (JITTER -: the scenario's own).
variant() {
  python3 - "$REPO" "$SCRATCH/case.json" "$1" "$2" "$3" "${4:-redlock-split-vote.json}" <<'EOF'
import json, sys
repo, out, clients, masters, jitter, name = sys.argv[1:7]
clients, masters = int(clients), int(masters)
doc = json.load(open(repo + "/examples/lua/" + name))
one = doc["clients"][0]
one["algorithm"]["lua"] = repo + "/examples/lua/" + one["algorithm"]["lua"]
if jitter != "-":
    one["algorithm"]["settings"]["jitter"] = int(jitter)
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
odds = r.get("odds", {})
if sys.argv[4] == "odds":
    gave_up = [o for o in odds.get("properties", []) if o["property"] == "some_contender_enters"]
    o = gave_up[0] if gave_up else {}
    live = "{:,}".format(odds["states"]) if "states" in odds else "-"
    print("%s | %s | %s | %s | %s | %.2f | %.2f" % (v, states, live, o.get("least_exact", "-"),
          o.get("greatest_exact", "-"), t["cpu_s"], t["wall_s"]))
else:
    print("%s | %s | %s | %.2f | %.2f" % (v, states, live, t["cpu_s"], t["wall_s"]))
' "$out" "$BENCH" "$SCRATCH/time" "${MODE:-liveness}"
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
      label=none
      [ "$jitter" = 0 ] || label="-$jitter to $((jitter - 1))"
      echo "| $1 | $2 | $label | the scheduler's | $(search) |"
      echo "| $1 | $2 | $label | weighed | $(search --probabilistic) |"
    done
  done
  echo
  echo "Every contender gives up (some_contender_enters), draws weighed: ttl 10, two retries 2 ticks apart with a jitter of -1 to 0."
  echo
  echo "| lock | clients | masters | verdict | states | odds graph | least | greatest | CPU s | wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for lock in "node-redlock 5.0.0-beta.2:node-redlock-5-split-vote.json" \
              "node-redlock 4.2.0:node-redlock-4-retries.json"; do
    for shape in "2 4" "2 3" "3 3"; do
      set -- $shape
      variant "$1" "$2" - "${lock#*:}"
      echo "| ${lock%%:*} | $1 | $2 | $(MODE=odds search) |"
    done
  done
} | tee "$OUT"

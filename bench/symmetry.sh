#!/usr/bin/env bash
# What symmetry saves, in one run: each scenario searched with the default
# reductions and with --no-symmetry, side by side.
#
#   bench/symmetry.sh                 the Redlock scenarios and two token locks
#   bench/symmetry.sh --lockstep PATH use this binary instead of building one
#   bench/symmetry.sh --rev HEAD      build a committed revision
#   bench/symmetry.sh --cpu 1         pin every search to CPU 1 (default 0)
#
# Columns: the interchangeable clients the report names, whether their
# tokens are renamed, the verdict, and distinct states, CPU seconds (user +
# system, from /usr/bin/time -v) and wall seconds with and without symmetry;
# the ratios of states and of CPU seconds. A violation stops each search
# where it is found, so its counts say how far the search went, not the size
# of the space. Environment: TIMEOUT (s per search, default 300), OUT (a file
# for the table).
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
. "$BENCH/deps.sh"
TIMEOUT=${TIMEOUT:-300}
LOCKSTEP=""
REV=""
BUILD_DIR="$REPO/build-bench"
CPU=0
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    --rev) REV=$2; shift ;;
    --build-dir) BUILD_DIR=$2; shift ;;
    --cpu) CPU=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "symmetry: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
bench_needs symmetry time python3 timeout taskset
bench_pin symmetry "$CPU"
if [ -z "$LOCKSTEP" ]; then
  # shellcheck source=build_lockstep.sh
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$BUILD_DIR" "$REV"
fi
[ -x "$LOCKSTEP" ] || { echo "symmetry: $LOCKSTEP is not an executable" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# SET NX PX with the script release at five clients, as the README measures it.
python3 - "$REPO/scenarios/set-px-script-safe.json" "$WORK/set-px-script-5.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "set-px-script-5"
d["clients"] = [{"name": "C%d" % (i + 1), "algorithm": "set-px-script"} for i in range(5)]
d.setdefault("clock", {})["horizon"] = 6
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY

# One search: "verdict states cpu_s wall_s interchangeable tokens_renamed".
search() {
  timeout -s INT "$TIMEOUT" /usr/bin/time -v -o "$WORK/time" "${PIN[@]}" \
    "$LOCKSTEP" explore "$@" --json --color never --out "$WORK/cx" > "$WORK/report.json" 2>/dev/null || true
  python3 - "$WORK/report.json" "$WORK/time" "$BENCH" <<'PY' || echo "error - - - - -"
import json, sys
sys.path.insert(0, sys.argv[3])
import time_v
j = json.load(open(sys.argv[1]))
t = time_v.parse(sys.argv[2])
r = j.get("reductions", {})
classes = " ".join(",".join(c) for c in r.get("interchangeable", [])) or "-"
print(j["verdict"], j["states"], "%.2f" % t["cpu_s"], "%.2f" % t["wall_s"], classes,
      "yes" if r.get("tokens_renamed") else "no")
PY
}

{
  echo "lockstep $("$LOCKSTEP" --version 2>/dev/null | head -1), one search at a time, pinned to CPU $CPU."
  echo "CPU s: user + system of the whole process (/usr/bin/time -v); ratios: --no-symmetry's over the default's."
  echo
  echo "| scenario | interchangeable | tokens renamed | verdict | states | CPU s | wall s | states, --no-symmetry | CPU s | wall s | states ratio | CPU ratio |"
  echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for f in "$REPO"/scenarios/redlock-*.json "$REPO/scenarios/set-px-script-safe.json" \
           "$WORK/set-px-script-5.json"; do
    read -r verdict states cpu wall classes renamed < <(search "$f")
    read -r plain_verdict plain plain_cpu plain_wall _ _ < <(search "$f" --no-symmetry)
    read -r ratio cpu_ratio < <(python3 -c "
import sys
def q(a, b):
    try:
        return '%.2f' % (float(b) / float(a))
    except (ValueError, ZeroDivisionError):
        return '-'
a, b, c, d = sys.argv[1:]
print(q(a, b), q(c, d))" "$states" "$plain" "$cpu" "$plain_cpu")
    # A search stopped by TIMEOUT says so beside its counts, and has no ratio.
    if [ "$plain_verdict" != "$verdict" ]; then plain="$plain ($plain_verdict)"; ratio="-"; cpu_ratio="-"; fi
    echo "| $(basename "$f" .json) | $classes | $renamed | $verdict | $states | $cpu | $wall | $plain | $plain_cpu | $plain_wall | $ratio | $cpu_ratio |"
  done
} | if [ -n "${OUT:-}" ]; then tee "$OUT"; else cat; fi

#!/usr/bin/env bash
# What a search of real lock libraries costs (examples/real-clients/): for
# each example scenario, the verdict, distinct states, transitions, how many
# times the client program was started, the search's seconds and
# transitions a second, and the whole command's wall time (the search, the
# shrinking and the vacuity check, each of which learns the clients again).
#
#   bench/real_clients.sh                 build lockstep, then measure
#   bench/real_clients.sh --lockstep PATH use this binary instead
#
# The starts are counted by a wrapper that appends a line to a file and
# then runs the example unchanged (Python's runpy, Node's require), in a
# copy of the scenario. The Node examples need .ci/install-deps's npm
# packages.
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
LOCKSTEP=""
REV=""
BUILD_DIR="$REPO/build-bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "real_clients: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$LOCKSTEP" ]; then
  # shellcheck source=build_lockstep.sh
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$BUILD_DIR" "$REV"
fi
[ -x "$LOCKSTEP" ] || { echo "real_clients: $LOCKSTEP is not an executable" >&2; exit 2; }
LOCKSTEP=$(realpath "$LOCKSTEP")

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/counting.py" <<PY
import os, runpy, sys
sys.path.insert(0, os.getcwd())
with open("$WORK/starts", "a") as f:
    f.write("x\n")
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
PY

cat > "$WORK/counting.js" <<JS
require("fs").appendFileSync("$WORK/starts", "x\\n");
process.argv.splice(1, 1);
require(require("path").resolve(process.argv[1]));
JS

printf '%-22s %-10s %7s %11s %7s %9s %12s %7s\n' scenario verdict states transitions starts search_s transitions/s wall_s
# Each as the README runs it: the stalls breadth first.
for run in redis-py-safe redis-py-stall:bfs redis-semaphore-safe redis-semaphore-stall:bfs \
    redlock-js-safe redlock-js-stall:bfs; do
  scenario=${run%%:*}
  strategy=dfs
  [ "$run" = "$scenario" ] || strategy=${run#*:}
  examples="$REPO/examples/real-clients"
  /usr/bin/python3 - "$examples/$scenario.json" "$WORK/$scenario.json" "$WORK" "$examples" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["clients"]:
    p = c["algorithm"]["process"]
    wrapper = "counting.js" if p["command"][0] == "node" else "counting.py"
    p["command"] = [p["command"][0], sys.argv[3] + "/" + wrapper] + p["command"][1:]
    p["cwd"] = sys.argv[4]
json.dump(doc, open(sys.argv[2], "w"))
PY
  : > "$WORK/starts"
  start=$(date +%s.%N)
  "$LOCKSTEP" explore "$WORK/$scenario.json" --allow-programs --strategy "$strategy" --json --out "$WORK/out" \
    > "$WORK/report.json" || true
  end=$(date +%s.%N)
  /usr/bin/python3 - "$WORK/report.json" "$scenario" "$(wc -l < "$WORK/starts")" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
states, transitions, seconds = r["states"], r["transitions"], r["elapsed_s"]
print("%-22s %-10s %7d %11d %7s %9.1f %12.1f %7.1f" % (
    sys.argv[2], r["verdict"], states, transitions, sys.argv[3], seconds,
    transitions / seconds if seconds else 0, float(sys.argv[5]) - float(sys.argv[4])))
PY
done

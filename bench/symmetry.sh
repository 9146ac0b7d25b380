#!/usr/bin/env bash
# What symmetry saves, in one run: each scenario searched with the default
# reductions and with --no-symmetry, side by side.
#
#   bench/symmetry.sh                 the Redlock scenarios and two token locks
#   bench/symmetry.sh --lockstep PATH use this binary instead of building one
#   bench/symmetry.sh --rev HEAD      build a committed revision
#
# Columns: the interchangeable clients the report names, whether their
# tokens are renamed, the verdict, and distinct states and seconds with and
# without symmetry. A violation stops each search where it is found, so its
# counts say how far the search went, not the size of the space.
# Environment: TIMEOUT (s per search, default 300), OUT (a file for the table).
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
TIMEOUT=${TIMEOUT:-300}
LOCKSTEP=""
REV=""
BUILD_DIR="$REPO/build-bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --lockstep) LOCKSTEP=$2; shift ;;
    --rev) REV=$2; shift ;;
    --build-dir) BUILD_DIR=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "symmetry: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
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

# One search: "verdict states seconds interchangeable tokens_renamed".
search() {
  timeout -s INT "$TIMEOUT" "$LOCKSTEP" explore "$@" --json --color never --out "$WORK/cx" 2>/dev/null |
    python3 -c '
import json, sys
j = json.load(sys.stdin)
r = j.get("reductions", {})
classes = " ".join(",".join(c) for c in r.get("interchangeable", [])) or "-"
print(j["verdict"], j["states"], "%.2f" % j["elapsed_s"], classes,
      "yes" if r.get("tokens_renamed") else "no")' || echo "error - - - -"
}

{
  echo "lockstep $("$LOCKSTEP" --version 2>/dev/null | head -1), one search at a time"
  echo
  echo "| scenario | interchangeable | tokens renamed | verdict | states | s | states, --no-symmetry | s | ratio |"
  echo "|---|---|---|---|---:|---:|---:|---:|---:|"
  for f in "$REPO"/scenarios/redlock-*.json "$REPO/scenarios/set-px-script-safe.json" \
           "$WORK/set-px-script-5.json"; do
    read -r verdict states secs classes renamed < <(search "$f")
    read -r plain_verdict plain plain_secs _ _ < <(search "$f" --no-symmetry)
    ratio=$(python3 -c "import sys; a, b = sys.argv[1:]; print('%.2f' % (int(b) / int(a)) if a.isdigit() and b.isdigit() else '-')" "$states" "$plain")
    # A search stopped by TIMEOUT says so beside its counts, and has no ratio.
    if [ "$plain_verdict" != "$verdict" ]; then plain="$plain ($plain_verdict)"; ratio="-"; fi
    echo "| $(basename "$f" .json) | $classes | $renamed | $verdict | $states | $secs | $plain | $plain_secs | $ratio |"
  done
} | if [ -n "${OUT:-}" ]; then tee "$OUT"; else cat; fi

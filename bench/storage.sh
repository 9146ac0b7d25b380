#!/usr/bin/env bash
# Memory per state, SPIN and lockstep side by side, in one run: the same-space
# GETSET search (horizon 16, 3 rounds, --no-symmetry --no-por, pan -DSAFETY)
# with each way of keeping visited states.
#
#   bench/storage.sh                 N=5
#   bench/storage.sh --n 4           fewer clients
#   bench/storage.sh --lockstep PATH use this binary instead of building one
#
# The table is printed and written to bench/results/storage.md (OUT=file
# to change).
#
# Rows: lockstep --storage exact | hash-compact | bitstate --bitstate-bits 27,
# and pan compiled plain, with -DHC4 (hash compaction) and with -DBITSTATE
# (-w27, SPIN's bitstate). Each run alone, on one core, under /usr/bin/time -v.
# Columns: states, seconds, peak resident memory, and for lockstep the
# visited table's own bytes per state and the expected states missed, from
# its --json report. Environment: TIMEOUT (s, default 300), SPIN_DIR.
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
TIMEOUT=${TIMEOUT:-300}
SPIN_DIR=${SPIN_DIR:-$REPO/../shared/spin}
N=5
LOCKSTEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift ;;
    --lockstep) LOCKSTEP=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "storage: unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case $N in 1|2|3|4|5) ;; *) echo "storage: --n must be 1..5, got $N" >&2; exit 2 ;; esac
need=()
command -v spin >/dev/null 2>&1 || need+=(spin)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "storage: needs the Debian packages ${need[*]}" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -f "$SPIN_DIR/getset.pml" ] || { echo "storage: SPIN models not found in $SPIN_DIR" >&2; exit 1; }
if [ -z "$LOCKSTEP" ]; then
  . "$BENCH/build_lockstep.sh"
  build_lockstep "$REPO" "$REPO/build-bench"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/storage.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OUT=${OUT:-$REPO/bench/results/storage.md}
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
. "$BENCH/scenario_set.sh"
scenario_set "$REPO/scenarios/getset-bounded.json" "$WORK/getset.json" 16 3

rss_mb() { awk '/Maximum resident set size/{printf "%.0f", $6/1024}' "$1"; }

{
echo "same-space GETSET, N=$N, horizon 16, 3 rounds; one core each (taskset -c 0)"
printf '%-46s %12s %9s %9s %12s %14s\n' run states seconds "RSS MB" "table B/st" "exp. missed"
for storage in exact hash-compact bitstate; do
  extra=()
  [ "$storage" = bitstate ] && extra=(--bitstate-bits 27)
  timeout "$TIMEOUT" taskset -c 0 /usr/bin/time -v -o "$WORK/time" "$LOCKSTEP" explore "$WORK/getset.json" \
    --clients "$N" --no-symmetry --no-por --storage "$storage" "${extra[@]}" --json --out "$WORK/cx" \
    > "$WORK/report.json" 2> "$WORK/err" || true
  python3 - "$WORK/report.json" "lockstep --storage $storage ${extra[*]}" "$(rss_mb "$WORK/time")" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except ValueError:
    print(f"{sys.argv[2]:<46} failed or timed out"); sys.exit()
st = j.get("storage", {})
print(f"{sys.argv[2]:<46} {j['states']:>12,} {j['elapsed_s']:>9.1f} {sys.argv[3]:>9} "
      f"{st.get('bytes_per_state', 0):>12.2f} {st.get('expected_omissions', 0):>14.3g}")
PY
done

mkdir -p "$WORK/pan" && cp "$SPIN_DIR"/*.pml "$WORK/pan/"
for variant in plain HC4 BITSTATE; do
  flags="-O2 -DSAFETY -DMEMLIM=16000"
  [ "$variant" != plain ] && flags="$flags -D$variant"
  (cd "$WORK/pan" && spin -DN="$N" -DT=2 -DMAXT=16 -DROUNDS=3 -a getset.pml >/dev/null && gcc $flags -o pan pan.c)
  (cd "$WORK/pan" && timeout "$TIMEOUT" taskset -c 0 /usr/bin/time -v -o "$WORK/time" ./pan -m100000 $([ "$variant" = BITSTATE ] && echo -w27 || echo -w26) > "$WORK/pan.out" 2>&1) || true
  states=$(awk '/states, stored/{print $1; exit}' "$WORK/pan.out")
  secs=$(awk '/pan: elapsed time/{print $4; exit}' "$WORK/pan.out")
  printf '%-46s %12s %9s %9s %12s %14s\n' "pan $variant" "$(printf "%'d" "${states%.*}" 2>/dev/null || echo "$states")" "$secs" "$(rss_mb "$WORK/time")" "—" "—"
done
} | tee "$WORK/table"
{
  echo "# Visited-state storage, lockstep and SPIN"
  echo
  echo "Measured $started by \`bench/storage.sh --n $N\`: $(nproc) cores, $(uname -sr); lockstep ${LOCKSTEP#"$REPO"/} ($("$LOCKSTEP" --version 2>/dev/null | head -1));"
  echo "$(spin -V 2>/dev/null | head -1). Seconds are search times; RSS is the whole process's peak;"
  echo "table B/st is lockstep's visited table in bytes per stored state; exp. missed is its"
  echo "expected number of states taken for visited ones (\`--json\` \`storage\`)."
  echo
  echo '```'
  cat "$WORK/table"
  echo '```'
} > "$WORK/out.md"
mkdir -p "$(dirname "$OUT")"
mv "$WORK/out.md" "$OUT"
echo "wrote $OUT"

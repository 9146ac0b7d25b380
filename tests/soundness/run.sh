#!/usr/bin/env bash
# Runs the differential soundness harness for SECONDS (from SEED, default: the
# time), saving each disagreement's shrunk scenario in regressions/.
#   tests/soundness/run.sh SECONDS [SEED]
# Needs the Release build (cmake --preset release && cmake --build --preset release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 SECONDS [SEED]" >&2
  exit 2
fi
seconds=$1
seed=${2:-$(date +%s)}
binary=${LOCKSTEP_SOUNDNESS:-$root/build/tests/lockstep_soundness}
if [ ! -x "$binary" ]; then
  echo "$binary is missing: build the release preset first" >&2
  exit 2
fi
exec "$binary" --seconds "$seconds" --seed "$seed" --save "$here/regressions"

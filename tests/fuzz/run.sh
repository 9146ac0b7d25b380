#!/usr/bin/env bash
# Fuzzes each target for SECONDS on a copy of its seed corpus and regression
# inputs; the committed folders are never written. Exits 1 at the first
# finding, whose input libFuzzer saves as ./crash-* (or timeout-*, oom-*).
#   usage: tests/fuzz/run.sh BUILD_DIR SECONDS [scenario|trace|command|lua ...]
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario trace command lua)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Any sanitizer report is a finding (libFuzzer then saves the input).
# The scenario and trace targets run client fibers: see .ci/test and
# tests/reliability/asan_fibers.supp for the two settings they need.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:suppressions=$here/../reliability/asan_fibers.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

for t in "${targets[@]}"; do
  corpus="$work/$t"
  mkdir -p "$corpus"
  cp "$here/corpus/$t/"* "$corpus/"
  if [ -d "$here/regressions/$t" ]; then cp "$here/regressions/$t/"* "$corpus/" 2>/dev/null || true; fi
  echo "fuzz_$t: ${seconds}s from $(ls "$corpus" | wc -l) seeds"
  log="$work/fuzz_$t.log"
  # -timeout: an input that runs 10 s is a finding (a hang); -rss_limit_mb
  # and -malloc_limit_mb: so is one that needs more than 2 GiB.
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$PWD/" "$corpus" >"$log" 2>&1; then
    tail -n 80 "$log"
    echo "fuzz_$t: FINDING (the input is saved above as crash-*/timeout-*/oom-*)" >&2
    exit 1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  echo "fuzz_$t: clean: $execs executions ($speed/s), $cov, corpus $(ls "$corpus" | wc -l) inputs"
done

#!/usr/bin/env bash
# Regenerates the seed corpora of tests/fuzz/corpus/ from scenarios/ with a
# built lockstep (run it after a change to the scenario or trace format):
#   tests/fuzz/make_corpus.sh build/lockstep
# Hand-written seeds (corpus/*/hand-*) are kept.
set -euo pipefail
lockstep=$(realpath "$1")
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus
mkdir -p "$out/scenario" "$out/trace" "$out/command"
rm -f "$out"/scenario/scenario-* "$out"/trace/trace-*
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in scenarios/*.json; do
  name=$(basename "$f" .json)
  cp "$f" "$out/scenario/scenario-$name.json"
  # The scenario's own schedule, if it has one, and two seeded runs.
  "$lockstep" replay "$f" --trace-out "$out/trace/trace-$name-replay.json" >/dev/null 2>&1 || true
  for seed in 1 2; do
    "$lockstep" run "$f" --seed "$seed" --max-steps 20 \
      --trace-out "$out/trace/trace-$name-seed$seed.json" >/dev/null 2>&1 || true
  done
  # A counterexample, if the search finds one quickly.
  "$lockstep" explore "$f" --clients 2 --out "$tmp/$name" >/dev/null 2>&1 || true
  for c in "$tmp/$name"/*.json; do
    [ -e "$c" ] && cp "$c" "$out/trace/trace-$name-counterexample.json"
  done
done
ls "$out"/*/ | wc -l

#!/usr/bin/env bash
# Applies each mutation (tests/mutation/*.patch, or those named) to a scratch
# copy of the committed tree, rebuilds it incrementally, runs the cases its
# header names (Killed-by:), and prints a table: the mutation, the cases run,
# those that failed. A mutation is killed when one of them fails. Exit 0 iff
# every mutation is killed and the tree without any passes every case.
#
#   tests/mutation/run.sh [--results FILE] [PATCH...]
#
# A patch's header, before its diff:
#   Breaks: what the mutation breaks
#   Build: release | asan     (the build that checks it: asan for a report)
#   Killed-by: a test's name  (one line each; a ctest name, a Catch case's)
# The scratch copy is a git worktree of HEAD in $LOCKSTEP_MUTATION_DIR
# (default: a folder under /tmp), kept between runs so that a build is
# incremental; uncommitted changes are not in it.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

results=""
if [ "${1:-}" = "--results" ]; then
  results=$2
  shift 2
fi
patches=("$@")
[ ${#patches[@]} -gt 0 ] || patches=(tests/mutation/*.patch)

scratch=${LOCKSTEP_MUTATION_DIR:-/tmp/lockstep-mutation}
commit=$(git rev-parse HEAD)
if [ ! -e "$scratch/.git" ]; then
  git worktree add --detach "$scratch" "$commit" >/dev/null
fi
git -C "$scratch" checkout --quiet --force --detach "$commit"
git -C "$scratch" clean --quiet -fd -e build -e build-asan
for m in examples/real-clients/node_modules tests/browser/node_modules tests/report/node_modules; do
  [ -e "$repo/$m" ] && [ ! -e "$scratch/$m" ] && ln -s "$repo/$m" "$scratch/$m"
done

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  -DCMAKE_C_COMPILER_LAUNCHER=ccache)
jobs=$(nproc)

header() {  # header FIELD PATCH: the field's values, a line each
  sed -n "/^\(diff --git\|--- \)/q; s/^$1: //p" "$2"
}

build() {  # build PRESET: configured once, then incremental
  local dir=build
  [ "$1" = release ] || dir=build-$1
  (cd "$scratch" && { [ -e "$dir/CMakeCache.txt" ] || cmake --preset "$1" "${launcher[@]}" >/dev/null; } &&
    cmake --build --preset "$1" -j"$jobs" --target lockstep lockstep_tests >/dev/null)
}

# A test name as a ctest regex that matches it alone.
exact() { printf '^%s$' "$(printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g')"; }

failing() {  # failing PRESET CASE...: the cases that fail, a line each
  local preset=$1 name
  shift
  for name in "$@"; do
    (cd "$scratch" && ctest --preset "$preset" -R "$(exact "$name")" --no-tests=error \
      >/dev/null 2>&1) || echo "$name"
  done
}

table="| mutation | breaks | cases run | killed by |
|---|---|---|---|"
status=0
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  preset=$(header Build "$patch")
  mapfile -t cases < <(header Killed-by "$patch")
  if [ -z "$preset" ] || [ ${#cases[@]} -eq 0 ]; then
    echo "$patch: expected a header with Build: and Killed-by: lines" >&2
    exit 2
  fi
  echo "--- $name ($preset build, ${#cases[@]} cases)" >&2
  build "$preset"
  mapfile -t clean < <(failing "$preset" "${cases[@]}")
  if [ ${#clean[@]} -gt 0 ]; then
    echo "$name: fails without the mutation: ${clean[*]}" >&2
    status=1
  fi
  git -C "$scratch" apply "$repo/$patch"
  trap 'git -C "$scratch" apply -R "$repo/$patch" 2>/dev/null || true' EXIT
  if build "$preset"; then
    mapfile -t killed < <(failing "$preset" "${cases[@]}")
  else
    killed=("(the build fails)")
  fi
  git -C "$scratch" apply -R "$repo/$patch"
  trap - EXIT
  ran=$(printf '%s; ' "${cases[@]}")
  by=$(printf '%s; ' "${killed[@]}")
  by=${by%; }
  if [ ${#killed[@]} -eq 0 ]; then
    by="**survived**"
    status=1
  fi
  table+="
| \`$name\` | $(header Breaks "$patch") | ${ran%; } | $by |"
done

echo "$table"
if [ -n "$results" ]; then
  {
    echo "# Mutations: the last run"
    echo
    echo "At commit \`$commit\`, by \`tests/mutation/run.sh --results $results\`:"
    echo
    echo "$table"
  } >"$results"
fi
exit "$status"

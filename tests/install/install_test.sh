#!/usr/bin/env bash
# Installs a build tree into a temporary prefix and uses it as a user would:
# the programs, their man pages, bash completion, the scenarios and examples.
#   tests/install/install_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/lockstep share/man/man1/lockstep.1 share/bash-completion/completions/lockstep \
         share/lockstep/scenarios/setnx-docs-race.json share/lockstep/examples/lua/setnx_getset.lua; do
  [ -f "$prefix/$f" ] || fail "missing $f"
done
if [ -x "$build/lockstep-viewer" ]; then
  for f in bin/lockstep-viewer share/man/man1/lockstep-viewer.1; do
    [ -f "$prefix/$f" ] || fail "missing $f"
  done
fi

"$prefix/bin/lockstep" --version | grep -q '^lockstep [0-9][0-9.]* (commit ' ||
  fail "the installed lockstep --version"
grep -q '^\.TH LOCKSTEP "1"' "$prefix/share/man/man1/lockstep.1" || fail "lockstep.1 is no man page"
grep -q 'explore' "$prefix/share/man/man1/lockstep.1" || fail "lockstep.1 omits the subcommands"
# Away from the source tree, the installed program finds its own scenarios.
(cd / && "$prefix/bin/lockstep" list) | grep -q 'setnx-docs-race' ||
  fail "the installed lockstep does not list its scenarios"

complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lockstep
           echo "${COMPREPLY[*]}"' _ "$prefix/share/bash-completion/completions/lockstep" "$@"
}
[ "$(complete_words "$prefix/bin/lockstep" ex)" = explore ] || fail "completing a subcommand"
[ "$(complete_words "$prefix/bin/lockstep" explore --no-sy)" = --no-symmetry ] ||
  fail "completing an option"
cd "$prefix/share/lockstep/scenarios"
[ "$(complete_words "$prefix/bin/lockstep" replay setnx-docs)" = setnx-docs-race.json ] ||
  fail "completing a scenario file"
echo "installed and used from $prefix"

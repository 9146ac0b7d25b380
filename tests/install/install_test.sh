#!/usr/bin/env bash
# Installs a build tree into a temporary prefix and uses it as a user would:
# the programs, their man pages, bash completion, the scenarios and examples,
# and the library: examples/own-lock, as installed, is configured against the
# prefix with find_package(lockstep), built, and its tests must pass.
#   tests/install/install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
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

# Output is read whole before grep: with pipefail, "| grep -q" fails when
# grep stops reading before the program has written everything.
version=$("$prefix/bin/lockstep" --version)
grep -q '^lockstep [0-9][0-9.]* (commit ' <<<"$version" ||
  fail "the installed lockstep --version"
grep -q '^\.TH LOCKSTEP "1"' "$prefix/share/man/man1/lockstep.1" || fail "lockstep.1 is no man page"
grep -q 'explore' "$prefix/share/man/man1/lockstep.1" || fail "lockstep.1 omits the subcommands"
# Away from the source tree, the installed program finds its own scenarios.
listing=$(cd / && "$prefix/bin/lockstep" list)
grep -q 'setnx-docs-race' <<<"$listing" ||
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

# The library: the package, the headers, and nothing under lockstep/detail
# that lockstep.h does not include.
for f in lib/cmake/lockstep/lockstepConfig.cmake include/lockstep/lockstep.h \
         include/lockstep/catch2.h; do
  [ -f "$prefix/$f" ] || fail "missing $f"
done
ls "$prefix"/lib*/liblockstep.so >/dev/null 2>&1 || ls "$prefix"/lib/*/liblockstep.so >/dev/null ||
  fail "missing liblockstep.so"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
cxx=$(cache CMAKE_CXX_COMPILER)
sanitize=$(cache LOCKSTEP_SANITIZE)
flags=${sanitize:+-fsanitize=$sanitize}
detail="$prefix/include/lockstep/detail"
used=$("$cxx" -std=c++20 -MM -I"$prefix/include" -I"$detail" "$prefix/include/lockstep/lockstep.h" |
  tr ' \\' '\n\n' | sed -n "s|^$detail/||p" | sort -u)
installed=$(cd "$detail" && find . -name '*.h' | sed 's|^\./||' | sort)
[ "$used" = "$installed" ] || fail "lockstep/detail holds other headers than lockstep.h needs:
$(diff <(echo "$used") <(echo "$installed"))"

example="$prefix/share/lockstep/examples/own-lock"
# No build type, as the example's own instructions say: its two files then
# compile unoptimised, in a quarter of the time -O3 takes with the
# sanitizers (the library they link was built as the tree was).
cmake -S "$example" -B "$prefix/own-lock-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" >/dev/null ||
  fail "examples/own-lock does not configure against the install"
cmake --build "$prefix/own-lock-build" -j2 >/dev/null || fail "examples/own-lock does not build"
"$prefix/own-lock-build/own_lock_tests" || fail "examples/own-lock's tests fail"
echo "installed and used from $prefix"

#!/usr/bin/env bash
# Installs a build tree into a temporary prefix and uses it as a user would:
# the programs, their man pages (read by man --warnings and lexgrog), bash
# completion of subcommands, options and their values, the scenarios and
# examples. Then packs it as Debian packages (cpack -G DEB), checks how they
# are split and what they depend on, installs them into a scratch root with
# dpkg (its own admin folder, holding this machine's package list, so that
# the dependencies are checked against what is installed), builds
# examples/own-lock there with find_package(lockstep) and runs its tests,
# and runs lintian on the packages. Without dpkg, cpack and lintian (not a
# Debian machine), examples/own-lock builds against the prefix instead.
#   tests/install/install_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/lockstep share/man/man1/lockstep.1.gz share/bash-completion/completions/lockstep \
         share/lockstep/scenarios/setnx-docs-race.json share/lockstep/examples/lua/setnx_getset.lua; do
  [ -f "$prefix/$f" ] || fail "missing $f"
done
if [ -x "$build/lockstep-viewer" ]; then
  for f in bin/lockstep-viewer share/man/man1/lockstep-viewer.1.gz; do
    [ -f "$prefix/$f" ] || fail "missing $f"
  done
fi

# Output is read whole before grep: with pipefail, "| grep -q" fails when
# grep stops reading before the program has written everything.
version=$("$prefix/bin/lockstep" --version)
grep -q '^lockstep [0-9][0-9.]* (commit ' <<<"$version" ||
  fail "the installed lockstep --version"
zgrep -q '^\.TH LOCKSTEP "1"' "$prefix/share/man/man1/lockstep.1.gz" || fail "lockstep.1 is no man page"
zgrep -q 'explore' "$prefix/share/man/man1/lockstep.1.gz" || fail "lockstep.1 omits the subcommands"
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
# Option values: the choices --help shows, the fault kinds, and for a file
# option the files of its kind (and folders), never a flag's value.
lockstep=$prefix/bin/lockstep
check_completion() {  # expected, then the words
  local expected=$1 got
  shift
  got=$(complete_words "$lockstep" "$@")
  [ "$got" = "$expected" ] || fail "completing '$*': expected '$expected', got '$got'"
}
check_completion "bfs" explore --strategy b
check_completion "fingerprint exact hash-compact bitstate" explore --storage ""
check_completion "auto always" replay --color a
check_completion "en zh" render --lang ""
check_completion "zh" replay --lang z
check_completion "stall=" explore --faults st
check_completion "" run --seed 1
mkdir "$prefix/completion" && cd "$prefix/completion"
touch a.json a.svg a.png a.html a.txt && mkdir b
check_completion "a.svg b" render x.json --svg ""
check_completion "a.png b" render x.json --png ""
check_completion "a.html b" render x.json --play-html ""
check_completion "a.json b" run x.json --seed 1 --trace-out ""
check_completion "b" explore x.json --out ""
check_completion "a.json b" explore --json ""
cd "$prefix"

# The man pages (compressed, as Debian installs them): one for lockstep,
# one a subcommand, each read without a warning, named as whatis reads it,
# and with its exit status, examples and related pages; the program's page
# has its files too.
man1="$prefix/share/man/man1"
for sub in "" -replay -run -explore -test -list -demo -render -allow; do
  page="$man1/lockstep$sub.1.gz"
  [ -f "$page" ] || fail "missing lockstep$sub.1"
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man cannot read $page"
  [ -z "$warnings" ] || fail "man --warnings on lockstep$sub.1:
$warnings"
  whatis=$(lexgrog "$page") || fail "lexgrog reads no NAME in lockstep$sub.1"
  grep -q "\"lockstep$sub - " <<<"$whatis" || fail "lockstep$sub.1 is named: $whatis"
  for section in '"EXIT STATUS"' EXAMPLES '"SEE ALSO"'; do
    zgrep -q "^\.SH $section\$" "$page" || fail "lockstep$sub.1 has no $section"
  done
done
zgrep -q '^\.SH FILES$' "$man1/lockstep.1.gz" || fail "lockstep.1 has no FILES"

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

# The Debian packages, into a scratch root.
example="$prefix/share/lockstep/examples/own-lock"
use_prefix=$prefix
if command -v dpkg >/dev/null && command -v lintian >/dev/null &&
   [ -z "$sanitize" ]; then
  packages="$prefix/packages"
  (cd "$build" && cpack -G DEB -B "$packages" >"$prefix/cpack.log" 2>&1) ||
    fail "cpack -G DEB: $(cat "$prefix/cpack.log")"
  version=$(awk '{ print $2 }' <<<"$version")  # lockstep --version: "lockstep 0.9.0 (...)"
  abi=${version%.*}
  arch=$(dpkg --print-architecture)
  deb() { echo "$packages/$1_${version}_$arch.deb"; }
  for p in lockstep lockstep-viewer "liblockstep$abi" liblockstep-dev; do
    [ -f "$(deb "$p")" ] || fail "cpack made no $p package: $(ls "$packages")"
    contents=$(dpkg-deb -c "$(deb "$p")")
    for f in copyright changelog.gz; do
      grep -q "/usr/share/doc/$p/$f\$" <<<"$contents" || fail "$p has no /usr/share/doc/$p/$f"
    done
  done
  field() { dpkg-deb -f "$(deb "$1")" "$2"; }
  grep -q "/usr/bin/lockstep\$" <<<"$(dpkg-deb -c "$(deb lockstep)")" || fail "lockstep has no lockstep"
  ! grep -qE "libglfw|libgl1|libopengl" <<<"$(field lockstep Depends)" ||
    fail "lockstep depends on the viewer's libraries: $(field lockstep Depends)"
  grep -q "libglfw3" <<<"$(field lockstep-viewer Depends)" || fail "lockstep-viewer lacks GLFW"
  dev_depends=$(field liblockstep-dev Depends)
  grep -q "liblockstep$abi (= $version)" <<<"$dev_depends" &&
    grep -q "nlohmann-json3-dev" <<<"$dev_depends" ||
    fail "liblockstep-dev depends on: $dev_depends"
  lib_contents=$(dpkg-deb -c "$(deb "liblockstep$abi")")
  grep -q "liblockstep\.so\.$abi " <<<"$lib_contents" && ! grep -q "include/" <<<"$lib_contents" ||
    fail "liblockstep$abi holds: $lib_contents"
  grep -q "liblockstep\.so -> " <<<"$(dpkg-deb -c "$(deb liblockstep-dev)")" ||
    fail "liblockstep-dev has no liblockstep.so link"

  # Installed as dpkg installs them, dependencies checked against this
  # machine's packages; no maintainer script or trigger touches the machine.
  root="$prefix/root"
  admin="$prefix/dpkg"
  mkdir -p "$root" "$admin/updates" "$admin/info"
  cp /var/lib/dpkg/status "$admin/status"
  # (dpkg warns that it has no file lists of the machine's packages: only
  # their names and versions matter here.)
  dpkg --root="$root" --admindir="$admin" --force-script-chrootless --no-triggers \
    --log=/dev/null -i "$packages"/*.deb >/dev/null 2>"$prefix/dpkg.err" ||
    fail "dpkg -i into a scratch root: $(grep -v 'files list file' "$prefix/dpkg.err")"
  "$root/usr/bin/lockstep" --version >/dev/null || fail "the packaged lockstep does not run"
  example="$root/usr/share/lockstep/examples/own-lock"
  use_prefix="$root/usr"

  # lintian: clean, but for the tags tests/install/lintian-explained
  # lists, each with the reason.
  lint=$(lintian --tag-display-limit 0 --fail-on error,warning \
           --suppress-tags-from-file "$here/lintian-explained" "$packages"/*.deb 2>&1) ||
    fail "lintian:
$lint"
fi

# No build type, as the example's own instructions say: its two files then
# compile unoptimised, in a quarter of the time -O3 takes with the
# sanitizers (the library they link was built as the tree was).
cmake -S "$example" -B "$prefix/own-lock-build" -DCMAKE_PREFIX_PATH="$use_prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" >/dev/null ||
  fail "examples/own-lock does not configure against $use_prefix"
cmake --build "$prefix/own-lock-build" -j2 >/dev/null || fail "examples/own-lock does not build"
"$prefix/own-lock-build/own_lock_tests" || fail "examples/own-lock's tests fail"
echo "installed and used from $use_prefix"

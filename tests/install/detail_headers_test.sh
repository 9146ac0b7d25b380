#!/usr/bin/env bash
# The headers installed under lockstep/detail (sim/api/CMakeLists.txt's
# LOCKSTEP_DETAIL_HEADERS) are the closure of the public headers' includes
# in this tree, as g++ -MM finds it: one missing breaks every program that
# includes <lockstep/lockstep.h> from an install, which only the long
# tier's install test would otherwise show.
set -euo pipefail
root=$1
cd "$root"
listed=$(sed -n '/^set(LOCKSTEP_DETAIL_HEADERS/,/CACHE INTERNAL/p' sim/api/CMakeLists.txt |
  grep -o 'sim/[A-Za-z0-9_/]*\.h' | sort -u)
lua_flags=$(pkg-config --cflags lua5.1)
# shellcheck disable=SC2086
closure=$(g++ -std=c++20 -MM -I. -Isim/api $lua_flags sim/api/lockstep/lockstep.h \
  sim/api/lockstep/catch2.h | tr ' \\' '\n\n' | grep '^sim/' | grep -v '^sim/api/' | sort -u)
if [ "$listed" != "$closure" ]; then
  echo "LOCKSTEP_DETAIL_HEADERS (sim/api/CMakeLists.txt) is not the closure of the public headers' includes:"
  diff <(echo "$listed") <(echo "$closure") | sed -n 's/^< /  listed, not included: /p; s/^> /  included, not listed: /p'
  exit 1
fi
echo "$(echo "$closure" | wc -l) headers, listed and included alike"

# Sourced by the bench scripts: builds lockstep (Release) in a build dir of the bench's own.
#
#   build_lockstep REPO BUILD_DIR [REV]
#
# Without REV it builds the working tree into BUILD_DIR. With REV (a commit, e.g. HEAD) it
# builds that committed revision, exported with `git archive` to BUILD_DIR/rev-SHA-src,
# into BUILD_DIR/rev-SHA, so uncommitted edits in the tree do not affect the figures.
# Sets LOCKSTEP (the binary) and LOCKSTEP_LABEL (what was built).
build_lockstep() {
  local repo=$1 build=$2 rev=${3:-} src sha
  bash "$repo/.ci/install-deps"
  if [ -n "$rev" ]; then
    sha=$(git -C "$repo" rev-parse --short "$rev^{commit}")
    src="$build/rev-$sha-src"
    build="$build/rev-$sha"
    if [ ! -f "$src/CMakeLists.txt" ]; then
      mkdir -p "$src"
      git -C "$repo" archive "$sha" | tar -x -C "$src"
    fi
    LOCKSTEP_LABEL="$sha"
  else
    src=$repo
    LOCKSTEP_LABEL="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    git -C "$repo" diff --quiet HEAD 2>/dev/null || LOCKSTEP_LABEL="$LOCKSTEP_LABEL + uncommitted changes"
  fi
  echo "building lockstep $LOCKSTEP_LABEL (Release) in $build"
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"$(nproc)" --target lockstep >/dev/null
  LOCKSTEP="$build/lockstep"
}

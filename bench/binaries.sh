# Sourced by the bench scripts that compare lockstep builds side by side.
#
#   bench_binaries NAME BINARY...   stops (exit 2) naming the first missing binary
#   label BINARY                    the binary as its version names it: "commit 1a2b3c4d5e6f"
bench_binaries() {
  local name=$1 bin
  shift
  for bin in "$@"; do
    if [ ! -x "$bin" ]; then
      echo "$name: $bin is missing: cmake --preset release && cmake --build --preset release" >&2
      exit 2
    fi
  done
}

label() { "$1" --version | head -1 | sed -n 's/.*(\(commit [^)]*\)).*/\1/p'; }

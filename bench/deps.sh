# Sourced by the bench scripts: the Debian packages a bench needs. As root it
# installs what is missing (apt-get); otherwise it names the packages and stops.
#
#   bench_needs NAME TOOL...
#
# NAME prefixes the messages. A TOOL is a command; its package is known for
# spin, time (/usr/bin/time, GNU time, whose -v gives the CPU seconds),
# timeout (coreutils), taskset (util-linux), gcc, g++ and python3.
bench_needs() {
  local name=$1 tool need=()
  shift
  for tool in "$@"; do
    case $tool in
      time) [ -x /usr/bin/time ] || need+=(time) ;;
      timeout) command -v timeout >/dev/null 2>&1 || need+=(coreutils) ;;
      taskset) command -v taskset >/dev/null 2>&1 || need+=(util-linux) ;;
      *) command -v "$tool" >/dev/null 2>&1 || need+=("$tool") ;;
    esac
  done
  [ ${#need[@]} -gt 0 ] || return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "$name: needs these Debian packages: ${need[*]}" >&2
    echo "install them with: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# bench_pin NAME CPU: checks that runs can be pinned to CPU (a number that
# taskset accepts here) and sets PIN=(taskset -c CPU), the prefix of every
# one-core run. Exit 2 with a message otherwise.
bench_pin() {
  local name=$1 cpu=$2
  case $cpu in
    '' | *[!0-9]*) echo "$name: --cpu needs a CPU number: $cpu" >&2; exit 2 ;;
  esac
  PIN=(taskset -c "$cpu")
  "${PIN[@]}" true 2>/dev/null || { echo "$name: cannot pin to CPU $cpu (taskset -c $cpu)" >&2; exit 2; }
}

# Bash completion for lockstep. The subcommands, options and option values
# come from the program's own --help, so they are never out of date: an
# option shown as "--strategy TEXT:{dfs,bfs,...}" completes to those values,
# --faults to its fault kinds, and a flag is never given a value. Which kind
# of file an option names is said here, once: the outputs by their
# extension, folders for --out and --dir, programs for --redis-server, and
# scenarios and traces (*.json) for the positional arguments.
_lockstep_files() {  # files ending in $1 (none: any file), and folders
  compopt -o filenames 2>/dev/null
  if [[ -n $1 ]]; then
    mapfile -t COMPREPLY < <(compgen -f -X "!*$1" -- "$cur"; compgen -d -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}

_lockstep() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev="" prog=${COMP_WORDS[0]} sub="" i
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) sub=${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $sub && $cur != -* ]]; then
    local words
    words=$("$prog" --help 2>/dev/null | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  local help
  help=$("$prog" $sub --help 2>/dev/null)
  # The value of the option before the cursor, if it takes one.
  if [[ $prev == --* && $cur != -* ]]; then
    local line
    line=$(grep -E -- "^ +(-[a-z],)?$prev( |$)" <<<"$help" | head -n 1)
    local type=${line#*"$prev"}
    type=${type# }
    type=${type%% *}
    if [[ $type =~ ^[A-Z]+(:.*)?$ ]]; then
      case $prev in
        --svg) _lockstep_files .svg; return ;;
        --png) _lockstep_files .png; return ;;
        --html | --play-html) _lockstep_files .html; return ;;
        --trace-out | --levels) _lockstep_files .json; return ;;
        --out | --dir | --course) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
        --redis-server) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -c -- "$cur"; compgen -f -- "$cur"); return ;;
        --faults)
          local kinds
          kinds=$(sed -n 's/.*(kinds: \([^)]*\)).*/\1/p' <<<"$help" | tr -d ,)
          compopt -o nospace 2>/dev/null
          mapfile -t COMPREPLY < <(compgen -W "$(printf '%s= ' $kinds)" -- "$cur")
          return ;;
      esac
      if [[ $type == *:\{*\}* ]]; then
        local values=${type#*:\{}
        values=${values%%\}*}
        mapfile -t COMPREPLY < <(compgen -W "${values//,/ }" -- "$cur")
      else
        COMPREPLY=()  # a number or a text: nothing to offer
      fi
      return
    fi
  fi
  if [[ $cur == -* ]]; then
    local words
    words=$(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  _lockstep_files .json
}
complete -F _lockstep lockstep

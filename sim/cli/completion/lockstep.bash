# Bash completion for lockstep: the subcommands and options as the program's
# own --help lists them (so they are never out of date), and scenario and
# trace files (*.json) and folders for the rest.
_lockstep() {
  local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) sub=${COMP_WORDS[i]}; break ;;
    esac
  done
  local words
  if [[ -z $sub && $cur != -* ]]; then
    words=$("$prog" --help 2>/dev/null | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  if [[ $cur == -* ]]; then
    words=$("$prog" $sub --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
}
complete -F _lockstep lockstep

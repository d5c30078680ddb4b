# Bash completion for matchcount and matchcount-generate. Options and the values of options
# with a fixed set (--as, --engine, --device, --method, --format, families) are read from the
# program's own --help, so the completion follows whatever binary is on the command line: a new
# family (triangular, king, c60, symmetric-int, ...) or flag (--periodic, --diagonal) needs no
# change here.
# Installed to share/bash-completion/completions/; or source it from ~/.bashrc.

# Prints the option names found in help text $1.
_matchcount_options() {
  printf '%s\n' "$1" | grep -oE '^ +-[-a-zA-Z0-9,]+' | tr ',' '\n' | sed 's/^ *//' | grep -E '^-'
}

# Prints the fixed values of option $2 in help text $1 ("--as TEXT:{auto,graph}=auto").
_matchcount_values() {
  printf '%s\n' "$1" | grep -E "^ +([-a-zA-Z0-9]+,)?$2 " | head -n 1 |
    sed -n 's/.*:{\([^}]*\)}.*/\1/p' | tr ',' '\n'
}

# Prints the subcommands listed in help text $1 (matchcount-generate).
_matchcount_subcommands() {
  printf '%s\n' "$1" | sed -n '/^Subcommands:/,/^$/p' | grep -oE '^  [a-z][-a-z0-9]*' | sed 's/^ *//'
}

_matchcount() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=""
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  local prog=${COMP_WORDS[0]} help
  help=$("$prog" --help 2>/dev/null) || help=""
  # matchcount-generate FAMILY ...: the family's own help lists its options.
  local subs
  subs=$(_matchcount_subcommands "$help")
  if [[ -n $subs ]]; then
    local w
    for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
      if grep -qxF -- "$w" <<<"$subs"; then
        help=$("$prog" "$w" --help 2>/dev/null) || help=""
        subs=""
        break
      fi
    done
  fi
  if [[ $prev == -* ]]; then
    local values
    values=$(_matchcount_values "$help" "$prev")
    if [[ -n $values ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
      return
    fi
    case $prev in
      --checkpoint | -o | --output) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
    esac
    # Any other option that takes a value (its help line shows a type) gets no completion.
    if printf '%s\n' "$help" | grep -qE "^ +([-a-zA-Z0-9]+,)?$prev (TEXT|INT|UINT|FLOAT|NUMBER)"; then
      return
    fi
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_matchcount_options "$help")" -- "$cur")
  elif [[ -n $subs ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _matchcount matchcount matchcount-generate

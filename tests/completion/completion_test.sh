#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# completion_test.sh XRUNLAB COMPLETION [MANPAGE...]
# (a) completing with docs/completion/xrunlab offers the subcommands, options and values;
# (b) every long option that `XRUNLAB [SUB] --help` prints is completed for that subcommand, so
#     the completion cannot drift from the CLI;
# (c) each man page exists, is not empty, renders with `man -l` and has a NAME lexgrog reads.
set -u
xrunlab=$1
completion=$2
shift 2
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# shellcheck source=/dev/null
source "$completion" || { echo "FAIL: cannot source $completion"; exit 1; }

# Complete LINE (the cursor at its end) as bash would: COMP_LINE, COMP_POINT, COMP_WORDS split
# at blanks and COMP_WORDBREAKS; the candidates in $reply, one per line.
complete_line() {
  COMP_LINE=$1
  COMP_POINT=${#1}
  local -a w
  read -ra w <<<"$1"
  [[ $1 == *' ' ]] && w+=("")
  COMP_WORDS=("${w[@]}")
  COMP_CWORD=$((${#w[@]} - 1))
  COMPREPLY=()
  _xrunlab xrunlab "${w[-1]}" "${w[-2]:-}"
  reply=$(printf '%s\n' "${COMPREPLY[@]}")
}
# expect LINE WORD...: each WORD is among the candidates of LINE.
expect() {
  local line=$1 want
  shift
  complete_line "$line"
  for want in "$@"; do
    grep -qxF -- "$want" <<<"$reply" || fail "'$line<TAB>' does not offer '$want' (offers: ${reply//$'\n'/ })"
  done
}
# expect_only LINE WORD: WORD is the only candidate.
expect_only() {
  complete_line "$1"
  [[ $reply == "$2" ]] || fail "'$1<TAB>' should complete to '$2' alone (offers: ${reply//$'\n'/ })"
}

subcommands=(run campaign sweep check plot summary compare import export doctor history)

# (a) what a user types.
expect "xrunlab " "${subcommands[@]}"
expect_only "xrunlab ca" campaign
expect_only "xrunlab run --pol" --policy
expect "xrunlab run --policy " fifo rr other batch idle deadline iso iso-emu rt-throttle:
expect "xrunlab run --policy=" fifo rr
expect "xrunlab run --load " compile hackbench cpu: io-write net x11 top bench stress-ng: cmd:
expect "xrunlab run --backend " vcard dummy alsa attach pipewire
expect "xrunlab campaign --preset " jack_test4 jack_test3 iso-vs-fifo-2005 rt-kernel
expect "xrunlab campaign --order " shuffled sequential
expect "xrunlab summary results --by " label host kernel backend policy label-kernel
expect "xrunlab compare a b --format " text json csv
expect "xrunlab sweep --search " bisect descending all
expect "xrunlab sweep --clients 8 -- --pol" --policy  # after --: `xrunlab run` options
expect "xrunlab check -" --clients --dsp-load --
expect "xrunlab doctor --r" --root --root-proc --root-sys --root-etc --root-dev --root-boot
# A preset typed from a build folder's program finds the source tree's presets too.
scripts=${XRUNLAB_SCRIPTS-}
bin_dir=$(cd "$(dirname "$xrunlab")" && pwd)
unset XRUNLAB_SCRIPTS
pushd / >/dev/null || exit 1
expect "$bin_dir/xrunlab campaign --preset j" jack_test4
popd >/dev/null || exit 1
[[ -n $scripts ]] && export XRUNLAB_SCRIPTS=$scripts
# A folder option completes folders: tests/ is one, from the source tree.
expect "xrunlab run --output tes" tests

# (b) every long option of every --help is completed for its subcommand.
checked=0
for sub in "" "${subcommands[@]}"; do
  help=$("$xrunlab" ${sub:+"$sub"} --help) || { fail "$xrunlab $sub --help failed"; continue; }
  # Option lines: "  --name ..." or "  -q,--name ..." (descriptions and examples are not).
  opts=$(sed -nE 's/^  (-[A-Za-z],)?(--[A-Za-z0-9][A-Za-z0-9-]*).*/\2/p' <<<"$help" | sort -u)
  [[ -n $opts ]] || fail "no options found in '$xrunlab $sub --help'"
  for opt in $opts; do
    complete_line "xrunlab ${sub:+$sub }$opt"
    grep -qxF -- "$opt" <<<"$reply" ||
      fail "'xrunlab ${sub:+$sub }--help' prints $opt, which the completion does not know"
    checked=$((checked + 1))
  done
done
echo "checked $checked options of ${#subcommands[@]} subcommands and the top level"
# ... and every figure that --fail-if's help names (from the run metrics' own list) is offered.
metrics=$("$xrunlab" run --help | tr -s ' \n' '  ' | sed -nE 's/.* NAME: ([a-z0-9_, ]+) \(docs.*/\1/p' | tr -d ',')
[[ -n $metrics ]] || fail "no figure names found in '$xrunlab run --help' (--fail-if)"
# shellcheck disable=SC2086
expect "xrunlab run --fail-if " $metrics
# ... and every subcommand that `xrunlab --help` lists is completed.
listed=$("$xrunlab" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[[ -n $listed ]] || fail "no subcommands found in '$xrunlab --help'"
for sub in $listed; do expect "xrunlab " "$sub"; done

# (c) the man pages.
for page in "$@"; do
  name=$(basename "$page" .1)
  if [[ ! -s $page ]]; then
    fail "$page is missing or empty (build the target man)"
    continue
  fi
  text=$(MANWIDTH=80 man -l "$page" 2>&1) || fail "man -l $page failed"
  grep -q "^NAME" <<<"$text" || fail "man -l $page: no NAME section"
  # The examples come from the --help footers (engine/app/cli/*_cli.cpp), not xrunlab-client's.
  [[ $name == xrunlab-client ]] || grep -q "^EXAMPLES" <<<"$text" ||
    fail "man -l $page: no EXAMPLES section"
  grep -q "^SEE ALSO" <<<"$text" || fail "man -l $page: no SEE ALSO section"
  if command -v lexgrog >/dev/null; then
    lexgrog "$page" | grep -qF "\"$name - " || fail "lexgrog $page: $(lexgrog "$page" 2>&1)"
  fi
done
echo "checked $# man pages"

if ((fails > 0)); then
  echo "$fails failure(s)"
  exit 1
fi
echo "completion: all checks passed"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One xrunlab run as LAVA test cases (scripts/lava/xrunlab.yaml calls it). It runs
#
#   xrunlab run --clients N --period FRAMES --duration SECONDS --label LABEL --output DIR \
#               --junit DIR/junit.xml [--fail-if COND ...] [RUN_OPTIONS...]
#
# and reports, with lava-test-case (or, outside LAVA, the same words on stdout):
#
#   xrunlab-run                pass when the run completed (status "completed"; exit code 0, or
#                              10 when a threshold failed), else fail
#   fail-if-<COND>             one per --fail-if: pass when the run's figure stays within it, fail
#                              when it crosses it or the run does not have it (xrunlab's rule:
#                              not measured is not a pass), as xrunlab's JUnit report says
#   xrun-count                 jack_test's XRUN Count (run.json totals.xrun_count), xruns
#   delay-max                  jack_test's Delay Maximum (jack_test.delay_max_us), us
#   cycle-max                  jack_test's Cycle Maximum (jack_test.cycle_max_us), us
#
# The three figures pass with their measurement when run.json has them; one it lacks (null: the
# run has no cycle table, or too few cycles for it) is "skip", without a measurement. A line
# outside LAVA: "<case> pass|fail|skip [<measurement> <units>]".
#
# Usage: run-case.sh [--xrunlab PROGRAM] [--clients N] [--period FRAMES] [--duration SECONDS]
#                    [--label NAME] [--output DIR] [--fail-if COND]... [--fail-if-list "C1 C2"]
#                    [-- RUN_OPTIONS...]
#   --xrunlab        the xrunlab to run (default: $XRUNLAB, else xrunlab on PATH)
#   --output         where the run folder goes (default: a new folder under ${TMPDIR:-/tmp},
#                    kept: its path is printed)
#   --fail-if-list   thresholds separated by spaces (LAVA's parameters are one string each)
#   after --          more `xrunlab run` options, e.g. -- --priority 0 --backend dummy
# Every value reaches xrunlab as its own argument: nothing is built into a shell string.
# Needs jq. Exit code 0 once the cases are reported (their results carry the verdict); 2 for bad
# usage, 3 when jq or xrunlab is missing.
set -u

xrunlab=${XRUNLAB:-xrunlab}
clients=4
period=256
duration=10
label=lava
output=
fail_if=()
extra=()

usage() {
  sed -n '2,/^set -u$/p' "$0" | sed -e '/^set -u$/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}

need_value() {
  if [ "$2" -lt 2 ]; then
    echo "run-case.sh: $1 needs a value" >&2
    exit 2
  fi
}

while [ $# -gt 0 ]; do
  case $1 in
    --xrunlab) need_value "$1" $#; xrunlab=$2; shift 2 ;;
    --clients) need_value "$1" $#; clients=$2; shift 2 ;;
    --period) need_value "$1" $#; period=$2; shift 2 ;;
    --duration) need_value "$1" $#; duration=$2; shift 2 ;;
    --label) need_value "$1" $#; label=$2; shift 2 ;;
    --output) need_value "$1" $#; output=$2; shift 2 ;;
    --fail-if) need_value "$1" $#; fail_if+=("$2"); shift 2 ;;
    --fail-if-list)
      need_value "$1" $#
      read -r -a words <<<"$2"
      fail_if+=(${words[@]+"${words[@]}"})
      shift 2
      ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "run-case.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if ! command -v jq >/dev/null 2>&1; then
  echo "run-case.sh: jq not found (apt-get install jq)" >&2
  exit 3
fi
if ! command -v "$xrunlab" >/dev/null 2>&1; then
  echo "run-case.sh: xrunlab ('$xrunlab') not found: give --xrunlab PROGRAM" >&2
  exit 3
fi

# lava-test-case inside LAVA; its words on stdout elsewhere.
report() {  # NAME RESULT [MEASUREMENT UNITS]
  if command -v lava-test-case >/dev/null 2>&1; then
    if [ $# -ge 4 ]; then
      lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
    else
      lava-test-case "$1" --result "$2"
    fi
  else
    echo "$*"
  fi
}

# A LAVA test case name for a threshold: letters, digits, '.', '_' and '-' only.
case_name() {
  local t=$1
  t=${t//>=/-ge-}
  t=${t//<=/-le-}
  t=${t//==/-eq-}
  t=${t//>/-gt-}
  t=${t//</-lt-}
  t=$(printf '%s' "$t" | tr -c 'A-Za-z0-9._-' '_')
  printf 'fail-if-%s' "$t"
}

# The text of JUnit's <system-out>, unescaped: one threshold check per line.
junit_checks() {
  sed -n '/<system-out>/,/<\/system-out>/p' "$1" |
    sed -e 's/<\/\{0,1\}system-out>//g' -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' \
      -e "s/&apos;/'/g" -e 's/&amp;/\&/g'
}

if [ -z "$output" ]; then
  output=$(mktemp -d "${TMPDIR:-/tmp}/xrunlab-lava-XXXXXX") || exit 3
fi
mkdir -p "$output" || exit 3
junit=$output/junit.xml
log=$output/xrunlab.log

argv=("$xrunlab" run --clients "$clients" --period "$period" --duration "$duration"
      --label "$label" --output "$output" --junit "$junit")
for t in ${fail_if[@]+"${fail_if[@]}"}; do argv+=(--fail-if "$t"); done
argv+=(${extra[@]+"${extra[@]}"})

echo "run-case.sh: ${argv[*]}" >&2
"${argv[@]}" >"$log" 2>&1
code=$?
echo "run-case.sh: xrunlab exited with $code; its output: $log" >&2

# The run folder as xrunlab names it ("Results: DIR"), else the newest run.json under DIR.
run_json=
run_dir=$(sed -n 's/^Results: //p' "$log" | tail -n 1)
if [ -n "$run_dir" ] && [ -f "$run_dir/run.json" ]; then
  run_json=$run_dir/run.json
else
  run_json=$(find "$output" -name run.json -newer "$log" -print -quit 2>/dev/null)
fi
status=
if [ -n "$run_json" ]; then
  echo "run-case.sh: run folder $(dirname "$run_json")" >&2
  status=$(jq -r '.status // ""' "$run_json" 2>/dev/null)
fi

if [ "$status" = completed ] && { [ "$code" -eq 0 ] || [ "$code" -eq 10 ]; }; then
  report xrunlab-run pass
else
  echo "run-case.sh: the run did not complete (status '${status:-no run.json}'):" >&2
  tail -n 5 "$log" >&2
  report xrunlab-run fail
fi

checks=
[ -f "$junit" ] && checks=$(junit_checks "$junit")
for t in ${fail_if[@]+"${fail_if[@]}"}; do
  # xrunlab's check lines: "<metric> = <v> (<COND>: passes|fails)" or
  # "<metric>: not measured, so it cannot pass '<COND>'".
  if printf '%s\n' "$checks" | grep -qF -- "($t: passes)"; then
    report "$(case_name "$t")" pass
  else
    report "$(case_name "$t")" fail
  fi
done

measure() {  # NAME JQ_PATH UNITS
  local v=
  [ -n "$run_json" ] && v=$(jq -r "$2 // empty" "$run_json" 2>/dev/null)
  if [ -n "$v" ]; then
    report "$1" pass "$v" "$3"
  else
    report "$1" skip
  fi
}
measure xrun-count .totals.xrun_count xruns
measure delay-max .jack_test.delay_max_us us
measure cycle-max .jack_test.cycle_max_us us
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --lava on the real jackd (tests/lava/CMakeLists.txt):
#
#   check_lava.sh run XRUNLAB
#       two 2 s runs (vcard, 2 clients). The first with tests/lava/fake-lava-test-case.sh first
#       on PATH as lava-test-case: it was called once per case, with exactly the argv expected
#       (names in order, results pass/skip/fail as the figures and thresholds decide, numbers
#       without exponent, units), its measurements equal to run.json's figures, and its
#       signals on xrunlab's stdout. The second without any lava-test-case on PATH: the same
#       cases printed as lines, and a threshold that holds by construction fails its case
#       (exit code 10).
#   check_lava.sh definition XRUNLAB REPOSITORY
#       scripts/lava/xrunlab.yaml's steps run as LAVA runs them (check_definition.py --run) in
#       its one-run mode (PRESET empty, a 2 s vcard run of 2 clients through RUN_OPTIONS,
#       FAIL_IF "xruns>1000000 delay_max>=10s") with the fake lava-test-case on PATH: 7 calls,
#       the run passing, xruns passing with its measurement.
#   check_lava.sh campaign XRUNLAB
#       campaign --preset jack_test4 --duration 1 --repetitions 1 --lava: its one case's runs
#       case (1 run) and figure cases printed; then run --repeat 2 --lava (a one-case
#       campaign): its case's runs case (2 runs) and figure cases.
#
# Structure and counts only, never latencies: the machine is a noisy VM. Exit 0: passed.
set -u

mode=${1:-}
xrunlab=${2:?usage: check_lava.sh run|definition|campaign XRUNLAB [REPOSITORY]}
here=$(cd "$(dirname "$0")" && pwd)
failures=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}
verdict() {  # WHAT COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else fail "not so: $what"; fi
}

# PATH without any lava-test-case.
clean_path() {
  local out='' d
  local IFS=:
  for d in $PATH; do
    [ -n "$d" ] && [ -x "$d/lava-test-case" ] && continue
    out=${out:+$out:}$d
  done
  printf '%s' "$out"
}

num='-?[0-9]+(\.[0-9]+)?'
figures=(xrun_count delay_max cycle_max xruns slack_p1 wakeup_p99)
declare -A unit=([xrun_count]=count [delay_max]=us [cycle_max]=us [xruns]=count [slack_p1]=us
                 [wakeup_p99]=us [dsp_load]=percent)

# The fake's log line (argv in [brackets]) for case NAME: "[NAME][--result][R]..." ; checks
# the form and returns the line through $line.
check_call() {  # LOG_LINES NAME ALLOWED_RESULTS(regex) UNITS
  local lines=$1 name=$2 results=$3 units=$4
  line=$(printf '%s\n' "$lines" | grep -F "[$name][" || true)
  if [ -z "$line" ]; then
    fail "no lava-test-case call for $name"
    return
  fi
  local re="^\[$name\]\[--result\]\[($results)\](\[--measurement\]\[$num\]\[--units\]\[$units\])?\$"
  if [[ $line =~ $re ]]; then
    echo "ok   $line"
  else
    fail "call for $name is '$line', not of the form $re"
  fi
  # skip and only skip has no measurement (a fail may lack one: not measured).
  if [[ $line == *"[skip]"* && $line == *--measurement* ]]; then fail "$name: skip with a measurement"; fi
  if [[ $line == *"[pass]"* && $name != *-run && $line != *--measurement* ]]; then
    fail "$name: pass without a measurement"
  fi
}

# run.json's figure by its path (jq-free: python's json), "" for null.
json_value() {  # RUN_JSON PATH...
  /usr/bin/python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$@"
}

measurement_of() {  # LINE -> its measurement or ""
  sed -n 's/.*\[--measurement\]\[\([^]]*\)\].*/\1/p' <<<"$1"
}

same_number() {  # A B: equal to 1e-6 (the lines' 6 decimals)
  # shellcheck disable=SC2317  # called through verdict
  /usr/bin/python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) <= 1e-6 else 1)' "$1" "$2"
}

case $mode in
  run)
    mkdir -p "$tmp/bin" "$tmp/out"
    cp "$here/fake-lava-test-case.sh" "$tmp/bin/lava-test-case"
    log=$tmp/calls
    : >"$log"
    out=$(PATH="$tmp/bin:$(clean_path)" LAVA_FAKE_LOG=$log "$xrunlab" run --backend vcard \
      --clients 2 --period 256 --duration 2 --label lava.it_1 --output "$tmp/out" --no-plots \
      --fail-if 'xruns>1000000' --fail-if 'dsp_load>1000' --lava)
    rc=$?
    echo "$out" | tail -n 12
    verdict "xrunlab run exited 0 (it exited $rc)" [ "$rc" -eq 0 ]
    calls=$(cat "$log")
    n=$(grep -c . "$log")
    verdict "8 lava-test-case calls: the run, 6 figures, dsp_load (there are $n)" [ "$n" -eq 8 ]
    verdict "the first call is the completed run" [ "$(head -n 1 "$log")" = '[lava.it_1-run][--result][pass]' ]
    order=$(sed 's/^\[\([^]]*\)\].*/\1/' "$log" | tr '\n' ' ')
    verdict "the cases in order ($order)" [ "$order" = "lava.it_1-run lava.it_1-xrun_count lava.it_1-delay_max lava.it_1-cycle_max lava.it_1-xruns lava.it_1-slack_p1 lava.it_1-wakeup_p99 lava.it_1-dsp_load " ]
    for f in "${figures[@]}"; do
      results='pass|skip'
      # The cycle table of a completed vcard run always counts its xrun events: a threshold
      # of a million in 2 s (under 400 cycles) holds by construction.
      [ "$f" = xruns ] && results='pass'
      check_call "$calls" "lava.it_1-$f" "$results" "${unit[$f]}"
    done
    # dsp_load named by a threshold it cannot cross: pass with a measurement, or fail unmeasured.
    check_call "$calls" lava.it_1-dsp_load 'pass|fail' percent
    [[ $line == *"[fail]"* && $line == *--measurement* ]] && fail "dsp_load failed with a measurement under 1000 %"
    # The measurements are run.json's figures.
    run_json=$(find "$tmp/out" -name run.json -print -quit)
    verdict "the run folder has run.json" [ -n "$run_json" ]
    if [ -n "$run_json" ]; then
      for pair in "xrun_count totals xrun_count" "delay_max jack_test delay_max_us" \
        "cycle_max jack_test cycle_max_us"; do
        read -r f a b <<<"$pair"
        v=$(json_value "$run_json" "$a" "$b")
        line=$(grep -F "[lava.it_1-$f][" "$log")
        m=$(measurement_of "$line")
        if [ -z "$v" ]; then
          verdict "$f: run.json has none, the case is skip" [ -z "$m" ]
        else
          verdict "$f: the measurement $m is run.json's $a.$b ($v)" same_number "$m" "$v"
        fi
      done
    fi
    signals=$(grep -c '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=lava.it_1-' <<<"$out")
    verdict "the helper's 8 signals reached xrunlab's stdout (there are $signals)" [ "$signals" -eq 8 ]
    verdict "no lava-test-case line printed when the helper ran" [ "$(grep -c '^lava-test-case ' <<<"$out")" -eq 0 ]

    # Without lava-test-case on PATH: the lines on stdout; xrun_count>=0 holds whatever the run.
    : >"$log"
    out=$(PATH="$(clean_path)" LAVA_FAKE_LOG=$log "$xrunlab" run --backend vcard --clients 2 \
      --period 256 --duration 2 --label lava2 --output "$tmp/out" --no-plots \
      --fail-if 'xrun_count>=0' --lava)
    rc=$?
    verdict "a crossed threshold: exit code 10 (it exited $rc)" [ "$rc" -eq 10 ]
    lines=$(grep '^lava-test-case ' <<<"$out")
    echo "$lines"
    n=$(grep -c . <<<"$lines")
    verdict "7 lines: the run and 6 figures (there are $n)" [ "$n" -eq 7 ]
    verdict "nothing called the fake" [ ! -s "$log" ]
    # The lines as the fake would log them: words in brackets.
    as_calls=$(sed -e 's/^lava-test-case //' -e 's/\([^ ]*\)/[\1]/g' -e 's/ //g' <<<"$lines")
    check_call "$as_calls" lava2-run pass ''
    check_call "$as_calls" lava2-xrun_count fail count
    for f in delay_max cycle_max slack_p1 wakeup_p99; do
      check_call "$as_calls" "lava2-$f" 'pass|skip' "${unit[$f]}"
    done
    check_call "$as_calls" lava2-xruns pass count
    ;;
  definition)
    repo=${3:?REPOSITORY}
    mkdir -p "$tmp/bin" "$tmp/out"
    cp "$here/fake-lava-test-case.sh" "$tmp/bin/lava-test-case"
    log=$tmp/calls
    : >"$log"
    out=$(PATH="$tmp/bin:$(clean_path)" LAVA_FAKE_LOG=$log /usr/bin/python3 \
      "$here/check_definition.py" --run "$repo" XRUNLAB="$xrunlab" PRESET= CLIENTS=2 PERIOD=256 \
      DURATION=2 LABEL=lava-def FAIL_IF='xruns>1000000 delay_max>=10s' \
      RUN_OPTIONS="--backend vcard --no-plots --output $tmp/out")
    rc=$?
    echo "$out" | tail -n 10
    verdict "the steps exited 0 (they exited $rc)" [ "$rc" -eq 0 ]
    calls=$(cat "$log")
    n=$(grep -c . "$log")
    verdict "7 lava-test-case calls: the run and 6 figures (there are $n)" [ "$n" -eq 7 ]
    verdict "the first call is the completed run" [ "$(head -n 1 "$log")" = '[lava-def-run][--result][pass]' ]
    check_call "$calls" lava-def-xruns pass count
    for f in xrun_count delay_max cycle_max slack_p1 wakeup_p99; do
      check_call "$calls" "lava-def-$f" 'pass|skip' "${unit[$f]}"
    done
    verdict "the run went where RUN_OPTIONS said" [ -n "$(find "$tmp/out" -name run.json -print -quit)" ]
    ;;
  campaign)
    out=$(PATH="$(clean_path)" "$xrunlab" campaign --preset jack_test4 --duration 1 \
      --repetitions 1 --dir "$tmp/c" -q --fail-if 'xruns>1000000' --lava)
    rc=$?
    echo "$out" | tail -n 12
    verdict "xrunlab campaign exited 0 (it exited $rc)" [ "$rc" -eq 0 ]
    lines=$(grep '^lava-test-case ' <<<"$out")
    n=$(grep -c . <<<"$lines")
    verdict "7 lines: the case's runs and 6 figures (there are $n)" [ "$n" -eq 7 ]
    as_calls=$(sed -e 's/^lava-test-case //' -e 's/\([^ ]*\)/[\1]/g' -e 's/ //g' <<<"$lines")
    verdict "the case ran once" grep -qxF '[01-default-runs][--result][pass][--measurement][1][--units][runs]' <<<"$as_calls"
    check_call "$as_calls" 01-default-xruns pass count
    for f in xrun_count delay_max cycle_max slack_p1 wakeup_p99; do
      check_call "$as_calls" "01-default-$f" 'pass|skip' "${unit[$f]}"
    done
    # run --repeat: the runs' campaign reports (--lava not passed on to each run).
    out=$(PATH="$(clean_path)" "$xrunlab" run --backend vcard --clients 2 --duration 1 \
      --repeat 2 --label rep --output "$tmp/r" --no-plots -q --lava)
    rc=$?
    verdict "xrunlab run --repeat 2 exited 0 (it exited $rc)" [ "$rc" -eq 0 ]
    lines=$(grep '^lava-test-case ' <<<"$out")
    n=$(grep -c . <<<"$lines")
    verdict "7 lines: the case's runs and 6 figures (there are $n)" [ "$n" -eq 7 ]
    verdict "the first is its 2 runs" [ "$(head -n 1 <<<"$lines")" = 'lava-test-case rep-runs --result pass --measurement 2 --units runs' ]
    verdict "no run's own log has a lava-test-case line" \
      [ -z "$(grep -rl '^lava-test-case ' "$tmp/r" 2>/dev/null)" ]
    ;;
  *)
    echo "usage: check_lava.sh run|definition|campaign XRUNLAB [REPOSITORY]" >&2
    exit 2
    ;;
esac
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
exit 0

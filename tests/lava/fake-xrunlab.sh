#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for `xrunlab run` in tests/lava: writes what a completed run whose "xruns"
# thresholds fail would write (run.json, the JUnit report, the "Results:" line) and exits 10,
# as xrunlab does when a --fail-if threshold is crossed. Cycle Maximum is null (not measured).
set -eu
[ "${1:-}" = run ] || { echo "fake-xrunlab: only 'run'" >&2; exit 2; }
shift
output=''
label=run
junit=''
checks=()
while [ $# -gt 0 ]; do
  case $1 in
    --output) output=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --junit) junit=$2; shift 2 ;;
    --fail-if)
      case $2 in
        xruns*) checks+=("xruns = 3 ($2: fails)") ;;
        *) checks+=("delay_max = 123.5 us ($2: passes)") ;;
      esac
      shift 2
      ;;
    *) shift ;;
  esac
done
dir=$output/$label/20260101T000000Z
mkdir -p "$dir"
cat >"$dir/run.json" <<JSON
{"schema_version": 2, "status": "completed",
 "totals": {"xrun_count": 3},
 "jack_test": {"delay_max_us": 123.5, "cycle_max_us": null}}
JSON
if [ -n "$junit" ]; then
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<testsuites><testsuite name="fake"><testcase name="x" classname="xrunlab.run">'
    printf '<system-out>'
    for c in ${checks[@]+"${checks[@]}"}; do
      printf '%s\n' "$c" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
    done
    echo '</system-out></testcase></testsuite></testsuites>'
  } >"$junit"
fi
echo "Results: $dir"
exit 10

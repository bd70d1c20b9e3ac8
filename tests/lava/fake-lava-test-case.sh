#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for LAVA's lava-test-case helper (tests/lava): appends its arguments, each in
# [brackets], one call a line, to $LAVA_FAKE_LOG, and prints the signal LAVA's own helper
# prints for a result ("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=... RESULT=...>").
log=${LAVA_FAKE_LOG:?LAVA_FAKE_LOG is not set}
line=
for a in "$@"; do line="${line}[${a}]"; done
printf '%s\n' "$line" >>"$log"
name=$1
shift
result="" measurement="" units=""
while [ $# -gt 1 ]; do
  case $1 in
    --result) result=$2 ;;
    --measurement) measurement=$2 ;;
    --units) units=$2 ;;
  esac
  shift 2
done
if [ -n "$measurement" ]; then
  echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$name RESULT=$result UNITS=$units MEASUREMENT=$measurement>"
else
  echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$name RESULT=$result>"
fi

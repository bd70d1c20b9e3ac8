#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of scripts/lava/run-case.sh and scripts/lava/xrunlab.yaml (tests/lava/CMakeLists.txt):
#
#   check_run_case.sh fake SCRIPTS_DIR
#       run-case.sh on tests/lava/fake-xrunlab.sh: the exact lines for known figures (a passing
#       and a failing threshold, two measurements, one not measured)
#   check_run_case.sh real SCRIPTS_DIR XRUNLAB
#       run-case.sh on a real 2 s run: every case line there, each pass, fail or skip with its
#       measurement (structure, not values: the machine is a noisy VM)
#   check_run_case.sh yaml SCRIPTS_DIR
#       xrunlab.yaml is a LAVA test definition 1.0 (parsed with /usr/bin/python3's yaml when
#       python3-yaml is there, else its keys checked line by line) whose step calls run-case.sh
#
# lava-test-case is never on PATH here: run-case.sh prints its lines. Exit 0: passed.
set -u

mode=${1:-}
scripts=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
failures=0

fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
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

# "ok   WHAT" when the command succeeds, else a failure naming WHAT.
verdict() {  # WHAT COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else fail "not so: $what"; fi
}

expect_line() {  # OUTPUT REGEX
  if printf '%s\n' "$1" | grep -qE -- "$2"; then
    echo "ok   a line matches ^${2#^}"
  else
    fail "no line matches $2"
  fi
}

run_case() {  # ARGS... -> stdout of run-case.sh; stderr shown
  PATH=$(clean_path) "$scripts/lava/run-case.sh" "$@"
}

case $mode in
  fake)
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    out=$(run_case --xrunlab "$here/fake-xrunlab.sh" --duration 2 --output "$tmp" \
      --fail-if 'xruns>0' --fail-if-list 'delay_max>=2ms')
    rc=$?
    echo "$out"
    [ "$rc" -eq 0 ] || fail "run-case.sh exited with $rc"
    expected='xrunlab-run pass
fail-if-xruns-gt-0 fail
fail-if-delay_max-ge-2ms pass
xrun-count pass 3 xruns
delay-max pass 123.5 us
cycle-max skip'
    if [ "$out" = "$expected" ]; then
      echo "ok   the lines are the expected ones"
    else
      fail "expected:"$'\n'"$expected"
    fi
    # Bad usage is refused with exit code 2.
    run_case --no-such-option >/dev/null 2>&1
    rc=$?
    verdict "an unknown option exits 2 (it exited $rc)" [ "$rc" -eq 2 ]
    ;;
  real)
    xrunlab=${3:?XRUNLAB}
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    out=$(run_case --xrunlab "$xrunlab" --clients 2 --period 256 --duration 2 --label lava-it \
      --output "$tmp" --fail-if-list 'xruns>1000000 delay_max>=10s' -- --no-plots)
    rc=$?
    echo "$out"
    [ "$rc" -eq 0 ] || fail "run-case.sh exited with $rc"
    expect_line "$out" '^xrunlab-run (pass|fail)$'
    expect_line "$out" '^fail-if-xruns-gt-1000000 (pass|fail)$'
    expect_line "$out" '^fail-if-delay_max-ge-10s (pass|fail)$'
    num='-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
    expect_line "$out" "^xrun-count (pass $num xruns|skip)\$"
    expect_line "$out" "^delay-max (pass $num us|skip)\$"
    expect_line "$out" "^cycle-max (pass $num us|skip)\$"
    lines=$(printf '%s\n' "$out" | grep -c .)
    verdict "6 case lines (there are $lines)" [ "$lines" -eq 6 ]
    verdict "the run folder has run.json" [ -f "$(find "$tmp" -name run.json -print -quit)" ]
    verdict "xrunlab wrote the JUnit report" [ -s "$tmp/junit.xml" ]
    ;;
  yaml)
    yaml=$scripts/lava/xrunlab.yaml
    if /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
      /usr/bin/python3 - "$yaml" <<'PY' || failures=$((failures + 1))
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
m = d["metadata"]
problems = []
if m.get("format") != "Lava-Test Test Definition 1.0":
    problems.append("metadata.format is %r" % m.get("format"))
for k in ("name", "description"):
    if not isinstance(m.get(k), str) or not m[k]:
        problems.append("metadata.%s is not a text" % k)
for k in ("os", "scope", "devices"):
    if not isinstance(m.get(k), list) or not m[k]:
        problems.append("metadata.%s is not a list" % k)
if not isinstance(d.get("install", {}).get("deps"), list):
    problems.append("install.deps is not a list")
steps = d.get("run", {}).get("steps")
if not isinstance(steps, list) or not any("scripts/lava/run-case.sh" in s for s in steps):
    problems.append("run.steps does not call scripts/lava/run-case.sh")
for p, v in (d.get("params") or {}).items():
    if not isinstance(v, str):
        problems.append("params.%s is not a string" % p)
for p in problems:
    print("FAIL " + p)
if not problems:
    print("ok   %s parses as a LAVA test definition 1.0 (yaml)" % sys.argv[1])
sys.exit(1 if problems else 0)
PY
    else
      echo "python3-yaml is not installed: the keys are checked line by line"
      for re in '^metadata:$' '^  format: Lava-Test Test Definition 1\.0$' '^  name: ' \
        '^  description: ' '^  os:$' '^  scope:$' '^  devices:$' '^install:$' '^  deps:$' \
        '^run:$' '^  steps:$' '^    - \./scripts/lava/run-case\.sh '; do
        verdict "a line matches $re" grep -qE -- "$re" "$yaml"
      done
    fi
    ;;
  *)
    echo "usage: check_run_case.sh fake|real|yaml SCRIPTS_DIR [XRUNLAB]" >&2
    exit 2
    ;;
esac
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
exit 0

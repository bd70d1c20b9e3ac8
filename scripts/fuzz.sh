#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer targets (tests/fuzz) with clang 14, ASan and UBSan in build-fuzz, then runs
# each one in turn (one process each: the machine's cores are for the targets one after another)
# on a copy of its seed corpus, and prints a table: target, executions, crashes, seconds.
#
#   scripts/fuzz.sh                  every target for 60 s
#   scripts/fuzz.sh 10               every target for 10 s (what scripts/test.sh runs)
#   scripts/fuzz.sh --runs 3000000   every target for 3,000,000 executions
#   scripts/fuzz.sh 300 policy       only the named targets (policy_fuzz ...)
#   scripts/fuzz.sh 600 --merge      then add the inputs that found new coverage to the seed
#                                    corpus in tests/fuzz/corpus/ (nothing in tests/ changes
#                                    without --merge)
#
# The working corpus of each target is build-fuzz/corpus/TARGET (seeded from tests/fuzz/corpus,
# kept between runs); its log build-fuzz/fuzz-logs/TARGET.log. An input that crashes, leaks, hangs
# (10 s) or trips a sanitizer is kept in build-fuzz/crashes/TARGET/ (reproduce it with
# build-fuzz/bin/TARGET_fuzz FILE) and the script exits 1 once every target has run.
# Exit codes: 0 no finding, 1 a finding, 2 bad arguments, 3 clang-14 or libFuzzer missing
# (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,20p' "$0"; }
seconds=60
runs=""
merge=0
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs)
      [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] ||
        { echo "fuzz.sh: error: --runs needs a positive number of executions" >&2; exit 2; }
      runs="$2"; shift ;;
    --merge) merge=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: error: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *)
      if [[ "$1" =~ ^[0-9]+$ ]]; then
        [ "$1" -gt 0 ] || { echo "fuzz.sh: error: SECONDS_PER_TARGET must be > 0" >&2; exit 2; }
        seconds="$1"
      elif [ -d "tests/fuzz/corpus/$1" ]; then
        only+=("$1")
      else
        echo "fuzz.sh: error: '$1' is neither a number of seconds nor a target" \
             "(targets: $(ls tests/fuzz/corpus | tr '\n' ' '))" >&2
        exit 2
      fi ;;
  esac
  shift
done

for tool in clang-14 clang++-14; do
  command -v "$tool" >/dev/null ||
    { echo "fuzz.sh: error: $tool not found; run scripts/setup.sh (it installs clang-14," \
           "libfuzzer-14-dev and libclang-rt-14-dev)" >&2; exit 3; }
done

# A build folder of its own: clang, every object instrumented (the main build stays g++).
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DXRUNLAB_FUZZ=ON -DXRUNLAB_TESTS=OFF -DXRUNLAB_BENCHMARKS=OFF -DXRUNLAB_WERROR=ON >/dev/null
fi
cmake --build build-fuzz -j"$(nproc)" --target xrunlab_fuzz

if [ "${#only[@]}" -gt 0 ]; then
  targets=("${only[@]}")
else
  mapfile -t targets < <(ls tests/fuzz/corpus)
fi

mkdir -p build-fuzz/corpus build-fuzz/crashes build-fuzz/fuzz-logs
findings=0
rows=()
for t in "${targets[@]}"; do
  bin="build-fuzz/bin/${t}_fuzz"
  [ -x "$bin" ] || { echo "fuzz.sh: error: $bin was not built" >&2; exit 1; }
  work="build-fuzz/corpus/$t" crashes="build-fuzz/crashes/$t" log="build-fuzz/fuzz-logs/$t.log"
  mkdir -p "$work" "$crashes"
  for seed in tests/fuzz/corpus/"$t"/*; do
    [ -e "$work/$(basename "$seed")" ] || cp "$seed" "$work/"
  done
  args=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=1
        -artifact_prefix="$crashes/")
  if [ -n "$runs" ]; then args+=(-runs="$runs"); else args+=(-max_total_time="$seconds"); fi
  [ -f "tests/fuzz/dict/$t.dict" ] && args+=(-dict="tests/fuzz/dict/$t.dict")
  before=$(find "$crashes" -type f | wc -l)
  start=$(date +%s%N)
  status=0
  "$bin" "${args[@]}" "$work" >"$log" 2>&1 || status=$?
  took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashed=$(( $(find "$crashes" -type f | wc -l) - before ))
  if [ "$status" -ne 0 ] && [ "$crashed" -eq 0 ]; then crashed=1; fi  # e.g. an error before a run
  if [ "$crashed" -ne 0 ]; then
    findings=1
    echo "fuzz.sh: $t: finding, see $log and $crashes/" >&2
    grep -m1 -E "ERROR: |runtime error|invariant failed|deadly signal" "$log" >&2 || true
  fi
  rows+=("$(printf '%-18s %12s %8s %7d.%d' "$t" "${execs:-?}" "$crashed" \
    $((took_ms / 1000)) $((took_ms % 1000 / 100)))")
  if [ "$merge" = 1 ]; then
    "$bin" -merge=1 -close_fd_mask=1 "tests/fuzz/corpus/$t" "$work" >>"$log" 2>&1
  fi
done

printf '%-18s %12s %8s %9s\n' target executions crashes seconds
printf '%s\n' "${rows[@]}"
exit "$findings"

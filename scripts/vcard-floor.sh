#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How far jackd's wake-up on the virtual card sits above the floor of any card driven through a
# file descriptor: a bare SCHED_FIFO loop waiting on a timerfd with absolute deadlines on the
# same period grid (xrunlab-timer-floor). Each repetition runs
#   xrunlab run --backend vcard --baseline cyclictest  (CLIENTS clients x 1 port, 256 frames at
#                                                       48 kHz, 10 % DSP, SECONDS s)
# WITH xrunlab-timer-floor beside it at jackd's priority (70) and the period as interval; the
# loop starts before `xrunlab run` and is stopped (SIGINT) after it, so it also spans the run's
# start-up and tear-down (a few seconds). cyclictest is the run's own baseline, at the clients'
# priority (65). Prints one Markdown row per repetition: p50 / p99 / max (usecs) of the loop, of
# cyclictest and of jackd's wake-up after the card's interrupt (the card's record), and the
# ratios of jackd's p99 to the loop's and to cyclictest's.
# Usage: scripts/vcard-floor.sh [SECONDS=30] [REPETITIONS=3] [CLIENTS=2] [LOOP_PRIORITY=70]
#                               [LOOP_OFFSET_US=0]
# (Experiments: LOOP_PRIORITY other than jackd's 70 decides which of the two, woken by timers on
# the same instants, runs first; LOOP_OFFSET_US moves the loop's deadlines off the boundaries,
# e.g. by half a period, so that the two do not compete.)
# Needs root (or an rtprio limit of 70), jq, cyclictest (rt-tests) and a build (cmake --build
# build); results go to results/vcard-floor/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
reps="${2:-3}"
clients="${3:-2}"
bin=build/bin/xrunlab
floor=build/bin/xrunlab-timer-floor
for tool in jq cyclictest "$bin" "$floor"; do
  command -v "$tool" >/dev/null || {
    echo "vcard-floor: $tool not found (scripts/setup.sh installs and builds everything)" >&2
    exit 3
  }
done
period=256
rate=48000
priority="${4:-70}"  # jackd's by default (-P 70, xrunlab's default server priority)
offset_us="${5:-0}"
out=results/vcard-floor
mkdir -p "$out"

loop_pid=""
stop_loop() {  # every exit path stops the loop this script started
  if [[ -n "$loop_pid" ]] && kill -0 "$loop_pid" 2>/dev/null; then
    kill -INT "$loop_pid" 2>/dev/null || true
    wait "$loop_pid" 2>/dev/null || true
  fi
  loop_pid=""
}
trap stop_loop EXIT

echo "jackd wake-up on vcard against a bare timerfd loop and cyclictest, beside each other:"
echo "$clients clients, $period frames at $rate Hz, $seconds s per repetition, loop at" \
     "SCHED_FIFO $priority, +$offset_us us, $(uname -r), $(nproc) CPUs"
echo
echo "| rep | timerfd loop p50 / p99 / max | cyclictest p50 / p99 / max |" \
     "jackd wake-up p50 / p99 / max | jackd p99 / loop p99 | jackd p99 / cyclictest p99 |"
echo "|---|---|---|---|---|---|"
for rep in $(seq 1 "$reps"); do
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  loop_json="$out/timer-floor-$stamp-$rep.json"
  "$floor" --rate "$rate" --period "$period" --priority "$priority" --offset-us "$offset_us" \
    --duration $(( seconds + 600 )) --output "$loop_json" &
  loop_pid=$!
  "$bin" run --backend vcard --baseline cyclictest --clients "$clients" --ports 1 \
    --period "$period" --rate "$rate" --dsp-load 10 --duration "$seconds" \
    --output "$out" --label "vcard-floor-$rep" --quiet >/dev/null
  stop_loop
  run_json="$(ls -d "$out/vcard-floor-$rep"/*/ | sort | tail -n 1)run.json"
  read -r l50 l99 lmax < <(jq -r '.lateness_us | "\(.p50.value_us) \(.p99.value_us) \(.max)"' \
                             "$loop_json")
  read -r c50 c99 cmax < <(jq -r '.baseline | "\(.p50.value_us) \(.p99.value_us) \(.max_us)"' \
                             "$run_json")
  read -r j50 j99 jmax < <(jq -r '.cycles.hops[] | select(.key == "jackd_wakeup") |
                             .summary_us | "\(.p50.value_us) \(.p99.value_us) \(.max)"' \
                             "$run_json")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
  echo "| $rep | $l50 / $l99 / $lmax | $c50 / $c99 / $cmax | $j50 / $j99 / $jmax |" \
       "$(ratio "$j99" "$l99") | $(ratio "$j99" "$c99") |"
done

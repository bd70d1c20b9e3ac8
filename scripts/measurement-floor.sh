#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The measurement floor: how far above the machine's own timer wake-up latency xrunlab's numbers
# sit, with the timer measured BESIDE each run (`--baseline cyclictest`: cyclictest at the
# clients' priority, the period as its interval, through the measurement window), so that both
# see the same machine at the same moment. Runs, one after the other, for SECONDS each (default
# 60):
#   1. xrunlab run --backend vcard  (2 clients x 1 port, 256 frames, 10 % DSP)
#   2. xrunlab run --backend dummy  (the same)
# and prints, per run, p50 / p99 / max of the head client's callback delay, jackd's wake-up after
# the card's interrupt (vcard only: dummy has no interrupt), and the cyclictest beside it, and
# the ratios of the run's p99s to cyclictest's p99 as run.json gives them.
# With --dma-latency (needs root) both runs hold /dev/cpu_dma_latency at 0, the condition under
# which cyclictest's own floor is usually quoted; without it neither the run nor its cyclictest
# does. Needs an rtprio limit (or root), jq and cyclictest (rt-tests); results go to
# results/floor-<backend>/.
#   usage: scripts/measurement-floor.sh [--dma-latency] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
dma=()
if [[ "${1:-}" == "--dma-latency" ]]; then dma=(--dma-latency); shift; fi
seconds="${1:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] || {
  echo "measurement-floor: SECONDS must be a whole number, not '$seconds'" \
       "(usage: scripts/measurement-floor.sh [--dma-latency] [SECONDS])" >&2
  exit 2
}
bin=build/bin/xrunlab
for tool in jq cyclictest "$bin"; do
  command -v "$tool" >/dev/null || {
    echo "measurement-floor: $tool not found (scripts/setup.sh installs and builds everything)" >&2
    exit 3
  }
done
period=256
rate=48000
common=(--clients 2 --ports 1 --period "$period" --rate "$rate" --dsp-load 10
        --duration "$seconds" --baseline cyclictest "${dma[@]}" --output results --quiet)

newest_run() { ls -d "results/$1"/*/ | sort | tail -n 1; }
# "p50 p99 max" of a {p50:{value_us}, p99:{value_us}, max} object, "-" where absent.
triple() { jq -r "$2 | if . == null then \"- - -\" else \"\(.p50.value_us) \(.p99.value_us) \(.max // .max_us)\" end" "$1"; }

rows=()
for backend in vcard dummy; do
  "$bin" run --backend "$backend" --label "floor-$backend" "${common[@]}" >/dev/null
  dir=$(newest_run "floor-$backend")
  json="$dir/run.json"
  ref=$(jq -r '.measurement.delay_reference_exact' "$json")
  read -r p50 p99 max < <(triple "$json" '.clients[0].delay_us')
  rows+=("| $backend | head client's callback delay (exact reference: $ref) | $p50 | $p99 | $max |")
  if [[ "$backend" == vcard ]]; then
    read -r p50 p99 max < <(triple "$json" '.jack.backend.card.wake_latency_us')
    rows+=("| $backend | jackd's wake-up after the card's interrupt | $p50 | $p99 | $max |")
  fi
  read -r p50 p99 max < <(triple "$json" '.baseline')
  prio=$(jq -r '.baseline.priority' "$json")
  interval=$(jq -r '.baseline.interval_us' "$json")
  rows+=("| $backend | cyclictest beside it (-p $prio -i $interval) | $p50 | $p99 | $max |")
  ratios=$(jq -r '.baseline.ratios_to_p99 // {} | to_entries
                  | map("\(.key) \(if .value == null then "-" else "\(.value)x" end)") | join(", ")' "$json")
  rows+=("| $backend | p99 / cyclictest's p99: ${ratios:-none} | | | |")
done

echo "Measurement floor, $seconds s each, $period frames at $rate Hz ($(uname -r), $(nproc) CPUs)," \
     "${dma[*]:-without --dma-latency}"
echo
echo "| run | what (usecs) | p50 | p99 | max |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"

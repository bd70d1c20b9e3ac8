#!/usr/bin/env bash
# The measurement floor: how far above the machine's own timer wake-up latency (cyclictest)
# xrunlab's head client sits, on the virtual card (exact reference) and on JACK's dummy driver.
# Runs, one after the other on an otherwise idle machine, for SECONDS each (default 60):
#   1. xrunlab run --backend vcard  (2 clients x 1 port, 256 frames, 10 % DSP)
#   2. xrunlab run --backend dummy  (the same)
#   3. cyclictest at the head client's priority (65) and the period as its interval
# and prints p50 / p99 / max of each as a Markdown table. Needs root (or an rtprio limit),
# jq, and cyclictest (rt-tests); results go to results/floor/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
bin=build/bin/xrunlab
for tool in jq cyclictest "$bin"; do
  command -v "$tool" >/dev/null || {
    echo "measurement-floor: $tool not found (scripts/setup.sh installs and builds everything)" >&2
    exit 3
  }
done
period=256
rate=48000
interval_us=$(( period * 1000000 / rate ))
common=(--clients 2 --ports 1 --period "$period" --rate "$rate" --dsp-load 10
        --duration "$seconds" --output results --quiet)

head_client() {  # run.json -> "p50 p99 max" of client 1's delay
  jq -r '.clients[0].delay_us | "\(.p50.value_us) \(.p99.value_us) \(.max)"' "$1"
}
newest_run() { ls -d "results/$1"/*/ | sort | tail -n 1; }

rows=()
for backend in vcard dummy; do
  "$bin" run --backend "$backend" --label "floor-$backend" "${common[@]}" >/dev/null
  dir=$(newest_run "floor-$backend")
  read -r p50 p99 max < <(head_client "$dir/run.json")
  ref=$(jq -r '.measurement.delay_reference_exact' "$dir/run.json")
  rows+=("| xrunlab head client, --backend $backend (exact reference: $ref) | $p50 | $p99 | $max |")
done

mkdir -p results/floor
hist=results/floor/cyclictest-$(date -u +%Y%m%dT%H%M%SZ).txt
cyclictest -m -p 65 -i "$interval_us" -D "${seconds}s" -h 20000 -q > "$hist"
read -r p50 p99 max < <(awk '
  /^[0-9]+ [0-9]+$/ { v = $1 + 0; n = $2 + 0; if (n > 0) { val[++k] = v; cnt[k] = n; total += n } }
  /^# Max Latencies:/ { max = $4 + 0 }
  END {
    for (i = 1; i <= k; i++) {
      run += cnt[i]
      if (p50 == "" && run >= 0.50 * total) p50 = val[i]
      if (p99 == "" && run >= 0.99 * total) p99 = val[i]
    }
    print p50, p99, max
  }' "$hist")
rows+=("| cyclictest -p 65 -i $interval_us (timer wake-up, same priority and interval) | $p50 | $p99 | $max |")

echo "Measurement floor, $seconds s each, $period frames at $rate Hz ($(uname -r), $(nproc) CPUs)"
echo
echo "| what (usecs) | p50 | p99 | max |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"

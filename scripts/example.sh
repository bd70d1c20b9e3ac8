#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates the curated example run that README.md quotes and shows: results/examples/jack_test-64/
# (summary.txt, run.json, seconds.jsonl, timeseries.csv, plots/*.png, report.html with a
# screenshot of its top (report.png) and terminal.txt, what the run printed, of one run on this
# machine).
#
#   scripts/example.sh            run the example's setting and replace results/examples/jack_test-64/
#
# The setting is jack_test's (14 clients x 4 ports, 64 frames, the virtual card) for 10 s: on a
# small VM 64 frames gives a few xruns every second, so the example shows how the cycle table
# and each other source saw them (the demo, scripts/setup.sh, uses 256 frames to stay quiet). Needs a build (scripts/setup.sh --no-demo). After it,
# paste the new lines into the quoted blocks of README.md and docs/outputs.md (after their
# "<!-- quoted from ... -->" lines; tests/docs/readme_test.py checks them against these files):
# the numbers are this machine's, at this moment.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x build/bin/xrunlab ]; then
  echo "example.sh: build/bin/xrunlab is missing: run scripts/setup.sh --no-demo first" >&2
  exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
build/bin/xrunlab run --period 64 --duration 10 --label example --output "$scratch" \
  >"$scratch/terminal.txt"
run=$(find "$scratch/example" -mindepth 1 -maxdepth 1 -type d | head -n 1)
if [ -z "$run" ] || [ ! -f "$run/summary.txt" ]; then
  echo "example.sh: the run left no summary.txt under $scratch/example" >&2
  exit 1
fi
rm -rf results/examples/jack_test-64
mkdir -p results/examples/jack_test-64/plots
cp "$run/summary.txt" "$run/run.json" "$run/seconds.jsonl" "$run/timeseries.csv" \
  results/examples/jack_test-64/
cp "$run"/plots/*.png results/examples/jack_test-64/plots/
cp "$run/report.html" results/examples/jack_test-64/
# The report as a browser shows its top (Debian's chromium-headless-shell, which setup.sh
# installs): the README's picture of it.
chromium-headless-shell --no-sandbox --disable-gpu --headless --hide-scrollbars \
  --user-data-dir="$scratch/chromium" --window-size=1100,1500 \
  --screenshot="$PWD/results/examples/jack_test-64/report.png" "file://$run/report.html" \
  >/dev/null 2>&1
# What the run printed (its short result), with the folder named as committed.
sed "s|$run|results/examples/jack_test-64|" "$scratch/terminal.txt" \
  >results/examples/jack_test-64/terminal.txt
echo "example.sh: results/examples/jack_test-64/ now holds the run of $(basename "$run")"

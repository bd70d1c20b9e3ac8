#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates a curated example campaign under results/examples/PRESET/ (what the campaign
# printed, terminal.txt; campaign-summary.txt and .json; campaign.png and the preset's own
# picture, maxima-spread.png for rt-kernel-2007, latency-vs-runqueue.png for periodic-2001; the campaign's report.html and a screenshot of
# its top, report.png). The presets and how short their examples are, on a 2-core VM:
#   iso-vs-fifo-2005  1/25 (12 s runs), 5 repetitions: 10 cases x 5 runs, about 14 minutes
#                     (docs/policies.md, "Comparing policies", and README.md show it)
#   rt-kernel-2007    1/20 (9 s runs), 5 repetitions: 3 cases x 5 runs, about 4 minutes
#   preempt-2004      1/10 (6 s runs), 3 repetitions: 7 cases x 3 runs, about 4 minutes (root:
#                     --ping makes a network namespace)
#   periodic-2001     1/10 (6 s runs), 3 repetitions: 8 cases x 3 runs, about 4 minutes
#
#   scripts/example-campaign.sh [PRESET]             run the campaign (results/campaigns/PRESET,
#                                                    continued if it is there) and copy its files
#   scripts/example-campaign.sh [PRESET] --from DIR  copy them from a finished campaign folder
#                                                    DIR (no terminal.txt then, unless DIR has one)
# PRESET defaults to iso-vs-fifo-2005.
#
# Needs a build (scripts/setup.sh --no-demo) and chromium-headless-shell (setup.sh installs it).
# After it, paste the new lines into the documents' quoted blocks (after their
# "<!-- quoted from ... -->" lines; tests/docs/readme_test.py checks them): the numbers are
# this machine's, at this moment.
set -euo pipefail
cd "$(dirname "$0")/.."
from=""
preset=iso-vs-fifo-2005
case "${1:-}" in
  iso-vs-fifo-2005|rt-kernel-2007|preempt-2004|periodic-2001) preset=$1; shift ;;
esac
case "${1:-}" in
  "") ;;
  --from) from="${2:?example-campaign.sh: --from needs a campaign folder}" ;;
  -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
  *) echo "example-campaign.sh: error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
case "$preset" in
  iso-vs-fifo-2005) scale=0.04 repetitions=5 ;;
  rt-kernel-2007) scale=0.05 repetitions=5 ;;
  preempt-2004) scale=0.1 repetitions=3 ;;
  periodic-2001) scale=0.1 repetitions=3 ;;
esac
if [ ! -x build/bin/xrunlab ]; then
  echo "example-campaign.sh: build/bin/xrunlab is missing: run scripts/setup.sh --no-demo first" >&2
  exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ -z "$from" ]; then
  from=results/campaigns/$preset
  # What a person sees: the campaign's closing block on stdout (progress goes to stderr).
  build/bin/xrunlab campaign --preset "$preset" --scale "$scale" --repetitions "$repetitions" \
    --dir "$from" | tee "$scratch/terminal.txt"
  cp "$scratch/terminal.txt" "$from/terminal.txt"
fi
for f in campaign.png campaign-summary.txt campaign-summary.json report.html; do
  if [ ! -f "$from/$f" ]; then
    echo "example-campaign.sh: $from/$f is missing: is $from a finished campaign?" >&2
    exit 1
  fi
done
out=results/examples/$preset
rm -rf "$out"
mkdir -p "$out"
cp "$from/campaign.png" "$from/campaign-summary.txt" "$from/campaign-summary.json" \
  "$from/report.html" "$out/"
for f in maxima-spread.png latency-vs-runqueue.png; do
  if [ -f "$from/$f" ]; then cp "$from/$f" "$out/"; fi
done
if [ -f "$from/terminal.txt" ]; then
  sed "s|$(cd "$from" && pwd)|$out|; s|$from|$out|" "$from/terminal.txt" >"$out/terminal.txt"
fi
# The report as a browser shows its top (Debian's chromium-headless-shell).
chromium-headless-shell --no-sandbox --disable-gpu --headless --hide-scrollbars \
  --user-data-dir="$scratch/chromium" --window-size=1100,1500 \
  --screenshot="$PWD/$out/report.png" "file://$PWD/$out/report.html" >/dev/null 2>&1
echo "example-campaign.sh: $out/ now holds $from"

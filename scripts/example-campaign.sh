#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates the curated example campaign that docs/policies.md ("Comparing policies") and
# README.md show: results/examples/iso-vs-fifo-2005/ (what the campaign printed, terminal.txt;
# campaign-summary.txt and .json; campaign.png; the campaign's report.html and a screenshot of
# its top, report.png), from the iso-vs-fifo-2005 preset shortened to 1/25 (12 s runs) with 5
# repetitions: 10 cases x 5 runs, about 14 minutes on a 2-core VM.
#
#   scripts/example-campaign.sh             run the campaign (results/campaigns/iso-vs-fifo-2005,
#                                           continued if it is there) and copy its files
#   scripts/example-campaign.sh --from DIR  copy them from a finished campaign folder DIR (no
#                                           terminal.txt then, unless DIR has one)
#
# Needs a build (scripts/setup.sh --no-demo) and chromium-headless-shell (setup.sh installs it).
# After it, paste the new lines into docs/policies.md's quoted blocks (after their
# "<!-- quoted from ... -->" lines; tests/docs/readme_test.py checks them): the numbers are
# this machine's, at this moment.
set -euo pipefail
cd "$(dirname "$0")/.."
from=""
case "${1:-}" in
  "") ;;
  --from) from="${2:?example-campaign.sh: --from needs a campaign folder}" ;;
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
  *) echo "example-campaign.sh: error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
if [ ! -x build/bin/xrunlab ]; then
  echo "example-campaign.sh: build/bin/xrunlab is missing: run scripts/setup.sh --no-demo first" >&2
  exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ -z "$from" ]; then
  from=results/campaigns/iso-vs-fifo-2005
  # What a person sees: the campaign's closing block on stdout (progress goes to stderr).
  build/bin/xrunlab campaign --preset iso-vs-fifo-2005 --scale 0.04 --repetitions 5 \
    --dir "$from" | tee "$scratch/terminal.txt"
  cp "$scratch/terminal.txt" "$from/terminal.txt"
fi
for f in campaign.png campaign-summary.txt campaign-summary.json report.html; do
  if [ ! -f "$from/$f" ]; then
    echo "example-campaign.sh: $from/$f is missing: is $from a finished campaign?" >&2
    exit 1
  fi
done
out=results/examples/iso-vs-fifo-2005
rm -rf "$out"
mkdir -p "$out"
cp "$from/campaign.png" "$from/campaign-summary.txt" "$from/campaign-summary.json" \
  "$from/report.html" "$out/"
if [ -f "$from/terminal.txt" ]; then
  sed "s|$(cd "$from" && pwd)|$out|; s|$from|$out|" "$from/terminal.txt" >"$out/terminal.txt"
fi
# The report as a browser shows its top (Debian's chromium-headless-shell).
chromium-headless-shell --no-sandbox --disable-gpu --headless --hide-scrollbars \
  --user-data-dir="$scratch/chromium" --window-size=1100,1500 \
  --screenshot="$PWD/$out/report.png" "file://$PWD/$out/report.html" >/dev/null 2>&1
echo "example-campaign.sh: $out/ now holds $from"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates the campaign picture and report that docs/policies.md shows ("Comparing policies"):
# docs/img/campaign-iso-vs-fifo-2005.png and docs/img/campaign-iso-vs-fifo-2005.txt, from the
# iso-vs-fifo-2005 preset shortened to 1/25 (12 s runs) with 5 repetitions: 10 cases x 5 runs,
# about 14 minutes on a 2-core VM.
#
#   scripts/example-campaign.sh             run the campaign (results/campaigns/iso-vs-fifo-2005,
#                                           continued if it is there) and copy its picture
#   scripts/example-campaign.sh --from DIR  copy them from a finished campaign folder DIR
#
# Needs a build (scripts/setup.sh --no-demo). After it, paste the new numbers into docs/policies.md:
# they are this machine's, at this moment.
set -euo pipefail
cd "$(dirname "$0")/.."

from=""
case "${1:-}" in
  "") ;;
  --from) from="${2:?example-campaign.sh: --from needs a campaign folder}" ;;
  -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "example-campaign.sh: error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
if [ ! -x build/bin/xrunlab ]; then
  echo "example-campaign.sh: build/bin/xrunlab is missing: run scripts/setup.sh --no-demo first" >&2
  exit 2
fi
if [ -z "$from" ]; then
  from=results/campaigns/iso-vs-fifo-2005
  build/bin/xrunlab campaign --preset iso-vs-fifo-2005 --scale 0.04 --repetitions 5 --dir "$from"
fi
for f in campaign.png campaign-summary.txt; do
  if [ ! -f "$from/$f" ]; then
    echo "example-campaign.sh: $from/$f is missing: is $from a finished campaign?" >&2
    exit 1
  fi
done
mkdir -p docs/img
cp "$from/campaign.png" docs/img/campaign-iso-vs-fifo-2005.png
cp "$from/campaign-summary.txt" docs/img/campaign-iso-vs-fifo-2005.txt
echo "example-campaign.sh: docs/img/campaign-iso-vs-fifo-2005.{png,txt} now hold $from"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates the curated headroom example README.md shows: results/examples/headroom/
# (headroom.png, headroom-summary.txt, headroom.json, terminal.txt) from `xrunlab headroom` with
# its defaults (14 and 1 clients x 4 ports, 64..1024 frames, 5 ramps a cell, the virtual card):
# about 5 minutes on the 2-core development VM. The ramps' own folders are not kept (headroom.json
# names them). Needs a build (scripts/setup.sh --no-demo). The numbers are this machine's, at
# this moment.
#
#   scripts/example-headroom.sh    measure and replace results/examples/headroom/
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x build/bin/xrunlab ]; then
  echo "example-headroom.sh: build/bin/xrunlab is missing: run scripts/setup.sh --no-demo first" >&2
  exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
build/bin/xrunlab headroom --name example --dir "$scratch/headroom" >"$scratch/terminal.txt"
for f in headroom.png headroom-summary.txt headroom.json; do
  if [ ! -f "$scratch/headroom/$f" ]; then
    echo "example-headroom.sh: xrunlab headroom left no $f in $scratch/headroom" >&2
    exit 1
  fi
done
out=results/examples/headroom
rm -rf "$out"
mkdir -p "$out"
cp "$scratch/headroom/headroom.png" "$scratch/headroom/headroom-summary.txt" \
  "$scratch/headroom/headroom.json" "$scratch/terminal.txt" "$out/"
echo "example-headroom.sh: $out replaced"

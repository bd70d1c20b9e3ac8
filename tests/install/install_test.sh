#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install_test.sh BUILD_DIR LIBEXECDIR LIBDIR DATADIR MANDIR (the last four relative to the
# prefix, as GNUInstallDirs configured them). Installs the build into a temporary prefix, moves
# nothing else, and uses the installed xrunlab from an empty folder with a clean environment.
# Prints "FAILED: <what>" and exits 1 at the first check that does not hold.
set -euo pipefail
build=$1 libexec=$2 libdir=$3 datadir=$4 mandir=$5
fail() { echo "FAILED: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/xrunlab-install-test-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix="$work/staging/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" ||
  fail "cmake --install: $(tail -n 3 "$work/install.log")"

# The layout.
for f in bin/xrunlab "$libexec/xrunlab/xrunlab-client" "$libexec/xrunlab/xrunlab-load" \
         "$libexec/xrunlab/xrunlab-janitor"; do
  [ -x "$prefix/$f" ] || fail "$f is not installed as a program"
done
for f in "$libdir/xrunlab/libasound_module_pcm_xrunlab.so" \
         "$datadir/xrunlab/scripts/timeline.gp" "$datadir/xrunlab/scripts/latency.gp" \
         "$datadir/xrunlab/scripts/cycles.gp" "$datadir/xrunlab/scripts/compare.gp" \
         "$datadir/xrunlab/scripts/campaign.gp" "$datadir/xrunlab/scripts/sweep.gp" \
         "$datadir/xrunlab/scripts/headroom.gp" \
         "$datadir/xrunlab/scripts/history.gp" \
         "$datadir/xrunlab/scripts/campaigns/jack_test4.toml" \
         "$datadir/xrunlab/scripts/campaigns/iso-vs-fifo-2005.toml" \
         "$datadir/doc/xrunlab/LICENSE"; do
  [ -s "$prefix/$f" ] || fail "$f is not installed"
done
if ls "$prefix/bin" | grep -v -x xrunlab; then fail "bin holds more than xrunlab"; fi

# From an empty folder, PATH without the build tree, no XRUNLAB_* variable.
elsewhere="$work/elsewhere"
mkdir -p "$elsewhere"
cd "$elsewhere"
clean_env=(env -i "HOME=$HOME" "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
           "TMPDIR=${TMPDIR:-/tmp}")
xr=("${clean_env[@]}" "$prefix/bin/xrunlab")
priority=()
if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -r)" != unlimited ] && [ "$(ulimit -r)" -lt 70 ]; then
  priority=(--priority 0)
fi
"${xr[@]}" run --clients 3 --period 256 --duration 2 --label installed --output results \
  "${priority[@]}" >"$work/run.log" 2>&1 &
engine=$!
# The programs the engine started, as the kernel has them (/proc/PID/exe), while it runs.
: >"$work/children"
while kill -0 "$engine" 2>/dev/null; do
  for child in $(ps -o pid= --ppid "$engine" 2>/dev/null); do
    readlink "/proc/$child/exe" >>"$work/children" 2>/dev/null || true
  done
  sleep 0.1
done
wait "$engine" || fail "the installed xrunlab run: $(tail -n 5 "$work/run.log")"
sort -u -o "$work/children" "$work/children"
for helper in xrunlab-client xrunlab-janitor; do
  grep -q -x -F "$prefix/$libexec/xrunlab/$helper" "$work/children" ||
    fail "the engine did not start $prefix/$libexec/xrunlab/$helper; it started: $(tr '\n' ' ' <"$work/children")"
done
if grep -q -F "$build" "$work/children"; then fail "the engine started a program of the build tree"; fi
run=$(find "$elsewhere/results/installed" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -n "$run" ] || fail "no run folder under $elsewhere/results/installed"
for f in summary.txt run.json timeseries.csv histogram.csv plots/timeline.png plots/latency.png \
         plots/cycles.png vcard-asound.conf; do
  [ -s "$run/$f" ] || fail "the run wrote no $f"
done
grep -q '"status": "completed"' "$run/run.json" || fail "run.json does not say completed"
# The card's private ALSA configuration names the installed plug-in by its absolute path.
plugin=$(realpath "$prefix/$libdir/xrunlab/libasound_module_pcm_xrunlab.so")
grep -q -F "\"$plugin\"" "$run/vcard-asound.conf" ||
  fail "vcard-asound.conf does not name the installed plug-in: $(grep lib "$run/vcard-asound.conf")"
if grep -q -F "$build" "$run/vcard-asound.conf"; then fail "vcard-asound.conf names the build tree"; fi

# plot, summary, compare on the result, with the installed gnuplot scripts.
rm -rf "$run/plots"
"${xr[@]}" plot "$run" >"$work/plot.log" 2>&1 || fail "xrunlab plot: $(tail -n 3 "$work/plot.log")"
[ -s "$run/plots/timeline.png" ] || fail "xrunlab plot drew no timeline.png"
"${xr[@]}" summary results --write SUMMARY >"$work/summary.log" 2>&1 ||
  fail "xrunlab summary: $(tail -n 3 "$work/summary.log")"
grep -q "installed" SUMMARY || fail "SUMMARY does not name the run's label"
"${xr[@]}" compare "$run" --write compare.png >"$work/compare.log" 2>&1 ||
  fail "xrunlab compare: $(tail -n 3 "$work/compare.log")"
[ -s compare.png ] || fail "xrunlab compare drew no compare.png"
# A preset is found in the installed share folder (planned, not run: --dry-run).
"${xr[@]}" campaign --preset jack_test4 --dry-run >"$work/preset.log" 2>&1 ||
  fail "campaign --preset jack_test4 --dry-run: $(tail -n 3 "$work/preset.log")"
echo "install test: installed into $prefix and ran from $elsewhere: run, plot, summary, compare, a preset"
echo "install test: the engine started $(tr "\n" " " <"$work/children")"

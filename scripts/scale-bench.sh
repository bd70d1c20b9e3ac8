#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start-up, stop and memory against the number of clients: one short vcard run per client count,
# then one run per count stopped by SIGTERM in the middle of its start-up and one stopped by
# SIGINT (Ctrl-C) in the middle of its window. Prints a table from each run's run.json
# (measurement.startup_s, measurement.phases, engine_peak_rss_kib) and the size of what it
# wrote; the signal columns are timed from outside (signal to exit).
#
#   scripts/scale-bench.sh [--ports P] [--period FRAMES] [--duration SECONDS] [COUNT...]
#   scripts/scale-bench.sh                 # 14 64 128 253 clients x 4 ports, 1024 frames, 5 s
#
# Results go to a temporary folder that is removed at the end (--keep keeps it and says where).
# Needs a built tree (scripts/setup.sh --no-demo) and jq. The figures are this machine's; on a
# loaded or small VM they vary from run to run: repeat before drawing conclusions.
set -euo pipefail
cd "$(dirname "$0")/.."

ports=4 period=1024 duration=5 keep=0 counts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ports) ports="$2"; shift 2 ;;
    --period) period="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "scale-bench.sh: error: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) counts+=("$1"); shift ;;
  esac
done
[ "${#counts[@]}" -gt 0 ] || counts=(14 64 128 253)
xrunlab=build/bin/xrunlab
[ -x "$xrunlab" ] || { echo "scale-bench.sh: error: $xrunlab is missing; run scripts/setup.sh --no-demo" >&2; exit 3; }
command -v jq >/dev/null || { echo "scale-bench.sh: error: jq is missing (apt-get install jq)" >&2; exit 3; }

out="$(mktemp -d /tmp/xrunlab-scale.XXXXXX)"
if [ "$keep" = 0 ]; then trap 'rm -rf "$out"' EXIT; fi

now_s() { date +%s.%N; }
phase() {  # phase FILE NAME: when the step NAME ended (s since the engine started), or "-"
  jq -r --arg p "$2" '[.measurement.phases[]? | select(.phase == $p) | .ended_s][0] // "-"' "$1"
}

# signalled SIG AFTER LABEL DURATION: the run of this count again (a window of DURATION s), signal
# SIG AFTER seconds after it started; prints seconds from the signal to the engine's exit, with
# what was left behind (client processes still running, a run folder without a final status), a
# jackd that did not end by its SIGTERM, and a run that had completed before the signal came.
signalled() {
  "$xrunlab" run --backend vcard --period "$period" --clients "$n" --ports "$ports" \
    --duration "$4" --label "$3" --output "$out" --no-plots --quiet >"$out/$3.out" 2>&1 &
  local pid=$! t0 left status
  sleep "$2"
  t0="$(now_s)"
  kill -"$1" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  awk -v a="$t0" -v b="$(now_s)" 'BEGIN { printf "%.2f", b - a }'
  left="$(pgrep -c -f "xrunlab-client --server xrunlab-$pid-" || true)"
  [ "${left:-0}" = 0 ] || printf ' (%s left)' "$left"
  local j
  j="$(ls -d "$out/$3"/*/ 2>/dev/null | tail -1)run.json"
  status="$(jq -r '.status // empty' "$j" 2>/dev/null || true)"
  [ -n "$status" ] || printf ' (no status)'
  [ "$status" != completed ] || printf ' (completed first)'
  local jackd
  jackd="$(jq -r '[.warnings[]? | capture("jackd (was killed by|died of) signal (?<s>[0-9]+)").s][0] // empty' \
    "$j" 2>/dev/null || true)"
  [ -z "$jackd" ] || printf ' (jackd: signal %s)' "$jackd"
}

printf '%-8s %-6s %10s %10s %10s %10s %12s %10s %10s %14s %22s %22s\n' clients ports "start s" \
  "active s" "wired s" "stop s" "peak RSS MB" "shared MB" "written MB" "MB/client-h" "SIGTERM s" \
  "SIGINT s"
for n in "${counts[@]}"; do
  label="n$n"
  code=0
  "$xrunlab" run --backend vcard --period "$period" --clients "$n" --ports "$ports" \
    --duration "$duration" --label "$label" --output "$out" --no-plots --quiet \
    >"$out/$label.out" 2>&1 || code=$?
  dir="$(ls -d "$out/$label"/*/ 2>/dev/null | tail -1)"
  if [ -z "$dir" ] || [ ! -f "$dir/run.json" ]; then
    printf '%-8s %-6s failed (exit %s): %s\n' "$n" "$ports" "$code" "$(tail -1 "$out/$label.out")"
    continue
  fi
  j="$dir/run.json"
  startup="$(jq -r '.measurement.startup_s' "$j")"
  active="$(phase "$j" "clients active")"
  wired="$(phase "$j" wired)"
  ended="$(phase "$j" "window ended")"
  stopped="$(phase "$j" stopped)"
  stop_s="$(awk -v a="$ended" -v b="$stopped" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2f", b - a }')"
  rss="$(jq -r '.measurement.engine_peak_rss_kib / 1024 | floor' "$j")"
  shared="$(jq -r '(.measurement.engine_rss_shmem_kib_at_window_end // empty) / 1024 | floor' "$j")"
  bytes="$(du -sb "$dir" | cut -f1)"
  seconds="$(jq -r '.measurement.seconds_ran' "$j")"
  written="$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')"
  per_hour="$(awk -v b="$bytes" -v n="$n" -v s="$seconds" 'BEGIN { if (s > 0) printf "%.1f", b / 1048576 / n / s * 3600; else print "-" }')"

  # The same run again, SIGTERM halfway through its start-up, and once more, SIGINT (Ctrl-C)
  # halfway through its window: how long until it has exited, and what it left.
  # The SIGINT run's window is longer by twice the first start-up, so that a slower start-up
  # still puts the signal inside the window.
  term_s="$(signalled TERM "$(awk -v s="$startup" 'BEGIN { printf "%.2f", s / 2 }')" "$label-term" \
    "$duration")"
  int_s="$(signalled INT "$(awk -v s="$startup" -v d="$duration" 'BEGIN { printf "%.2f", s + d / 2 }')" \
    "$label-int" "$(awk -v s="$startup" -v d="$duration" 'BEGIN { printf "%d", d + 2 * s + 1 }')")"

  printf '%-8s %-6s %10.2f %10s %10s %10s %12s %10s %10s %14s %22s %22s\n' "$n" "$ports" \
    "$startup" "$active" "$wired" "$stop_s" "$rss" "${shared:--}" "$written" "$per_hour" \
    "$term_s" "$int_s"
done
echo "(start s: engine start to the window; active/wired: when the clients were active and the"
echo " graph wired; stop s: window end to everything stopped; shared MB: of the engine's RSS at the"
echo " window's end, shared memory it maps (the vcard's record, the cycle table and the pages of"
echo " JACK's graph segment its monitor read; libjack locks that segment whole in every DSP client,"
echo " not in the monitor); SIGTERM s: signal halfway through the start-up to"
echo " the engine's exit; SIGINT s: the same, Ctrl-C halfway through the window. '(N left)': client"
echo " processes still running after that exit; '(no status)': the run folder has no run.json with"
echo " a final status; '(completed first)': the run ended before the signal; '(jackd: signal N)':"
echo " jackd did not end by its SIGTERM (9: it missed its second and was killed; 13: a write to a"
echo " client gone during its shutdown). Written: the run folder without plots.)"
[ "$keep" = 0 ] || echo "Runs kept in $out"

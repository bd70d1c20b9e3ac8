#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The engine's memory over one long run: starts one vcard run, reads the engine's VmRSS (and its
# anonymous and shared-memory parts, /proc/PID/status) every INTERVAL seconds, and at
# the end prints the curve as a table (one row per tenth of the run), the growth per hour between
# the second tenth (start-up done) and the last (medians of each), and how much the run wrote (MB in
# all and per client-hour).
#
#   scripts/rss-curve.sh [--clients N] [--period FRAMES] [--interval S] [--keep] [SECONDS]
#   scripts/rss-curve.sh                     # 4 clients x 4 ports, 256 frames, 3600 s, every 10 s
#   scripts/rss-curve.sh --clients 14 600    # the demo's chain for 10 minutes
#
# The samples go to rss.csv in the run's folder (t_s, rss_kib, anon_kib, shmem_kib); the run's
# results in a temporary folder, removed at the end unless --keep (it says where). Extra options
# after -- go to `xrunlab run` (e.g. -- --load cpu:1). Needs a built tree (scripts/setup.sh
# --no-demo). Exit status: the run's own, or 2 for bad arguments, 3 for a missing build.
set -euo pipefail
cd "$(dirname "$0")/.."

clients=4 period=256 interval=10 keep=0 seconds=3600 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --clients) clients="$2"; shift 2 ;;
    --period) period="$2"; shift 2 ;;
    --interval) interval="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "rss-curve.sh: error: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) [[ "$1" =~ ^[0-9]+$ ]] || { echo "rss-curve.sh: error: SECONDS must be a number, not '$1'" >&2; exit 2; }
       seconds="$1"; shift ;;
  esac
done
xrunlab=build/bin/xrunlab
[ -x "$xrunlab" ] || { echo "rss-curve.sh: error: $xrunlab is missing; run scripts/setup.sh --no-demo" >&2; exit 3; }

out="$(mktemp -d /tmp/xrunlab-rss.XXXXXX)"
if [ "$keep" = 0 ]; then trap 'rm -rf "$out"' EXIT; fi
samples="$out/rss.csv"
echo "t_s,rss_kib,anon_kib,shmem_kib" > "$samples"

"$xrunlab" run --clients "$clients" --period "$period" --duration "$seconds" --no-plots -q \
  --output "$out" --label rss "${extra[@]}" > "$out/stdout.txt" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' INT TERM
t0=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  if [ -r "/proc/$pid/status" ]; then
    awk -v t="$(( $(date +%s) - t0 ))" '
      /^VmRSS:/ {rss=$2} /^RssAnon:/ {anon=$2} /^RssShmem:/ {shm=$2}
      END {if (rss != "") printf "%s,%s,%s,%s\n", t, rss, anon, shm}' \
      "/proc/$pid/status" >> "$samples" 2>/dev/null || true
  fi
  sleep "$interval"
done
rc=0; wait "$pid" || rc=$?

dir="$(find "$out/rss" -mindepth 1 -maxdepth 1 -type d | head -1)"
n=$(( $(wc -l < "$samples") - 1 ))
printf '%8s %10s %10s %10s\n' t_s rss_MiB anon_MiB shmem_MiB
awk -F, -v n="$n" 'NR > 1 { i++; if (i == 1 || i == n || i % int((n + 9) / 10) == 0)
  printf "%8d %10.1f %10.1f %10.1f\n", $1, $2 / 1024, $3 / 1024, $4 / 1024 }' "$samples"
# Growth: the median of the last tenth less that of the second (medians, not means: a checkpoint
# builds run.json and frees it again, a spike of up to 30 MB in one sample).
awk -F, -v n="$n" '
  function median(v, m,    i, j, x) {
    for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
    return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
  }
  NR > 1 { i++; t[i] = $1; r[i] = $2; a[i] = $3 }
  END { k = int(n / 10); if (k < 1 || t[n] - t[k] <= 0) exit;
        for (j = 1; j <= k; j++) { r1[j] = r[k + j]; r2[j] = r[n - k + j]; a1[j] = a[k + j]; a2[j] = a[n - k + j] }
        h = 3600 / ((t[n] + t[n - k + 1]) / 2 - (t[2 * k] + t[k + 1]) / 2)
        dr = (median(r2, k) - median(r1, k)) / 1024; da = (median(a2, k) - median(a1, k)) / 1024
        printf "growth from the second tenth (after start-up) to the last, medians: RSS %+.2f MiB (%+.2f MiB/hour), anonymous %+.2f MiB (%+.2f MiB/hour)\n",
               dr, dr * h, da, da * h }' "$samples"
if [ -n "$dir" ]; then
  bytes=$(du -sb "$dir" | cut -f1)
  awk -v b="$bytes" -v c="$clients" -v s="$seconds" 'BEGIN {
    printf "wrote %.1f MB in all, %.2f MB per client-hour\n", b / 1e6, b / 1e6 / (c * s / 3600) }'
  du -b "$dir"/* "$dir"/clients/* 2>/dev/null | sort -n | tail -6 | awk '{ printf "  %9.2f MB %s\n", $1 / 1e6, $2 }'
fi
[ -n "$dir" ] && cp "$samples" "$dir/rss.csv"
[ "$keep" = 1 ] && echo "results kept in $out"
exit "$rc"

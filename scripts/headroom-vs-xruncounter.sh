#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab headroom beside xruncounter's figure, on one private jackd (dummy driver, 1024 frames
# at 48 kHz, server xrunlab-xrc-<pid>), stopped on every way out:
#   1. build/bin/xrunlab-xruncounter-ref N times (default 5): a client following xruncounter's
#      published rule (tests/tools/xrun_ramp_reference.cpp; xruncounter itself is not packaged
#      in Debian), a load ramp up to the first xrun; per try its own callback time in the cycle
#      of the first xrun (own_load_pct, % of the period) and JACK's smoothed DSP load at that
#      xrun (jack_cpu_load, the figure xruncounter prints);
#   2. build/bin/xrunlab headroom, 1 client x 1 port, N repetitions, attached to the same server,
#      its ramp +STEP % of the period every EVERY cycles (default 1 and 4: headroom's own
#      default at 1024 frames), into results/headroom-vs-xrc-sSTEP-eEVERY/;
# and prints a table: each try's two figures, their medians, xrunlab's median headroom (from
# headroom.json, the field in `median_field` below) and the differences, in % of the period.
# Exit codes: 0 done; 1 jackd or a run failed; 2 bad usage; 3 a tool missing, or xrunlab
# headroom not built (the reference tries are printed first).
# xruncounter's ramp adds 100 loop iterations a cycle, about 0.07 % of a 1024-frame period here:
# STEP 0.25 EVERY 4 (0.06 % a cycle) ramps xrunlab about as slowly.
#   usage: scripts/headroom-vs-xruncounter.sh [N [STEP EVERY]]
set -euo pipefail
cd "$(dirname "$0")/.."
median_field='.cells[0].median_pct'  # xrunlab's median headroom in headroom.json (% of the period)
usage="usage: scripts/headroom-vs-xruncounter.sh [N [STEP EVERY]]"

[[ $# -le 1 || $# -eq 3 ]] || { echo "headroom-vs-xruncounter: give N, or N STEP EVERY ($usage)" >&2; exit 2; }
tries="${1:-5}"
step="${2:-1}"
every="${3:-4}"
[[ "$step" =~ ^[0-9]+(\.[0-9]+)?$ && "$every" =~ ^[1-9][0-9]*$ ]] || {
  echo "headroom-vs-xruncounter: STEP must be a number and EVERY a whole number, not '$step' '$every' ($usage)" >&2
  exit 2
}
[[ "$tries" =~ ^[1-9][0-9]*$ ]] || {
  echo "headroom-vs-xruncounter: N must be a positive whole number, not '$tries' ($usage)" >&2
  exit 2
}
bin=build/bin/xrunlab
ref=build/bin/xrunlab-xruncounter-ref
for tool in jq jackd jack_wait "$ref"; do
  command -v "$tool" >/dev/null || {
    echo "headroom-vs-xruncounter: $tool not found (scripts/setup.sh installs and builds" \
         "everything; the reference client: cmake --build build --target" \
         "xrunlab-xruncounter-ref)" >&2
    exit 3
  }
done
period=1024
rate=48000
server="xrunlab-xrc-$$"
dir="results/headroom-vs-xrc-s$step-e$every"
tmp=$(mktemp -d)
jackd_pid=""
child_pid=""  # the program being waited for (run in the background, so a signal is not held)

# Stops process $1: SIGTERM, SIGKILL after 5 s.
stop_pid() {
  [[ -n "$1" ]] || return 0
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  stop_pid "$child_pid"
  stop_pid "$jackd_pid"
  rm -rf "$tmp"
}
# Runs "$@" and sets rc to its exit status; a SIGINT or SIGTERM to this script stops it at once.
run_child() {
  "$@" &
  child_pid=$!
  rc=0
  wait "$child_pid" || rc=$?
  child_pid=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The last lines of a log, indented, on stderr (a failure's explanation).
show_tail() { tail -n 15 "$1" | sed 's/^/    /' >&2; }

JACK_NO_AUDIO_RESERVATION=1 jackd -n "$server" -d dummy -r "$rate" -p "$period" \
  >"$tmp/jackd.log" 2>&1 &
jackd_pid=$!
run_child jack_wait -s "$server" -w -t 20 >/dev/null 2>&1
if [[ "$rc" -ne 0 ]] || ! kill -0 "$jackd_pid" 2>/dev/null; then
  echo "headroom-vs-xruncounter: jackd '$server' did not come up within 20 s; its log:" >&2
  show_tail "$tmp/jackd.log"
  exit 1
fi

# The value of field NAME on the first_xrun line of file F ("" when absent).
field() {
  awk -v name="$2" '$1 == "first_xrun" { for (i = 2; i < NF; i += 2) if ($i == name) print $(i + 1) }' "$1"
}
# The median of the numbers on stdin, "-" when there is none.
median() {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) print "-"
    else if (NR % 2) printf "%.2f\n", v[(NR + 1) / 2]
    else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

rows=()
own=()
load=()
for ((i = 1; i <= tries; i++)); do
  out="$tmp/ref-$i.out"
  # A name of its own: libjack names a client's socket by the client's name alone.
  run_child "$ref" --server "$server" --name "xruncounter-ref-$$" --timeout-s 120 \
    >"$out" 2>"$tmp/ref-$i.err"
  p=$(field "$out" own_load_pct)
  l=$(field "$out" jack_cpu_load)
  c=$(field "$out" cycle)
  if [[ "$rc" -eq 0 && -n "$p" && -n "$l" ]]; then
    own+=("$p")
    load+=("$l")
    rows+=("| $i | $p | $l | $c |")
  else
    echo "headroom-vs-xruncounter: try $i: $ref exited $rc without a first xrun:" >&2
    show_tail "$out"
    show_tail "$tmp/ref-$i.err"
    rows+=("| $i | - | - | - |")
  fi
  kill -0 "$jackd_pid" 2>/dev/null || {
    echo "headroom-vs-xruncounter: jackd '$server' died during try $i; its log:" >&2
    show_tail "$tmp/jackd.log"
    exit 1
  }
done
own_median=$(printf '%s\n' "${own[@]}" | grep . | median || true)
load_median=$(printf '%s\n' "${load[@]}" | grep . | median || true)

print_reference() {
  echo "xruncounter's rule (xrunlab-xruncounter-ref) on jackd's dummy driver, $period frames" \
       "at $rate Hz, $tries tries ($(uname -r), $(nproc) CPUs)"
  echo
  echo "| try | own_load_pct (% of the period) | jack_cpu_load (%) | cycle |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo "| median | $own_median | $load_median | |"
}

# An xrunlab without the subcommand prints its main help for `headroom --help`, and exits 0:
# the subcommand's own usage line is what says it is there.
why=""
if [[ ! -x "$bin" ]]; then
  why="no $bin"
elif ! help=$("$bin" headroom --help 2>&1) || ! grep -q '^Usage: .*headroom' <<<"$help"; then
  why="'$bin headroom --help' said: $(head -n 1 <<<"$help")"
fi
if [[ -n "$why" ]]; then
  print_reference
  echo "headroom-vs-xruncounter: xrunlab headroom not built ($why)" >&2
  exit 3
fi
touch "$tmp/start"
run_child "$bin" headroom --periods "$period" --clients 1 --ports 1 --repetitions "$tries" \
  --step "$step" --every "$every" --dir "$dir" -- --backend "attach:$server" \
  >"$tmp/headroom.log" 2>&1
if [[ "$rc" -ne 0 ]]; then
  print_reference
  echo "headroom-vs-xruncounter: xrunlab headroom exited $rc; its last lines:" >&2
  show_tail "$tmp/headroom.log"
  exit 1
fi
json="$dir/headroom.json"
if [[ ! -f "$json" || -z "$(find "$json" -newer "$tmp/start")" ]]; then
  print_reference
  echo "headroom-vs-xruncounter: xrunlab headroom wrote no new $json" >&2
  exit 1
fi
headroom=$(jq -r "$median_field" "$json")
if ! [[ "$headroom" =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
  print_reference
  echo "headroom-vs-xruncounter: $json has no number at $median_field (found '$headroom')" >&2
  exit 1
fi
# headroom - figure, "-" when the figure is.
minus() {
  if [[ "$2" == "-" ]]; then echo "-"; return; fi
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f\n", a - b }'
}

print_reference
echo
echo "| xrunlab headroom ($dir, $tries repetitions) | % of the period |"
echo "|---|---|"
echo "| median load at the first xrun | $(awk -v a="$headroom" 'BEGIN { printf "%.2f\n", a }') |"
measured=$(jq -r '.cells[0].measured_pct' "$json")
echo "| median measured DSP time in the step before it | $(awk -v a="$measured" 'BEGIN { printf "%.2f\n", a }') |"
echo "| minus xruncounter-ref's median own_load_pct | $(minus "$headroom" "$own_median") |"
echo "| minus xruncounter-ref's median jack_cpu_load | $(minus "$headroom" "$load_median") |"

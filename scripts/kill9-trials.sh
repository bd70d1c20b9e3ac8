#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a run leaves when its engine is killed with SIGKILL: TRIALS short runs (vcard, 1024
# frames, 2 clients, 2 s window), cycling through three kinds - no load, --load cpu:1 and
# --policy rt-throttle:50 (root only) -, each engine killed at a random moment from 0 to 1 s past
# a run's usual length after its start: during start-up, in the window, during shutdown or after it ended (then the
# kill finds nothing, and the run must have left nothing either). 2 s after the kill it counts,
# for that run only:
#   procs   processes left alive (jackd, xrunlab-client, loads, the janitor: their command
#           lines name the run's server, folder or engine pid); zombies are counted apart
#   shm     /dev/shm files of the run (named after its server) plus JACK's segments that its
#           jackd allocated (the pid in the engine's log) and are still there
#   cgroups the run's rt-throttle group (xrunlab-<pid>) still in the cpu controller
#   sysctls RT settings (kernel.sched_rt_*, the cpu controller's root RT knobs) that differ
#           from before the trial, plus a journal of the engine still in /run/xrunlab
#   status  run folders whose run.json is missing or not final (completed, failed,
#           interrupted, killed)
#   jackdb  JACK's metadata database (/dev/shm/jack_db-<uid>) still there with no process that
#           has it open: a JACK program killed inside it leaves it locked, and every later JACK
#           client of the user then waits for ever (the janitor removes it when nobody uses it)
# and prints a line per trial, a table per kind and per moment, and the totals. The janitor's
# own time (its janitor.log, "done in N ms") is shown too. Exit 1 when any count is above 0.
# Usage: scripts/kill9-trials.sh [TRIALS=100]   (SEED=n repeats the moments; XRUNLAB=path;
#        KEEP=1 keeps every trial's run folder and engine log, and prints where)
# Needs jq, python3 and a build (cmake --build build); the runs go to a temporary folder.
set -uo pipefail
cd "$(dirname "$0")/.."
trials="${1:-100}"
bin="${XRUNLAB:-build/bin/xrunlab}"
for tool in jq python3 "$bin"; do
  command -v "$tool" >/dev/null || {
    echo "kill9-trials: $tool not found (scripts/setup.sh installs and builds everything)" >&2
    exit 3
  }
done
[[ "$trials" =~ ^[1-9][0-9]*$ ]] || { echo "kill9-trials: TRIALS must be a positive number" >&2; exit 2; }
RANDOM="${SEED:-$$}"
out="$(mktemp -d "${TMPDIR:-/tmp}/kill9-trials.XXXXXX")"
if [[ -n ${KEEP:-} ]]; then
  echo "kill9-trials: keeping the runs and logs in $out" >&2
else
  trap 'rm -rf "$out"' EXIT
fi
kinds=(none load)
if [[ $(id -u) == 0 && -w /sys/fs/cgroup/cpu/cpu.rt_runtime_us ]]; then
  kinds+=(rt-throttle)
else
  echo "kill9-trials: not root or no cgroup-v1 cpu controller: no rt-throttle trials" >&2
fi
duration=2

# dead_segments, rt_settings, count_procs, jackdb_left
# shellcheck source=scripts/trials-lib.sh
source scripts/trials-lib.sh

declare -A sum
phases=(start-up window shutdown ended)
printf '%-5s %-11s %7s %-9s %5s %5s %4s %7s %7s %6s %6s %s\n' trial kind kill_ms moment procs shm cgr sysctls status jackdb zomb janitor_ms
for ((i = 1; i <= trials; i++)); do
  kind="${kinds[$(((i - 1) % ${#kinds[@]}))]}"
  args=(run --backend vcard --period 1024 --clients 2 --duration "$duration" --no-plots
        --label "k9-$i" --output "$out/runs")
  case "$kind" in
    load) args+=(--load cpu:1) ;;
    rt-throttle) args+=(--policy rt-throttle:50) ;;
  esac
  before_rt="$(rt_settings)"
  # A run of this kind takes about 3.5 s here (4.5 s with the load's second to get going):
  # the moments go 1 s past that, so some find the run ended.
  span_ms=$([[ $kind == load ]] && echo 5500 || echo 4500)
  delay_ms=$((RANDOM % span_ms))
  log="$out/k9-$i.log"
  : >"$log"  # there before the run writes to it: the wait below reads it
  t_start=$(date +%s%N)
  "$bin" "${args[@]}" >"$log" 2>&1 &
  engine=$!
  disown "$engine"  # no job notice for the kill; the shell still reaps it
  t_meas=""
  while :; do
    now=$(date +%s%N)
    (( (now - t_start) / 1000000 >= delay_ms )) && break
    kill -0 "$engine" 2>/dev/null || break
    [[ -z $t_meas ]] && grep -q "measuring for" "$log" && t_meas=$now
    sleep 0.02
  done
  now=$(date +%s%N)
  if ! kill -0 "$engine" 2>/dev/null || grep -q "^Results: " "$log"; then
    moment=ended
  elif [[ -z $t_meas ]]; then
    moment=start-up
  elif (( (now - t_meas) / 1000000 < duration * 1000 + 300 )); then
    moment=window
  else
    moment=shutdown
  fi
  # Only our engine (its pid may be someone else's once it has ended and been reaped).
  if tr '\0' ' ' 2>/dev/null < "/proc/$engine/cmdline" | grep -q -- "--label k9-$i "; then
    kill -KILL "$engine" 2>/dev/null
  fi
  kill_ms=$(( (now - t_start) / 1000000 ))
  sleep 2
  server="xrunlab-$engine-"
  rundirs=("$out/runs/k9-$i"/*/)
  [[ -d ${rundirs[0]} ]] || rundirs=()
  needles=("$server" "--engine $engine ")
  for d in "${rundirs[@]}"; do needles+=("${d%/}/"); done
  read -r procs zombies < <(count_procs "${needles[@]}")
  # JACK's segments of this run are those its jackd allocated (its pid is in the engine's log).
  jackd="$(sed -nE 's/.*started jackd \(server .*, pid ([0-9]+)\).*/\1/p' "$log" | head -1)"
  shm_left="$(ls /dev/shm | grep -- "$server"
              [[ -n $jackd ]] && dead_segments /dev/shm | awk -v p="$jackd" '$2 == p {print $1}')"
  shm=$(grep -c . <<<"$shm_left")
  [[ -n $shm_left ]] && sed 's/^/    left in \/dev\/shm: /' <<<"$shm_left" >&2
  cgroups=$(find /sys/fs/cgroup/cpu -maxdepth 3 -type d -name "xrunlab-$engine" 2>/dev/null | grep -c .)
  sysctls=$(comm -3 <(echo "$before_rt") <(rt_settings) | grep -c .)
  sysctls=$((sysctls / 2 + $(ls /run/xrunlab/journal-*-"$engine".json* 2>/dev/null | grep -c .)))
  jackdb=$(jackdb_left /dev/shm $$)
  status=0
  janitor_ms="-"
  for d in "${rundirs[@]}"; do
    s="$(jq -r .status "$d/run.json" 2>/dev/null)"
    case "$s" in completed|failed|interrupted|killed) ;; *) status=$((status + 1)) ;; esac
    if [[ -f $d/janitor.log ]]; then
      janitor_ms="$(sed -nE 's/.*done in ([0-9]+) ms.*/\1/p' "$d/janitor.log" | tail -1)"
    fi
  done
  printf '%-5s %-11s %7s %-9s %5s %5s %4s %7s %7s %6s %6s %s\n' "$i" "$kind" "$kill_ms" "$moment" \
    "$procs" "$shm" "$cgroups" "$sysctls" "$status" "$jackdb" "$zombies" "$janitor_ms"
  for key in "$kind" "$moment" total; do
    sum[$key,trials]=$((${sum[$key,trials]:-0} + 1))
    for c in procs shm cgroups sysctls status jackdb zombies; do
      sum[$key,$c]=$((${sum[$key,$c]:-0} + ${!c}))
    done
  done
  if [[ $janitor_ms != - && $janitor_ms -gt ${sum[janitor,max]:-0} ]]; then sum[janitor,max]=$janitor_ms; fi
  # The trial's folder goes (a cpu load's figures are not wanted); its counts are kept above.
  [[ -n ${KEEP:-} ]] || rm -rf "$out/runs/k9-$i"
done

echo
printf '%-12s %6s %6s %6s %8s %8s %7s %7s %8s\n' "" trials procs shm cgroups sysctls status jackdb zombies
for key in "${kinds[@]}" "${phases[@]}" total; do
  [[ -n ${sum[$key,trials]:-} ]] || continue
  printf '%-12s %6s %6s %6s %8s %8s %7s %7s %8s\n' "$key" "${sum[$key,trials]}" "${sum[$key,procs]}" \
    "${sum[$key,shm]}" "${sum[$key,cgroups]}" "${sum[$key,sysctls]}" "${sum[$key,status]}" \
    "${sum[$key,jackdb]}" "${sum[$key,zombies]}"
done
echo "longest janitor clean-up: ${sum[janitor,max]:-0} ms (its own clock, from the engine's death)"
left=$((sum[total,procs] + sum[total,shm] + sum[total,cgroups] + sum[total,sysctls] + sum[total,status] +
        sum[total,jackdb]))
if ((left > 0)); then
  echo "kill9-trials: $left thing(s) left behind within 2 s of a kill" >&2
  exit 1
fi
echo "kill9-trials: nothing left behind within 2 s of any kill"

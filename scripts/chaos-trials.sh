#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2059,SC2001  # the tables' formats are variables; sed prefixes lines
# Every child's death survived, exactly once: TRIALS short runs (vcard, 1024 frames, 2
# clients, a 4 s window, --ping, no plots), each with one victim picked at random among the
# processes a run starts and the resources it needs:
#   jackd        the run's jackd                        client      one of its 2 clients
#   load         a --load cpu:1's xrunlab-load          load-worker a worker below it
#   janitor      the run's xrunlab-janitor              cyclictest  the --baseline cyclictest
#   pipewire     the private PipeWire of --backend pipewire (skipped when not installed)
#   shm-full     the run's /dev/shm filled for 1-2 s
#   disk-full    the output folder on a 64 MB tmpfs mounted for the trial, filled for 1-2 s
# Every run has a /dev/shm of its own, a 256 MB tmpfs in a private mount namespace: the
# machine's /dev/shm is as big as its memory (filling it would fill the memory of everything
# else running here), and other runs on the machine (JACK servers of other users of the machine
# free dead servers' segments at their start) neither hide nor add leftovers in it.
# A process victim gets SIGKILL, or SIGSTOP for 0.2-3 s and then SIGCONT, at a random moment
# from the run's start to its usual end (4.5 s here, 5.5 s with a load). It is found in /proc
# by its command line, which names the run's server, folder or engine pid: only this run's
# processes. A victim not there yet is taken as soon as it appears; one that never appears
# makes a "missed" trial, a plain run. Each run is bounded (60 s, then SIGTERM, then SIGKILL:
# a "hang"). After the run it checks:
#   right    the exit code and run.json's status agree with each other, with run.json's
#            exit_code and with docs/exit-codes.md, and with what was done: a jackd, PipeWire,
#            client or load killed before the window's end fails the run (1, or 4/5 during
#            start-up) naming it, within 5 s; a killed cyclictest leaves a completed run with a warning
#            naming it; a killed janitor or load worker, or any trial that missed, a completed
#            run (0); a full disk 0 or 6 with "the disk is full"; a stop or a full /dev/shm any
#            consistent end, a failure saying why. "Naming" a death: a line of the engine's
#            errors and warnings or of run.json's status_detail, warnings and loads' errors has
#            the victim's name (jackd, pipewire, c01, load, worker, cyclictest) and killed,
#            signal, ended or died
#   readable run.json parses, summary.txt is there, seconds.jsonl parses, a completed run has
#            its data files, no temporary file is left, `xrunlab summary` reads the folder
# and what is left of the run (after its engine has exited, up to 2 s for its processes):
#   procs    processes alive whose command line names the run (zombies are counted apart)
#   shm      /dev/shm files of the run (named after its server), JACK segments its jackd
#            allocated and cyclictest's /dev/shm/cyclictest<pid>, still there
#   jackdb   JACK's metadata database left with no user (when it was not already so before)
#   trace    tracefs instances of the run (instances/xrunlab-<engine pid>*)
#   netns    --ping's network namespace (xrunlab-ping-<engine pid>) and its veth pair
#   mnt      mounts of the trial that appeared during it (in its folder or named after its
#            engine pid) and processes still in the trial's mount namespace once it is let go
#   cgroups  the run's cgroups (xrunlab-<engine pid>)
#   sysctls  RT settings that differ from before the trial, plus the engine's journal in
#            /run/xrunlab
#   tmp      the run's PipeWire runtime folder, its loads' scratch folders
# and prints a line per trial, a table per victim and action, and the totals. Exit 1 when any
# trial is not right, not readable, hung or left anything.
# Usage: scripts/chaos-trials.sh [TRIALS=100]   (SEED=n repeats the choices; XRUNLAB=path;
#        KEEP=1 keeps every trial's run folder and engine log, and prints where;
#        VICTIMS="jackd client ..." limits the choice; SPAN_MS=700 takes the moments from the
#        first 700 ms only, the start-up)
# Needs root (mounts, namespaces), jq, python3, util-linux (unshare, nsenter, fallocate),
# iproute2 (--ping), cyclictest, and a build (cmake --build build); the runs go to a temporary folder.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
trials="${1:-100}"
bin="${XRUNLAB:-build/bin/xrunlab}"
for tool in jq python3 unshare nsenter fallocate ip cyclictest "$bin"; do
  command -v "$tool" >/dev/null || {
    echo "chaos-trials: $tool not found (scripts/setup.sh installs and builds everything)" >&2
    exit 3
  }
done
bin="$(realpath "$(command -v "$bin")")"  # absolute: nsenter starts it in the namespace's root
[[ "$trials" =~ ^[1-9][0-9]*$ ]] || { echo "chaos-trials: TRIALS must be a positive number" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "chaos-trials: needs root (tmpfs mounts, a mount namespace)" >&2; exit 2; }
# dead_segments, rt_settings, count_procs, jackdb_left
# shellcheck source=scripts/trials-lib.sh
source scripts/trials-lib.sh

RANDOM="${SEED:-$$}"
duration=4
bound_s=60
notice_ms=5000  # a run whose jackd, PipeWire, client or load was killed ends within this
out="$(mktemp -d "${TMPDIR:-/tmp}/chaos-trials.XXXXXX")"
[[ -n ${KEEP:-} ]] && echo "chaos-trials: keeping the runs and logs in $out" >&2

victims=(jackd client load load-worker janitor cyclictest)
if command -v pipewire >/dev/null; then
  victims+=(pipewire)
else
  echo "chaos-trials: skipped: pipewire not installed (no pipewire trials)"
fi
victims+=(shm-full disk-full)
if [[ -n ${VICTIMS:-} ]]; then
  read -r -a victims <<<"$VICTIMS"
fi

# What the script itself has going, undone by cleanup (also on exit and on a signal).
engine="" stopped_pid="" fill_files=() mnt="" holder=""
cleanup() {
  [[ -n $stopped_pid ]] && kill -CONT "$stopped_pid" 2>/dev/null
  stopped_pid=""
  local f
  for f in "${fill_files[@]}"; do rm -f "$f"; done
  fill_files=()
  if [[ -n $engine ]] && kill -0 "$engine" 2>/dev/null; then
    kill -TERM "$engine" 2>/dev/null
    for _ in {1..100}; do kill -0 "$engine" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$engine" 2>/dev/null
  fi
  engine=""
  if [[ -n $mnt ]]; then
    umount "$mnt" 2>/dev/null || umount -l "$mnt"
    rmdir "$mnt" 2>/dev/null
    mnt=""
  fi
  if [[ -n $holder ]]; then
    kill -KILL "$holder" 2>/dev/null
    wait "$holder" 2>/dev/null
    holder=""
  fi
}
on_exit() {
  cleanup
  [[ -n ${KEEP:-} ]] || rm -rf "$out"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The pids of a victim KIND of the run of ENGINE (server SERVER, folders under RUNS), one a line.
find_victims() {
  python3 - "$@" <<'EOF'
import os, sys
kind, engine, server, runs = sys.argv[1:]
for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
        cmd = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')
        stat = open(f'/proc/{pid}/stat').read()
    except OSError:
        continue
    comm = stat[stat.index('(') + 1:stat.rindex(')')]
    state, ppid = stat.rsplit(')', 1)[1].split()[:2]
    if state in 'ZX':
        continue
    ok = {
        'jackd': comm == 'jackd' and f' -n {server}' in cmd,
        'client': comm == 'xrunlab-client' and f' --server {server}' in cmd,
        'load': comm == 'xrunlab-load' and runs in cmd and ppid == engine,
        'load-worker': comm == 'xrunlab-load' and runs in cmd and ppid != engine,
        'janitor': comm == 'xrunlab-janitor' and f'--engine {engine} ' in cmd,
        'cyclictest': comm == 'cyclictest' and runs in cmd,
        'pipewire': comm == 'pipewire' and runs in cmd,
    }.get(kind, False)
    if ok:
        print(pid)
EOF
}
start_time() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }
# Mounts that matter here, one a line (tracefs, nsfs, xrunlab's, the trials').
mounts() { awk '{print $5, $9}' /proc/self/mountinfo | sort; }
# Problems reading back run folder DIR (0 = none); each one named on stderr.
readback() {
  local dir="$1" status="$2" n=0 f
  jq -e 'has("status")' "$dir/run.json" >/dev/null 2>&1 || { echo "    unreadable: run.json" >&2; n=$((n + 1)); }
  [[ -s $dir/summary.txt ]] || { echo "    missing: summary.txt" >&2; n=$((n + 1)); }
  if [[ -f $dir/seconds.jsonl ]] && ! jq -c . "$dir/seconds.jsonl" >/dev/null 2>&1; then
    echo "    unreadable: seconds.jsonl" >&2; n=$((n + 1))
  fi
  if [[ $status == completed ]]; then
    for f in histogram.csv timeseries.csv seconds.jsonl; do
      [[ -s $dir/$f ]] || { echo "    missing: $f" >&2; n=$((n + 1)); }
    done
  fi
  while read -r f; do
    echo "    temporary file left: $f" >&2; n=$((n + 1))
  done < <(find "$dir" -name '*.tmp.*')
  if [[ $status != incomplete ]] &&
     ! "$bin" summary "$dir" --write "$out/readback.txt" >"$out/readback.log" 2>&1; then
    echo "    xrunlab summary: $(tail -1 "$out/readback.log")" >&2; n=$((n + 1))
  fi
  rm -f "$out/readback.txt"
  echo "$n"
}

cols=(trials hit named right readable procs shm jackdb trace netns mnt cgroups sysctls tmp hang zombies)
declare -A sum
keys=()
fmt_line='%-5s %-11s %-5s %-9s %6s %5s %4s %-10s %-4s %-4s %4s %5s %4s %4s %4s %4s %4s %4s %3s %s\n'
printf "$fmt_line" trial victim action moment act_ms hold rc status name right read procs shm jdb trc net mnt cgr sys "tmp hang  what"
for ((i = 1; i <= trials; i++)); do
  victim="${victims[$((RANDOM % ${#victims[@]}))]}"
  case "$victim" in
    shm-full|disk-full) action=fill ;;
    *) action=$([[ $((RANDOM % 2)) == 0 ]] && echo kill || echo stop) ;;
  esac
  case "$victim" in
    load|load-worker) span_ms=5500 ;;
    *) span_ms=4500 ;;
  esac
  span_ms="${SPAN_MS:-$span_ms}"
  delay_ms=$((RANDOM % span_ms))
  hold_ms=$([[ $action == stop ]] && echo $((200 + RANDOM % 2801)) || echo $((1000 + RANDOM % 1001)))
  [[ $action == kill ]] && hold_ms=0
  runs="$out/runs"
  backend=vcard
  extra=()
  case "$victim" in
    load|load-worker) extra=(--load cpu:1) ;;
    cyclictest) extra=(--baseline cyclictest) ;;
    pipewire) backend=pipewire ;;
    disk-full)
      mnt="$out/disk-$i"
      if ! mkdir -p "$mnt" || ! mount -t tmpfs -o size=64m tmpfs "$mnt"; then
        echo "chaos-trials: cannot mount a tmpfs on $mnt" >&2
        exit 3
      fi
      runs="$mnt/runs" ;;
  esac
  # The run's own /dev/shm: a private mount namespace, held by a sleep.
  unshare -m --propagation private sleep 3600 &
  holder=$!
  for _ in {1..100}; do
    [[ $(readlink "/proc/$holder/ns/mnt") != "$(readlink /proc/self/ns/mnt)" ]] && break
    sleep 0.01
  done
  if ! nsenter -t "$holder" -m mount -t tmpfs -o size=256m,mode=1777 tmpfs /dev/shm; then
    echo "chaos-trials: cannot mount a private /dev/shm" >&2
    exit 3
  fi
  shm_dir="/proc/$holder/root/dev/shm"
  ns_id="$(readlink "/proc/$holder/ns/mnt")"
  args=(run --backend "$backend" --period 1024 --clients 2 --duration "$duration" --no-plots
        --label "c$i" --output "$runs" --ping "${extra[@]}")
  before_rt="$(rt_settings)"
  before_mounts="$(mounts)"
  jackdb_before=$(jackdb_left "$shm_dir" "$holder")
  shm_before="$(find "$shm_dir/" -maxdepth 1 -name 'cyclictest*' -printf '%f\n' 2>/dev/null | sort)"
  log="$out/c$i.log"
  : >"$log"
  t_start=$(now_ms)
  nsenter -t "$holder" -m -- "$bin" "${args[@]}" >"$log" 2>&1 &
  engine=$!
  server="xrunlab-$engine-"

  # The moment: wait for it, then for the victim to be there (or the run to end).
  t_meas="" pid="" what="-" victim_cmd=""
  while :; do
    now=$(now_ms)
    [[ -z $t_meas ]] && grep -q "measuring for" "$log" && t_meas=$now
    kill -0 "$engine" 2>/dev/null || break
    if ((now - t_start >= delay_ms)); then
      case "$action" in
        fill) pid=fill; break ;;
        *) pid="$(find_victims "$victim" "$engine" "$server" "$runs/c$i/" | shuf -n 1 --random-source=<(yes "$RANDOM"))"
           [[ -n $pid ]] && break ;;
      esac
    fi
    sleep 0.02
  done
  now=$(now_ms)
  act_ms=$((now - t_start))
  if ! kill -0 "$engine" 2>/dev/null || grep -q "^Results: " "$log"; then
    moment=ended
  elif [[ -z $t_meas ]]; then
    moment=start-up
  elif ((now - t_meas < duration * 1000 + 300)); then
    moment=window
  else
    moment=shutdown
  fi
  if [[ $moment == ended || -z $pid ]]; then
    moment=missed
    pid=""
    what="planned at $delay_ms ms"
  fi
  if [[ -n $pid ]]; then
    case "$action" in
      kill)
        victim_cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
        kill -KILL "$pid" 2>/dev/null ;;
      stop)
        victim_cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
        st="$(start_time "$pid")"
        kill -STOP "$pid" 2>/dev/null && stopped_pid=$pid
        sleep "$(printf '%d.%03d' $((hold_ms / 1000)) $((hold_ms % 1000)))"
        [[ $(start_time "$pid") == "$st" ]] && kill -CONT "$pid" 2>/dev/null
        stopped_pid="" ;;
      fill)
        dir=$([[ $victim == shm-full ]] && echo "$shm_dir" || echo "$mnt")
        # statfs of the path itself (df would name the machine's /dev/shm for the namespace's)
        read -r avail size < <(stat -f -c '%a %b %S' "$dir" | awk '{print $1 * $3, $2 * $3}')
        if ((size > 300 * 1048576)); then
          echo "chaos-trials: $dir is $((size >> 20)) MB, not the trial's own tmpfs: not filled" >&2
          exit 3
        fi
        fill_files=("$dir/chaos-fill" "$dir/chaos-fill2")
        fallocate -l "$avail" "$dir/chaos-fill" 2>/dev/null ||
          fallocate -l $((avail - 1048576)) "$dir/chaos-fill" 2>/dev/null
        cat /dev/zero >"$dir/chaos-fill2" 2>/dev/null  # the last pages
        what="$(stat -f -c '%a %b %S' "$dir" | awk '{printf "%d of %d MB free", $1 * $3 / 1048576, $2 * $3 / 1048576}') in $victim"
        sleep "$(printf '%d.%03d' $((hold_ms / 1000)) $((hold_ms % 1000)))"
        rm -f "${fill_files[@]}"
        fill_files=() ;;
    esac
  fi
  [[ -n $victim_cmd ]] && what="pid $pid: $(cut -c1-70 <<<"$victim_cmd")"
  # The victim in the engine's words: a client by its name (c01).
  name="$victim"
  case "$victim" in
    client) name="$(grep -oE -- '-c[0-9]+ ' <<<"$victim_cmd " | head -1 | tr -d ' -')"; [[ -n $name ]] || name=client ;;
    load-worker) name=worker ;;  # the load's report: "cpu worker (pid N) killed by signal 9"
  esac

  # The run's end, bounded.
  hang=0
  while kill -0 "$engine" 2>/dev/null; do
    if (($(now_ms) - t_start > bound_s * 1000)); then
      hang=1
      echo "    hang: the run of trial $i still runs after $bound_s s; SIGTERM" >&2
      # shellcheck disable=SC2009  # every process of the run, with its state
      ps -eo pid,stat,wchan:20,args | grep -F -e "$server" -e "--engine $engine " -e "$runs/c$i/" | grep -v grep | sed 's/^/    /' >&2
      kill -TERM "$engine" 2>/dev/null
      for _ in {1..100}; do kill -0 "$engine" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$engine" 2>/dev/null
      break
    fi
    sleep 0.05
  done
  wait "$engine" 2>/dev/null
  rc=$?
  t_end=$(now_ms)

  # What it wrote.
  rundirs=("$runs/c$i"/*/)
  [[ -d ${rundirs[0]} ]] || rundirs=()
  dir="${rundirs[0]:-}"
  status=none json_rc=none detail=""
  if [[ -n $dir && -f $dir/run.json ]]; then
    status="$(jq -r '.status // "none"' "$dir/run.json" 2>/dev/null || echo unreadable)"
    json_rc="$(jq -r '.exit_code // "none"' "$dir/run.json" 2>/dev/null || echo unreadable)"
    detail="$(jq -r '[.status_detail // "", (.warnings // [])[], ((.loads // [])[] | .report.errors[]?)]
                     | join("\n")' "$dir/run.json" 2>/dev/null)"
  fi
  # What it said about an end: its errors and warnings, run.json's status_detail and warnings.
  said="$(grep -iE '^xrunlab: (error|warning)|ended|killed|died|signal' "$log"; echo "$detail")"
  named=0
  grep -iF -- "$name" <<<"$said" | grep -qiE 'killed|signal|ended|died|exit' && named=1

  # Right: consistent, and what was done.
  why=""
  case "$rc:$status" in
    0:completed|1:failed|4:failed|5:failed|6:failed|6:incomplete|6:none) ;;
    *) why="exit $rc with status $status" ;;
  esac
  if [[ -z $why && $status != none && $status != incomplete && $json_rc != "$rc" ]]; then
    why="exit $rc but run.json says exit_code $json_rc"
  fi
  if [[ -z $why ]]; then
    case "$victim:$action:$moment" in
      *:missed) [[ $rc == 0 ]] || why="nothing was done, yet exit $rc" ;;
      janitor:*|load-worker:*)
        [[ $rc == 0 ]] || why="the $victim is no part of the measurement, yet exit $rc" ;;
      cyclictest:kill:*)
        if [[ $rc != 0 ]]; then why="a lost baseline failed the run (exit $rc)"
        elif ((named == 0)); then why="completed without naming cyclictest's death"; fi ;;
      jackd:kill:start-up|pipewire:kill:start-up|client:kill:start-up|load:kill:start-up|\
      jackd:kill:window|pipewire:kill:window|client:kill:window|load:kill:window)
        if [[ $rc == 0 ]]; then why="$name killed in the $moment, yet the run completed"
        elif ((named == 0)); then why="failed without naming $name"
        elif ((t_end - t_start - act_ms > notice_ms)); then
          why="the run ended $((t_end - t_start - act_ms)) ms after the kill"
        fi ;;
      disk-full:*)
        if [[ $rc == 6 ]] && ! grep -q "the disk is full" "$log"; then why="exit 6 without 'the disk is full'"
        elif [[ $rc != 0 && $rc != 6 ]]; then why="a full disk ended in exit $rc"; fi ;;
      *)
        if [[ $rc != 0 && -z $(jq -r '.status_detail // ""' "$dir/run.json" 2>/dev/null) ]] &&
           ! grep -q "^xrunlab: error:" "$log"; then
          why="exit $rc without saying why"
        fi ;;
    esac
  fi
  ((hang)) && why="${why:+$why; }hang"
  right=$([[ -z $why ]] && echo 1 || echo 0)
  [[ -n $why ]] && echo "    not right: $why" >&2

  if [[ -n $dir ]]; then
    readerr=$(readback "$dir" "$status")
  elif [[ $rc == 6 ]]; then
    readerr=0  # the disk was full before the first run.json: nothing to read
  else
    echo "    no run folder" >&2
    readerr=1
  fi
  readable=$((readerr == 0 ? 1 : 0))

  # What is left, once its processes have had up to 2 s to go.
  needles=("$server" "--engine $engine " "$runs/c$i/")
  for _ in {1..20}; do
    read -r procs zombies < <(count_procs "${needles[@]}" 2>/dev/null)
    ((procs == 0)) && break
    sleep 0.1
  done
  # shellcheck disable=SC2034  # zombies is summed below, by name
  read -r procs zombies < <(count_procs "${needles[@]}")
  jackd="$(sed -nE 's/.*started jackd \(server .*, pid ([0-9]+)\).*/\1/p' "$log" | head -1)"
  shm_left="$(find "$shm_dir/" -maxdepth 1 -name "*$server*" -printf '%f\n' 2>/dev/null
              [[ -n $jackd ]] && dead_segments "$shm_dir" | awk -v p="$jackd" '$2 == p {print $1}'
              # cyclictest's own file (/dev/shm/cyclictest<pid>), new and its process dead
              comm -13 <(echo "$shm_before") \
                <(find "$shm_dir/" -maxdepth 1 -name 'cyclictest*' -printf '%f\n' 2>/dev/null | sort) |
                while read -r f; do [[ -d /proc/${f#cyclictest} ]] || echo "$f"; done)"
  shm=$(grep -c . <<<"$shm_left")
  [[ -n $shm_left ]] && sed 's/^/    left in \/dev\/shm: /' <<<"$shm_left" >&2
  jackdb=0
  [[ $jackdb_before == 0 ]] && jackdb=$(jackdb_left "$shm_dir" "$holder")
  trace=$(find /sys/kernel/tracing/instances /sys/kernel/debug/tracing/instances -maxdepth 1 \
            -name "xrunlab-$engine*" 2>/dev/null | grep -c .)
  cgroups=$(find /sys/fs/cgroup -maxdepth 3 -type d -name "xrunlab-$engine*" 2>/dev/null | grep -c .)
  sysctls=$(comm -3 <(echo "$before_rt") <(rt_settings) | grep -c .)
  sysctls=$((sysctls / 2 + $(compgen -G "/run/xrunlab/journal-*-$engine.json*" | grep -c .)))
  tmp_left="$(compgen -G "${TMPDIR:-/tmp}/xrunlab-pipewire-$server*"
              [[ -n $dir ]] && find "$dir" -name '*.scratch' 2>/dev/null)"
  tmp=$(grep -c . <<<"$tmp_left")
  [[ -n $tmp_left ]] && sed 's/^/    left: /' <<<"$tmp_left" >&2
  # --ping's network namespace (/run/netns/xrunlab-ping-<pid>, a mount in the run's mount
  # namespace) and its veth pair (xlp<pid>h, xlp<pid>n).
  netns_left="$(compgen -G "/proc/$holder/root/run/netns/xrunlab-ping-$engine"
                compgen -G "/run/netns/xrunlab-ping-$engine"
                ip -o link show 2>/dev/null | grep -oE "xlp${engine}[hn]")"
  netns=$(grep -c . <<<"$netns_left")
  [[ -n $netns_left ]] && sed 's/^/    left: /' <<<"$netns_left" >&2
  if [[ -n ${KEEP:-} && $victim == disk-full && -d $runs/c$i ]]; then
    mkdir -p "$out/runs" && cp -a "$runs/c$i" "$out/runs/"
  fi
  cleanup
  # Only the trial's mounts: other users of the machine mount and unmount meanwhile.
  mnt_left="$(comm -13 <(echo "$before_mounts") <(mounts) | grep -E -e "$out" -e "-$engine( |$)"
              for f in /proc/[0-9]*/ns/mnt; do
                [[ $(readlink "$f" 2>/dev/null) == "$ns_id" ]] && echo "the trial's namespace, by ${f%/ns/mnt}"
              done)"
  mnt_n=$(grep -c . <<<"$mnt_left")
  [[ -n $mnt_left ]] && sed 's/^/    mounted: /' <<<"$mnt_left" >&2

  hit=$([[ $moment == missed ]] && echo 0 || echo 1)
  # named: a kill that hit, named in what the run said (errors, warnings, run.json)
  [[ $action == kill && $hit == 1 ]] || named=0
  name_col=$([[ $action == kill && $hit == 1 ]] && echo "$named" || echo -)
  printf "$fmt_line" "$i" "$victim" "$action" "$moment" "$act_ms" "$hold_ms" "$rc" "$status" \
    "$name_col" "$right" "$readable" "$procs" "$shm" "$jackdb" "$trace" "$netns" "$mnt_n" "$cgroups" "$sysctls" \
    "$tmp $hang  $((t_end - t_start)) ms; $what"
  key="$victim $action"
  [[ -n ${sum[$key,trials]:-} ]] || keys+=("$key")
  for k in "$key" total; do
    sum[$k,trials]=$((${sum[$k,trials]:-0} + 1))
    sum[$k,right]=$((${sum[$k,right]:-0} + right))
    sum[$k,hit]=$((${sum[$k,hit]:-0} + hit))
    sum[$k,named]=$((${sum[$k,named]:-0} + named))
    sum[$k,readable]=$((${sum[$k,readable]:-0} + readable))
    sum[$k,mnt]=$((${sum[$k,mnt]:-0} + mnt_n))
    for c in procs shm jackdb trace netns cgroups sysctls tmp hang zombies; do
      sum[$k,$c]=$((${sum[$k,$c]:-0} + ${!c}))
    done
  done
  [[ -n ${KEEP:-} ]] || rm -rf "$out/runs/c$i" "$log"
done

echo
tfmt='%-20s %6s %4s %5s %5s %8s %5s %4s %6s %5s %5s %4s %7s %7s %4s %4s %7s\n'
printf "$tfmt" "victim action" "${cols[@]}"
mapfile -t keys < <(printf '%s\n' "${keys[@]}" | sort)
for k in "${keys[@]}" total; do
  row=()
  for c in "${cols[@]}"; do row+=("${sum[$k,$c]:-0}"); done
  printf "$tfmt" "$k" "${row[@]}"
done
echo "hit: the victim was there (else a plain run); named: kills that hit, named in what the run said"
bad=$((sum[total,trials] - sum[total,right] + sum[total,trials] - sum[total,readable]))
for c in procs shm jackdb trace netns mnt cgroups sysctls tmp hang; do bad=$((bad + sum[total,$c])); done
if ((bad > 0)); then
  echo "chaos-trials: $bad failed check(s)" >&2
  exit 1
fi
echo "chaos-trials: every trial right, readable and clean"

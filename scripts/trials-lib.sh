# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# What a run may leave behind, counted for one run: the checks kill9-trials.sh and
# chaos-trials.sh share. Sourced, not run; needs python3.

# Segments of JACK's registry (in SHM_DIR, default /dev/shm) whose allocator is dead and whose
# file is still there: "name pid" per line.
dead_segments() {
  python3 - "${1:-/dev/shm}" <<'EOF'
import os, struct, sys
shm = sys.argv[1]
try:
    b = open(shm + '/jack-shm-registry', 'rb').read()
except OSError:
    raise SystemExit(0)
hdr, entry = struct.unpack_from('<II', b, 16)
for i in range(256):
    off = hdr + i * entry
    if off + entry > len(b):
        break
    pid, size = struct.unpack_from('<iI', b, off + 4)
    name = b[off + 12:off + 12 + 255].split(b'\0')[0].decode()
    if pid <= 0 or not name:
        continue
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        if os.path.exists(shm + name):
            print(name, pid)
    except PermissionError:
        pass
EOF
}

# The RT settings a run may change: "file=value" per line.
rt_settings() {
  local f
  for f in /proc/sys/kernel/sched_rt_runtime_us /proc/sys/kernel/sched_rt_period_us \
           /sys/fs/cgroup/cpu/cpu.rt_runtime_us /sys/fs/cgroup/cpu/cpu.rt_period_us; do
    [[ -r $f ]] && echo "$f=$(cat "$f")"
  done
}

# Prints "ALIVE ZOMBIES" for the processes whose command line has one of the arguments; those
# alive are named on stderr.
count_procs() {
  python3 - "$@" <<'EOF'
import os, sys
needles = sys.argv[1:]
alive = zombies = 0
me = str(os.getpid())
for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
        cmd = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')
        state = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0]
    except OSError:
        continue
    if pid != me and any(n in cmd for n in needles):
        if state == 'Z':
            zombies += 1
        else:
            alive += 1
            print(f'    left: {pid} {cmd}', file=sys.stderr)
print(alive, zombies)
EOF
}

# 1 when JACK's metadata database (SHM_DIR/jack_db-<uid>) is there and no process of the mount
# namespace of NS_PID (default: this shell's) has it open, else 0: a JACK program killed inside
# it leaves it locked, and every later JACK client of the user then waits for ever.
jackdb_left() {
  local shm="${1:-/dev/shm}" ns_pid="${2:-$$}"
  python3 - "$shm" "$ns_pid" "$(id -u)" <<'EOF'
import os, sys
shm, ns_pid, uid = sys.argv[1:]
if not os.path.isdir(f'{shm}/jack_db-{uid}'):
    print(0); raise SystemExit(0)
ns = os.readlink(f'/proc/{ns_pid}/ns/mnt')
needle = f' /dev/shm/jack_db-{uid}/'
for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
        if os.readlink(f'/proc/{pid}/ns/mnt') != ns:
            continue
        if any(needle in line for line in open(f'/proc/{pid}/maps')):
            print(0); raise SystemExit(0)
    except OSError:
        continue
print(1)
EOF
}

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The built-in workers of xrunlab-load: what its forked children run until they are stopped (a
// CPU busy loop; the bench load's timed benchmark jobs; streaming writes, reads and copies of a
// file; a loopback TCP sender and receiver; a program whose output is counted as it streams
// through a pipe), and the memory they
// share with the supervisor: one slot per worker with its counters and, when it gives up, why.
// Every body runs in a forked child and never returns; on a failure it writes the reason into its
// slot and exits with status 1. Non-realtime.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/loads/output_counter.hpp"

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

// One worker's part of the memory it shares with the supervisor (MAP_SHARED): its counters and
// its last words.
struct Slot {
  std::atomic<uint64_t> bytes{0};     // written / read / copied / received
  std::atomic<uint64_t> passes{0};    // whole files written / read / copied
  std::atomic<uint64_t> units{0};     // counted in a program's output: frames drawn, refreshes
  std::atomic<uint64_t> units_ms{0};  // the time those units cover, in milliseconds
  // bench: the jobs finished, the sums of their wall (CLOCK_MONOTONIC) and CPU
  // (CLOCK_THREAD_CPUTIME_ID) times, and the shortest job's wall time (0 before the first);
  // the sums are added before the job is counted.
  std::atomic<uint64_t> bench_jobs{0};
  std::atomic<uint64_t> bench_wall_ns{0};
  std::atomic<uint64_t> bench_wall_ns_min{0};
  std::atomic<uint64_t> bench_cpu_ns{0};
  char message[216] = {};  // why the worker gave up (written just before _exit)
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters shared across processes");

inline constexpr int kMaxSlots = 260;  // cpu and bench N <= 256

// The whole shared memory: a slot for each worker, in the order the supervisor adds them.
struct Shared {
  Slot slots[kMaxSlots];
};

// N of them are the cpu load: pure arithmetic, no system calls.
[[noreturn]] void cpu_worker(unsigned seed);

// N of them are the bench load: bench_job (engine/loads/bench_job.hpp) back to back, the same
// job every time, each one's wall and CPU time added to the slot once it has finished.
[[noreturn]] void bench_worker(Slot& slot);

// io-write: writes DIR/io-write.dat (MIB MiB), fsyncs and removes it, in a loop. Counts the bytes
// written and the passes.
[[noreturn]] void io_write_worker(Slot& slot, const std::string& dir, long mib);

// io-read: creates DIR/io-read.dat (MIB MiB) once, then reads it again and again, dropping it
// from the page cache after each pass. Counts the bytes read and the passes.
[[noreturn]] void io_read_worker(Slot& slot, const std::string& dir, long mib);

// io-copy: creates DIR/io-copy.src (MIB MiB) once, then copies it to DIR/io-copy.dst, fsyncs and
// removes the copy, in a loop. Counts the bytes copied and the passes.
[[noreturn]] void io_copy_worker(Slot& slot, const std::string& dir, long mib);

// net: accepts one connection after the other on the supervisor's listening socket, reads all.
// Counts the bytes received.
[[noreturn]] void net_receiver(Slot& slot, int listen_fd);

// net: streams 64 KiB writes to 127.0.0.1:port, reconnecting when the receiver goes away; gives
// up after 50 failed connection attempts in a row, 100 ms apart.
[[noreturn]] void net_sender(Slot& slot, uint16_t port);

// A program whose stdout is counted (x11: glxgears, top: top -b).
struct CountedProgram {
  std::string path;                               // resolved
  std::vector<std::string> argv;                  // argv[0] as the user would write it
  std::optional<std::vector<std::string>> env;    // nullopt: the supervisor's environment
  OutputKind output = OutputKind::kTopRefreshes;  // how its stdout is counted
};

// x11 and top: runs the program (its own process group, SIGTERM when this worker dies) with its
// stdout into a pipe that this worker reads as it streams, counting what it reports into the
// slot's units and units_ms (added to what earlier runs counted): glxgears' frames and the
// seconds of its complete report intervals, or top's refreshes and the seconds this worker has
// been reading them. Nothing is kept but the counts. When the program ends, exits with its
// status (128 + the signal that killed it), the reason in the slot when that is a failure.
[[noreturn]] void counted_program_worker(Slot& slot, const CountedProgram& program);

}  // namespace xrunlab::load_tool

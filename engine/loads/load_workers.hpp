// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The built-in workers of xrunlab-load: what its forked children run until they are stopped (a
// CPU busy loop; streaming writes, reads and copies of a file; a loopback TCP sender and
// receiver), and the memory they share with the supervisor: one slot per worker with its
// counters and, when it gives up, why. Every body runs in a forked child and never returns; on
// a failure it writes the reason into its slot and exits with status 1. Non-realtime.
#include <atomic>
#include <cstdint>
#include <string>

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

// One worker's part of the memory it shares with the supervisor (MAP_SHARED): its counters and
// its last words.
struct Slot {
  std::atomic<uint64_t> bytes{0};   // written / read / copied / received
  std::atomic<uint64_t> passes{0};  // whole files written / read / copied
  char message[232] = {};           // why the worker gave up (written just before _exit)
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters shared across processes");

inline constexpr int kMaxSlots = 260;  // cpu N <= 256

// The whole shared memory: a slot for each worker, in the order the supervisor adds them.
struct Shared {
  Slot slots[kMaxSlots];
};

// N of them are the cpu load: pure arithmetic, no system calls.
[[noreturn]] void cpu_worker(unsigned seed);

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

}  // namespace xrunlab::load_tool

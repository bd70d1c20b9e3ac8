// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The cycle table: every client's callback entry and exit for every cycle, joined by cycle, in
// one POSIX shared-memory object the engine creates (engine/run/cycle_table_reader.hpp) and
// every client maps read-write (--cycle-table NAME). It is what lets the engine decompose each
// cycle hop by hop (engine/result/cycle_hops.hpp) and see the clients that did not run.
//
// Layout: a Header in a 64 KiB block of its own (64 KiB: the largest page Linux uses), then one
// column per client, each `rows` Cells, padded to a whole number of pages (Header::column_bytes,
// the engine's page size): cell (r, k) at column k's first cell + r. Cycle `id` lives in row
// id % rows. Column-major so that a client maps only its own column (an mmap offset must be
// page-aligned): with every column in every
// client, 253 clients mapped and locked the whole 83 MB table each, 21,000 page-table entries
// per client to fill at start-up and to tear down at exit. And no two clients write one cache
// line. Client k (0-based chain position) writes only column k, once per callback, with plain
// atomic stores (no system calls): a seqlock with one writer,
// the same protocol as the card's wake slots (engine/wire/vcard_shared.hpp): seq = 0, the
// fields with release, then seq = id + 1 with release; a reader keeps a cell only when both of
// its seq reads give id + 1.
//
// The cycle id: on vcard, the boundary index m the cycle serves (the card's marker: exact even
// across xruns); elsewhere jack_last_frame_time() / period, which every client of one cycle
// reads alike (it wraps with JACK's 32-bit frame counter, after 24.8 h at 48 kHz).
//
// Times are CLOCK_MONOTONIC ns (the vcard's clock, so they join its record without conversion).
// Header-only, no allocation, no system calls: everything here may run in realtime code.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace xrunlab::cycle_table {

constexpr uint32_t kMagic = 0x78726374;  // "xrct"
// 2: cells carry the JACK frame time; 3: column-major; 4: cells carry the DSP stages run
constexpr uint32_t kVersion = 4;

// How cycles are keyed (Header::keyed_by).
constexpr uint32_t kKeyBoundary = 1;   // vcard boundary index
constexpr uint32_t kKeyFrameTime = 2;  // jack_last_frame_time() / period

struct Cell {
  std::atomic<uint64_t> seq;      // id + 1 when valid, 0 while being written
  std::atomic<int64_t> entry_ns;  // callback entry
  std::atomic<int64_t> exit_ns;   // callback exit (after the DSP work)
  std::atomic<int64_t> wake_ns;   // jackd's wake-up as this client saw it: entry minus
                                  // jack_frames_since_cycle_start() (one frame of resolution)
  std::atomic<uint32_t> frame;    // jack_last_frame_time() in this callback: what ties the
                                  // monitor's xrun callbacks and the tail's glitches (which
                                  // carry JACK frame times) to the table's cycles
  std::atomic<uint32_t> stages;   // the DSP stages this callback ran (0: no DSP work), what a
                                  // DSP ramp (--ramp) reached in this cycle, exactly
};

struct Header {
  uint32_t magic;
  uint32_t version;
  uint32_t clients;
  uint32_t rows;  // a power of two
  uint32_t rate;
  uint32_t frames;
  uint32_t keyed_by;      // kKeyBoundary or kKeyFrameTime
  uint32_t column_bytes;  // from one column's start to the next: column_bytes(rows, page size)
};

// The first column starts here: a multiple of every page size.
constexpr size_t kCellsOffset = size_t{64} * 1024;
static_assert(sizeof(Header) <= kCellsOffset);

// Bytes from one column's start to the next: `rows` cells, rounded up to whole pages.
constexpr size_t column_bytes(uint32_t rows, size_t page_bytes) noexcept {
  const size_t used = static_cast<size_t>(rows) * sizeof(Cell);
  return (used + page_bytes - 1) / page_bytes * page_bytes;
}

// Where column k (0-based) starts, from the table's start: what a client maps.
constexpr size_t column_offset(uint32_t k, size_t column_bytes) noexcept {
  return kCellsOffset + static_cast<size_t>(k) * column_bytes;
}

constexpr size_t table_bytes(uint32_t clients, size_t column_bytes) noexcept {
  return column_offset(clients, column_bytes);
}

// Column k's first cell in a mapping of the whole table (the engine's).
inline Cell* column(void* base, uint32_t k, size_t column_bytes) noexcept {
  return reinterpret_cast<Cell*>(static_cast<char*>(base) + column_offset(k, column_bytes));
}
inline const Cell* column(const void* base, uint32_t k, size_t column_bytes) noexcept {
  return reinterpret_cast<const Cell*>(static_cast<const char*>(base) +
                                       column_offset(k, column_bytes));
}

// A client's side: its cell of cycle `id`. Realtime: wait-free.
inline void write_cell(Cell& cell, uint64_t id, int64_t entry_ns, int64_t exit_ns, int64_t wake_ns,
                       uint32_t frame, uint32_t stages = 0) noexcept {
  cell.seq.store(0, std::memory_order_relaxed);
  cell.entry_ns.store(entry_ns, std::memory_order_release);
  cell.exit_ns.store(exit_ns, std::memory_order_release);
  cell.wake_ns.store(wake_ns, std::memory_order_release);
  cell.frame.store(frame, std::memory_order_release);
  cell.stages.store(stages, std::memory_order_release);
  cell.seq.store(id + 1, std::memory_order_release);
}

struct CellValue {
  uint64_t id = 0;
  int64_t entry_ns = 0, exit_ns = 0, wake_ns = 0;
  uint32_t frame = 0;
  uint32_t stages = 0;
};

// The reader's side: false when the cell is empty or being written. Wait-free.
inline bool read_cell(const Cell& cell, CellValue* out) noexcept {
  const uint64_t seq = cell.seq.load(std::memory_order_acquire);
  if (seq == 0) return false;
  CellValue v;
  v.entry_ns = cell.entry_ns.load(std::memory_order_acquire);
  v.exit_ns = cell.exit_ns.load(std::memory_order_acquire);
  v.wake_ns = cell.wake_ns.load(std::memory_order_acquire);
  v.frame = cell.frame.load(std::memory_order_acquire);
  v.stages = cell.stages.load(std::memory_order_acquire);
  if (cell.seq.load(std::memory_order_relaxed) != seq) return false;
  v.id = seq - 1;
  *out = v;
  return true;
}

static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<int64_t>::is_always_lock_free);  // address-free: fine in shared memory
static_assert(std::atomic<uint32_t>::is_always_lock_free);
static_assert(std::is_standard_layout_v<Cell>);
static_assert(sizeof(Cell) == 40);

}  // namespace xrunlab::cycle_table

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The engine's side of the cycle table (engine/wire/cycle_table.hpp): it creates the shared
// memory object every client writes its entry and exit into (CycleTableShm), and reads each
// row once it is complete, joined with the vcard's record of the interrupt and jackd's
// wake-up, into the hop decomposition (CycleTableReader, engine/result/cycle_join.hpp).
// Non-realtime: the engine's thread, about every 100 ms while the run is live.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/cycle_join.hpp"
#include "engine/result/result.hpp"
#include "engine/wire/cycle_table.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {

// "/xrunlab-cycles-" + server_name.
std::string cycle_table_shm_name(const std::string& server_name);

// Rows for a table of `clients` columns: a power of two covering at least ~10 s of cycles at
// `frames` per period and `rate` Hz, within 1024..65536 rows; above 32 MiB in all it is halved,
// down to 8192 rows. The engine reads it every 100 ms: 10 s is the margin for its stalls.
uint32_t cycle_table_rows(uint32_t clients, uint32_t rate, uint32_t frames);

// The table's POSIX shm object, created (exclusively) and initialised by the engine; unmapped
// and unlinked on destruction (the clients keep their own mappings until they exit).
class CycleTableShm {
 public:
  CycleTableShm() = default;
  CycleTableShm(const CycleTableShm&) = delete;
  CycleTableShm& operator=(const CycleTableShm&) = delete;
  ~CycleTableShm();

  // Throws Error(kOutput) naming the object when it exists already or cannot be created.
  static std::unique_ptr<CycleTableShm> create(const std::string& name, uint32_t clients,
                                               uint32_t rows, uint32_t rate, uint32_t frames,
                                               uint32_t keyed_by);
  const std::string& name() const { return name_; }
  const void* base() const { return base_; }
  const cycle_table::Header& header() const {
    return *static_cast<const cycle_table::Header*>(base_);
  }

 private:
  std::string name_;
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

// Reads the table's complete rows in cycle order and feeds them to a CycleJoiner.
//   * With the card (keyed by boundary): row m belongs to the window when boundary m's ideal
//     time is in it; it is read once that time is 200 ms (at least 4 periods) in the past.
//   * Without (keyed by frame time): a row's time is jackd's wake-up as its first client saw
//     it; rows are read once a newer cycle 200 ms later has been written. A row nobody wrote
//     between two rows of the window is a cycle in which no client ran.
// A row overwritten by a newer lap before it was read is counted as lost, never guessed.
// The joiner's settings for a run: `card` (the vcard's record gives each interrupt), the server
// program that starts each cycle (jackd, pipewire), the server's rate and period, the clients in
// chain order with their DSP targets, and at least `explain` worst cycles kept whole.
JoinConfig cycle_join_config(bool card, const std::string& server, uint32_t rate, uint32_t frames,
                             size_t explain, const std::vector<ClientResult>& clients);

class CycleTableReader {
 public:
  CycleTableReader(const CycleTableShm& table, const vcard::Shm* card, JoinConfig config);

  // The window in CLOCK_MONOTONIC ns; end INT64_MAX while it is open.
  void set_window(int64_t t0_ns, int64_t end_ns);
  // Reads what is complete; `final` reads every row up to the window's end.
  void poll(int64_t now_ns, bool final = false);

  CycleTableResult table() const { return joiner_.table(); }
  JackTestFields jack_test() const { return joiner_.jack_test(); }
  const CycleJoiner& joiner() const { return joiner_; }
  CycleJoiner& joiner() { return joiner_; }
  // The joiner's running figures (cheap, unlike table()): xrun cycles and the smallest slack
  // of the rows read so far.
  uint64_t missed() const { return joiner_.missed(); }
  // The newest cycle id any client wrote (the head's and the tail's columns): where the clients
  // are now (nullopt: nothing written yet).
  std::optional<uint64_t> newest_id() const;
  std::optional<int64_t> slack_min_ns() const { return joiner_.slack_min_ns(); }

 private:
  void poll_card(int64_t now_ns, bool final);
  void poll_frames(bool final);
  void feed_card_xruns(int64_t until_ns);
  bool read_row(uint64_t id, JoinRow* row, bool* lost) const;

  const CycleTableShm& table_;
  const vcard::Shm* card_;
  CycleJoiner joiner_;
  uint32_t clients_, rows_, rate_, frames_;
  size_t column_bytes_;
  int64_t lag_ns_;
  uint64_t lag_rows_;
  int64_t t0_ns_ = 0, end_ns_ = INT64_MAX;
  bool window_set_ = false;
  std::optional<uint64_t> next_id_;  // the next row to read
  std::optional<uint64_t> newest_;   // frame ids: the newest id seen
  uint64_t pending_empty_ = 0;       // frame ids: rows nobody wrote, held until a later row
  bool any_in_window_ = false;
  uint64_t xruns_seen_[2] = {0, 0};
  int64_t last_xrun_ns_ = INT64_MIN;
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/cycle_table_reader.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "engine/system/shm_object.hpp"

namespace xrunlab {

std::string cycle_table_shm_name(const std::string& server_name) {
  return "/xrunlab-cycles-" + server_name;
}

uint32_t cycle_table_rows(uint32_t clients, uint32_t rate, uint32_t frames) {
  const uint64_t per_10s =
      uint64_t{std::max<uint32_t>(rate, 1)} * 10 / std::max<uint32_t>(frames, 1);
  uint32_t rows = 1024;
  while (rows < 65536 && rows < per_10s) rows *= 2;
  while (rows > 8192 && uint64_t{clients} * rows * sizeof(cycle_table::Cell) > (32u << 20)) {
    rows /= 2;
  }
  return rows;
}

CycleTableShm::~CycleTableShm() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
  if (!name_.empty()) ::shm_unlink(name_.c_str());
}

std::unique_ptr<CycleTableShm> CycleTableShm::create(const std::string& name, uint32_t clients,
                                                     uint32_t rows, uint32_t rate, uint32_t frames,
                                                     uint32_t keyed_by) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t column_bytes = cycle_table::column_bytes(rows, page);
  const size_t bytes = cycle_table::table_bytes(clients, column_bytes);
  void* p = create_shm_object(name, bytes, "the cycle table's shared memory object");
  auto out = std::unique_ptr<CycleTableShm>(new CycleTableShm);
  out->name_ = name;  // from here on the destructor removes the name again
  out->bytes_ = bytes;
  out->base_ = p;
  // The new object is zero-filled: every cell is empty (seq 0).
  auto* h = new (p) cycle_table::Header;
  h->version = cycle_table::kVersion;
  h->clients = clients;
  h->rows = rows;
  h->rate = rate;
  h->frames = frames;
  h->keyed_by = keyed_by;
  h->column_bytes = static_cast<uint32_t>(column_bytes);
  h->magic = cycle_table::kMagic;  // read only by clients started after this
  return out;
}

// ---- CycleTableReader ----------------------------------------------------------------------

CycleTableReader::CycleTableReader(const CycleTableShm& table, const vcard::Shm* card,
                                   JoinConfig config)
    : table_(table),
      card_(card),
      joiner_(std::move(config)),
      clients_(table.header().clients),
      rows_(table.header().rows),
      rate_(table.header().rate),
      frames_(table.header().frames),
      column_bytes_(table.header().column_bytes) {
  const int64_t period_ns = joiner_.period_ns();
  lag_ns_ = std::max<int64_t>(200000000, 4 * period_ns);
  lag_rows_ =
      static_cast<uint64_t>(std::max<int64_t>(4, lag_ns_ / std::max<int64_t>(period_ns, 1)));
  lag_rows_ = std::min<uint64_t>(lag_rows_, rows_ / 4);
}

void CycleTableReader::set_window(int64_t t0_ns, int64_t end_ns) {
  t0_ns_ = t0_ns;
  end_ns_ = end_ns;
  if (!window_set_) joiner_.set_origin(t0_ns);
  window_set_ = true;
}

void CycleTableReader::poll(int64_t now_ns, bool final) {
  if (!window_set_) return;
  if (card_ != nullptr && table_.header().keyed_by == cycle_table::kKeyBoundary) {
    poll_card(now_ns, final);
  } else {
    poll_frames(final);
  }
}

bool CycleTableReader::read_row(uint64_t id, JoinRow* row, bool* lost) const {
  const size_t r = static_cast<size_t>(id & (rows_ - 1));
  row->id = id;
  row->cells.assign(clients_, JoinCell{});
  *lost = false;
  bool any = false;
  for (uint32_t k = 0; k < clients_; ++k) {
    cycle_table::CellValue v;
    if (!cycle_table::read_cell(cycle_table::column(table_.base(), k, column_bytes_)[r], &v))
      continue;                   // empty, or mid-write
    if (v.id > id) *lost = true;  // a newer lap overwrote it: what was there is gone
    if (v.id != id) continue;
    row->cells[k] = {true, v.entry_ns, v.exit_ns, v.wake_ns, v.frame, v.stages};
    any = true;
  }
  return any;
}

void CycleTableReader::feed_card_xruns(int64_t until_ns) {
  std::vector<const vcard::XrunEvent*> fresh;
  for (int s = 0; s < 2; ++s) {
    const vcard::StreamRecord& rec = card_->stream[s];
    const uint64_t n = rec.xruns.load(std::memory_order_acquire);
    if (n - xruns_seen_[s] > vcard::kXrunSlots) xruns_seen_[s] = n - vcard::kXrunSlots;
    for (; xruns_seen_[s] < n; ++xruns_seen_[s]) {
      fresh.push_back(&rec.xrun[xruns_seen_[s] % vcard::kXrunSlots]);
    }
  }
  std::sort(fresh.begin(), fresh.end(), [](const vcard::XrunEvent* a, const vcard::XrunEvent* b) {
    return a->detected_ns < b->detected_ns;
  });
  // Both streams of one stall are one xrun for JACK (it restarts both).
  const int64_t half_period = joiner_.period_ns() / 2;
  for (const vcard::XrunEvent* e : fresh) {
    const bool same = last_xrun_ns_ != INT64_MIN && e->detected_ns - last_xrun_ns_ <= half_period;
    last_xrun_ns_ = e->detected_ns;
    if (same || e->detected_ns < t0_ns_ || e->detected_ns >= end_ns_ || e->detected_ns > until_ns) {
      continue;
    }
    joiner_.add_driver_xrun(e->ideal_ns, e->detected_ns);
  }
}

void CycleTableReader::poll_card(int64_t now_ns, bool final) {
  feed_card_xruns(INT64_MAX);
  if (!next_id_) {
    uint64_t m0 = vcard::boundary_index(static_cast<uint64_t>(t0_ns_), rate_, frames_);
    if (static_cast<int64_t>(vcard::boundary_ns(m0, rate_, frames_)) < t0_ns_) ++m0;
    next_id_ = m0;
  }
  // The last boundary to read: before the window's end, and (while live) long enough ago.
  const int64_t until = final ? end_ns_ : std::min(end_ns_, now_ns - lag_ns_);
  if (until <= 0) return;
  uint64_t last = vcard::boundary_index(static_cast<uint64_t>(until - 1), rate_, frames_);
  if (static_cast<int64_t>(vcard::boundary_ns(last, rate_, frames_)) >= until) {
    if (last == 0) return;
    --last;
  }
  if (last + 1 < *next_id_) return;
  if (last + 1 - *next_id_ > rows_) {  // the engine fell a whole table behind
    const uint64_t skip = last + 1 - *next_id_ - rows_;
    joiner_.add_lost(skip);
    *next_id_ += skip;
  }
  for (uint64_t m = *next_id_; m <= last; ++m) {
    JoinRow row;
    bool lost = false;
    read_row(m, &row, &lost);
    if (lost) {
      joiner_.add_lost(1);
      continue;
    }
    row.interrupt_ns = static_cast<int64_t>(vcard::boundary_ns(m, rate_, frames_));
    // jackd's first wake-up for m: the earlier of its two streams' records (after an xrun it
    // may restart a stream without polling it for the boundaries it missed).
    for (int stream = 0; stream < 2; ++stream) {
      const vcard::WakeSlot& slot = card_->stream[stream].wake[m % vcard::kWakeSlots];
      uint64_t got = 0;
      int64_t ideal = 0, wake = 0;
      if (vcard::read_wake(slot, &got, &ideal, &wake) && got == m &&
          (!row.jackd_wake_ns || wake < *row.jackd_wake_ns)) {
        row.jackd_wake_ns = wake;
      }
    }
    joiner_.add(row);
  }
  next_id_ = last + 1;
}

std::optional<uint64_t> CycleTableReader::newest_id() const {
  std::optional<uint64_t> newest;
  for (uint32_t k : {0u, clients_ - 1}) {
    const cycle_table::Cell* cells = cycle_table::column(table_.base(), k, column_bytes_);
    for (uint32_t r = 0; r < rows_; ++r) {
      cycle_table::CellValue v;
      if (cycle_table::read_cell(cells[r], &v) && (!newest || v.id > *newest)) {
        newest = v.id;
      }
    }
  }
  return newest;
}

void CycleTableReader::poll_frames(bool final) {
  const std::optional<uint64_t> newest = newest_id();
  if (!newest) return;
  if (!next_id_) next_id_ = *newest >= rows_ / 2 ? *newest - rows_ / 2 : 0;
  const uint64_t last = final ? *newest : (*newest >= lag_rows_ ? *newest - lag_rows_ : 0);
  if (last + 1 <= *next_id_) return;
  if (last + 1 - *next_id_ > rows_) {
    const uint64_t skip = last + 1 - *next_id_ - rows_;
    if (any_in_window_) joiner_.add_lost(skip);
    *next_id_ += skip;
  }
  for (uint64_t id = *next_id_; id <= last; ++id) {
    JoinRow row;
    bool lost = false;
    const bool any = read_row(id, &row, &lost);
    if (lost) {
      if (any_in_window_) joiner_.add_lost(1);
      continue;
    }
    if (!any) {  // no client ran: a cycle of the window only if one follows in it
      if (any_in_window_) ++pending_empty_;
      continue;
    }
    int64_t ref = 0;
    for (const JoinCell& c : row.cells) {
      if (c.ran) {
        ref = c.wake_ns;
        break;
      }
    }
    if (ref < t0_ns_) continue;
    if (ref >= end_ns_) {
      pending_empty_ = 0;
      continue;
    }
    for (; pending_empty_ > 0; --pending_empty_) {
      JoinRow empty;
      empty.id = id - pending_empty_;
      empty.cells.assign(clients_, JoinCell{});
      joiner_.add(empty);
    }
    joiner_.add(row);
    any_in_window_ = true;
  }
  next_id_ = last + 1;
}

JoinConfig cycle_join_config(bool card, const std::string& server, uint32_t rate, uint32_t frames,
                             size_t explain, const std::vector<ClientResult>& clients) {
  JoinConfig jc;
  jc.rate = rate;
  jc.frames = frames;
  jc.card = card;
  jc.server_wake = server + " wake-up";
  jc.time_source =
      card ? "the vcard's record: the interrupt is the period grid's exact boundary, jackd's "
             "wake-up its first poll at or after it (CLOCK_MONOTONIC, 1 ns)"
           : "no interrupt time on this backend; " + server +
                 "'s wake-up as each cycle's first client saw it (jack_frames_since_cycle_start, "
                 "one frame)";
  jc.resolution_us = card ? 0.001 : 1e6 / std::max<uint32_t>(rate, 1);
  jc.worst_keep = std::max(jc.worst_keep, explain);
  for (const ClientResult& c : clients) {
    jc.client_names.push_back(fmt::format("c{:02d}", c.index));
    jc.dsp_nominal_us.push_back(c.dsp_target_us);
  }
  return jc;
}

}  // namespace xrunlab

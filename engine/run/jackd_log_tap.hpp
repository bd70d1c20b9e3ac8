// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// jackd's output, as the hub delivers it: every line is counted and goes through the log filter
// (engine/jack/log_filter.hpp: jackd -v's debug chatter is counted by kind after a few examples;
// xrun lines, messages and the start-up are kept) into RUN_DIR/jackd.log, and the lines that
// arrive inside the measurement window are counted as xrun events (JackdXrunCounter), whether
// the file keeps them or not.
//
// Threads: on_line() runs on the hub's thread; open_window()/close_window() and fill() on the
// run's thread. A mutex of its own guards the counter and the window.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/jack/jackd_log.hpp"
#include "engine/jack/log_filter.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

class JackdLogTap {
 public:
  JackdLogTap() = default;
  JackdLogTap(const JackdLogTap&) = delete;
  JackdLogTap& operator=(const JackdLogTap&) = delete;
  ~JackdLogTap();

  // Creates (truncates) the log file. Throws Error(kOutput) naming it.
  void open(const std::string& path);
  // --full-log: every line into the file (before open()).
  void set_full_log(bool full);
  // The server is up: from here on jackd's debug lines are filtered.
  void end_startup();
  // {"lines", "kept", "dropped": {kind: n}, "full_log"} of the file so far.
  LogCounts log_counts() const;
  // Late-client lines closer than gap_us belong to one event (half a period).
  void set_event_gap(int64_t gap_us);
  // Lines arriving (engine clock, CLOCK_MONOTONIC_RAW µs) at or after t0_us are counted ...
  void open_window(uint64_t t0_us);
  // ... and before end_us.
  void close_window(uint64_t end_us);
  // Hub thread: one line of jackd's stdout/stderr.
  void on_line(std::string_view line);
  // The log's counts into `x`, event times relative to the window start.
  void fill(XrunCounts& x) const;
  // The xrun events the log showed so far (the first JackdXrunCounter::kMaxEventsKept), as
  // fill() gives them.
  std::vector<LogXrunEvent> log_events() const;
  // The xrun lines that arrived in the window since the last take (arrival in seconds since its
  // start, whom they named), appended to `into` and forgotten here; `cut`: some were dropped
  // (more than JackdXrunCounter::kMaxLinesKept between two takes).
  void take_xrun_lines(std::vector<XrunLogLine>& into, bool* cut);
  // "" while every line reached jackd.log; after a write failed (the disk is full), a warning
  // saying so with the lines written and those not written since (counted all the same).
  std::string write_warning() const;
  bool disk_full() const;  // a write failed with ENOSPC or EDQUOT
  void close();

 private:
  std::vector<LogXrunEvent> log_events_locked() const;  // under mu_
  mutable std::mutex mu_;  // guards counter_, filter_, the window and the write counts
  int fd_ = -1;
  std::string path_;
  // Read and written by the hub's thread (write_failed_ also under mu_ for write_warning()).
  bool write_failed_ = false;
  int write_errno_ = 0;
  uint64_t lines_written_ = 0, lines_not_written_ = 0;
  JackdXrunCounter counter_{0};
  LogFilter filter_;
  uint64_t start_us_ = 0, end_us_ = UINT64_MAX;
  bool window_open_ = false;
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One client's output (clients/cNN.log), as the hub delivers it: each line through the log
// filter (engine/jack/log_filter.hpp: libjack's "Jack: " debug lines, which every client prints
// when jackd runs with -v, counted by kind after a few examples; the client's own lines and
// every message kept) into the file. There is no start-up phase: the client's set-up is in its
// own lines.
//
// Threads: open() from the run's thread before the hub reads the pipe; on_line() on the hub's
// thread; counts() on the run's thread once the hub has stopped.
#include <string>
#include <string_view>

#include "engine/jack/log_filter.hpp"

namespace xrunlab {

class FilteredLog {
 public:
  FilteredLog() = default;
  FilteredLog(const FilteredLog&) = delete;
  FilteredLog& operator=(const FilteredLog&) = delete;
  ~FilteredLog();

  // Creates (truncates) the file; full: every line kept. Throws Error(kOutput) naming it.
  void open(const std::string& path, bool full);
  void on_line(std::string_view line);
  const LogFilter& counts() const { return filter_; }
  void close();

 private:
  int fd_ = -1;
  LogFilter filter_;
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The live progress line of `xrunlab run`: once a second of the measurement window, one line on
// a terminal, rewritten in place, with the time left and the xrun figures so far. Only for a
// person watching a terminal: with stderr a pipe or a file (CI, campaign children, tests) or
// with --quiet it writes nothing, so those outputs stay as they were. Non-realtime.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace xrunlab {

struct ProgressFigures {
  uint64_t elapsed_s = 0;            // whole seconds of the window so far
  double duration_s = 0;             // the planned window (--duration)
  uint64_t monitor_xrun_events = 0;  // Monitor::events_total()
  // The cycle table's xrun cycles so far; nullopt without a table.
  std::optional<uint64_t> xrun_cycles;
  // The cycle table's smallest slack so far; nullopt without a table or before its first
  // complete row.
  std::optional<int64_t> slack_min_ns;
};

// "xrunlab: 12/300 s, 288 s left | monitor xruns 3 | xrun cycles 4 | worst slack 312 us":
// the monitor's xrun events, the cycle table's xrun cycles and its smallest slack so far. A
// figure without data is "-", never 0, which would read as measured. The slack is in whole
// usecs rounded toward minus infinity, as the summary's slack hop: a deadline missed by 1 ns
// shows as -1.
std::string progress_text(const ProgressFigures& f);

// `text` made to fit in `columns` (0: unknown, kept whole): a line that wraps cannot be
// rewritten in place (the carriage return goes back only to its last row). The "xrunlab: "
// prefix goes first, then whole " | " fields from the end, so no figure is shown cut.
std::string progress_fit(const std::string& text, int columns);

// The terminal's width on `fd`; 0 when it is not a terminal or does not say.
int terminal_columns(int fd);

class ProgressLine {
 public:
  // Writes to `out` only when `enabled`.
  ProgressLine(std::FILE* out, bool enabled) : out_(out), enabled_(enabled) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The line is for a person at a terminal: not with --quiet, and only when `fd` (stderr) is
  // a terminal.
  static bool wanted(bool quiet, int fd);

  bool enabled() const { return enabled_; }
  bool shown() const { return shown_; }
  // "\r" + the text fitted to `columns` + clear to the end of the line.
  void show(const std::string& text, int columns);
  // Takes the line away (when one is shown), so the next message starts on a clean line.
  void clear() noexcept;

 private:
  std::FILE* out_;
  bool enabled_;
  bool shown_ = false;
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The progress of `xrunlab run` during its measurement window. On a terminal (stderr), one line
// rewritten in place once a second: a bar of the window, the time, the xrun events and the worst
// slack so far. When stderr is not a terminal (a log file, CI, a campaign's child), a plain
// line now and then instead (every 10 s, or every tenth of a longer window, at most every 60 s),
// so a long run's log shows it going on. Nothing with --quiet. Non-realtime.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace xrunlab {

struct ProgressFigures {
  uint64_t elapsed_s = 0;            // whole seconds of the window so far
  double duration_s = 0;             // the planned window (--duration)
  uint64_t monitor_xrun_events = 0;  // Monitor::events_total()
  // The cycle table's xrun events so far (the run's one count, as the result counts them);
  // nullopt without a table, where the monitor's events are the count.
  std::optional<uint64_t> xrun_events;
  // The cycle table's smallest slack so far; nullopt without a table or before its first
  // complete row.
  std::optional<int64_t> slack_min_ns;
};

// "xrunlab: 12/300 s, 288 s left | xrun events 4 | worst slack 312 us": the xrun events so far
// (the cycle table's; "xrun events (monitor) 3" without a table) and its smallest slack so far.
// A figure without data is "-", never 0, which would read as measured. The slack is in whole
// usecs rounded toward minus infinity, as the summary's slack hop: a deadline missed by 1 ns
// shows as -1. `bar_width` > 0 puts a bar of that many cells after the prefix:
// "xrunlab: [#####...............] 12/300 s, ...".
std::string progress_text(const ProgressFigures& f, int bar_width = 0);

// The bar: `width` cells between brackets, the elapsed share of the window filled with '#'.
std::string progress_bar(uint64_t elapsed_s, double duration_s, int width);

// How the progress is shown: not at all (--quiet), rewritten in place (stderr is a terminal) or
// as plain lines now and then (anything else).
enum class ProgressMode { kOff, kTerminal, kLines };
ProgressMode progress_mode(bool quiet, int fd);

// Every how many seconds of the window a plain line is printed: 10, or a tenth of the window
// when that is longer, at most 60.
uint64_t plain_line_every_s(double duration_s);

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
  // A line of its own, ended by a newline (the plain mode's).
  void line(const std::string& text);
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

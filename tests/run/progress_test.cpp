// SPDX-License-Identifier: GPL-2.0-or-later
// The progress of a run: its text for the figures (exact, "-" without data, negative slack,
// the time left at the start and the end), the bar, fitting it to the terminal, the plain
// lines' interval, and what the line writes (nothing when disabled; a clear only after a line).
#include "engine/run/progress.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

namespace xrunlab {
namespace {

ProgressFigures typical() {
  ProgressFigures f;
  f.elapsed_s = 12;
  f.duration_s = 300;
  f.monitor_xrun_events = 3;
  f.xrun_events = 4;
  f.slack_min_ns = 312'400;
  return f;
}

// What a ProgressLine writes, through an in-memory FILE*.
class Capture {
 public:
  Capture() : file_(open_memstream(&buf_, &size_)) {}
  ~Capture() {
    std::fclose(file_);
    std::free(buf_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

TEST(ProgressText, TypicalFigures) {
  EXPECT_EQ(progress_text(typical()),
            "xrunlab: 12/300 s, 288 s left | xrun events 4 | worst slack 312 us");
}

TEST(ProgressText, WithoutACycleTableTheMonitorCountsAndTheSlackIsADash) {
  ProgressFigures f = typical();
  f.xrun_events.reset();
  f.slack_min_ns.reset();
  EXPECT_EQ(progress_text(f),
            "xrunlab: 12/300 s, 288 s left | xrun events (monitor) 3 | worst slack -");
}

TEST(ProgressText, BeforeTheFirstCompleteRowOnlyTheSlackIsADash) {
  ProgressFigures f = typical();
  f.xrun_events = 0;
  f.slack_min_ns.reset();
  EXPECT_EQ(progress_text(f), "xrunlab: 12/300 s, 288 s left | xrun events 0 | worst slack -");
}

TEST(ProgressText, AMissedDeadlineIsANegativeSlack) {
  ProgressFigures f = typical();
  f.slack_min_ns = -2'500'300;
  EXPECT_EQ(progress_text(f),
            "xrunlab: 12/300 s, 288 s left | xrun events 4 | worst slack -2501 us");
  // Missed by less than a usec: still negative, not "0".
  f.slack_min_ns = -300;
  EXPECT_NE(progress_text(f).find("| worst slack -1 us"), std::string::npos);
  f.slack_min_ns = 999;
  EXPECT_NE(progress_text(f).find("| worst slack 0 us"), std::string::npos);
}

TEST(ProgressText, ElapsedAndLeftAtTheStartAndTheEnd) {
  ProgressFigures f = typical();
  const auto time_field = [&] {
    const std::string text = progress_text(f);
    return text.substr(0, text.find(" | "));
  };
  f.elapsed_s = 0;
  EXPECT_EQ(time_field(), "xrunlab: 0/300 s, 300 s left");
  f.elapsed_s = 300;
  EXPECT_EQ(time_field(), "xrunlab: 300/300 s, 0 s left");
  f.elapsed_s = 301;  // a late last update never shows time left below zero
  EXPECT_EQ(time_field(), "xrunlab: 301/300 s, 0 s left");
  f.duration_s = 2.3;
  f.elapsed_s = 2;
  EXPECT_EQ(time_field(), "xrunlab: 2/2.3 s, 0.3 s left");
}

TEST(ProgressText, TheBarFillsWithTheWindowAndNeverOverflows) {
  EXPECT_EQ(progress_bar(0, 300, 10), "[..........]");
  EXPECT_EQ(progress_bar(29, 300, 10), "[..........]");  // rounded down: never ahead
  EXPECT_EQ(progress_bar(30, 300, 10), "[#.........]");
  EXPECT_EQ(progress_bar(150, 300, 10), "[#####.....]");
  EXPECT_EQ(progress_bar(300, 300, 10), "[##########]");
  EXPECT_EQ(progress_bar(301, 300, 10), "[##########]");  // a late last update
  EXPECT_EQ(progress_bar(5, 0, 4), "[....]");             // no window known: empty
  EXPECT_EQ(progress_bar(5, 10, 0), "");
  EXPECT_EQ(progress_text(typical(), 10),
            "xrunlab: [..........] 12/300 s, 288 s left | xrun events 4 | worst slack 312 us");
}

TEST(ProgressText, PlainLinesEveryTenSecondsOrATenthOfTheWindowAtMostAMinute) {
  EXPECT_EQ(plain_line_every_s(10), 10u);
  EXPECT_EQ(plain_line_every_s(60), 10u);
  EXPECT_EQ(plain_line_every_s(300), 30u);
  EXPECT_EQ(plain_line_every_s(301), 31u);
  EXPECT_EQ(plain_line_every_s(3600), 60u);
  EXPECT_EQ(plain_line_every_s(0.5), 10u);
}

TEST(ProgressFit, ThePrefixThenWholeFieldsAreDroppedToFitTheTerminal) {
  const std::string text = progress_text(typical(), 20);
  const std::string bare =
      "[....................] 12/300 s, 288 s left | xrun events 4 | worst slack 312 us";
  ASSERT_EQ(text, "xrunlab: " + bare);
  ASSERT_EQ(text.size(), 89u);              // the bare text fits 81 columns
  EXPECT_EQ(progress_fit(text, 0), text);   // width unknown
  EXPECT_EQ(progress_fit(text, 90), text);  // one column to spare
  EXPECT_EQ(progress_fit(text, 89), bare);  // would reach the last column
  EXPECT_EQ(progress_fit(text, 81), bare);
  EXPECT_EQ(progress_fit(text, 80),  // the last column free: the slack goes
            "[....................] 12/300 s, 288 s left | xrun events 4");
  EXPECT_EQ(progress_fit(text, 44), "[....................] 12/300 s, 288 s left");
  EXPECT_EQ(progress_fit(text, 9), "[.......");  // not even the first field: cut
}

TEST(ProgressLine, DisabledWritesNothing) {
  Capture out;
  ProgressLine line(out.file(), false);
  EXPECT_FALSE(line.enabled());
  line.show("xrunlab: 1/2 s", 0);
  EXPECT_FALSE(line.shown());
  line.clear();
  EXPECT_EQ(out.text(), "");
}

TEST(ProgressLine, APlainLineTakesTheLiveLineAwayFirst) {
  Capture out;
  ProgressLine line(out.file(), true);
  line.line("xrunlab: 10/300 s");
  EXPECT_EQ(out.text(), "xrunlab: 10/300 s\n");
  line.show("xrunlab: 11/300 s", 0);
  line.line("xrunlab: 20/300 s");
  EXPECT_EQ(out.text(), "xrunlab: 10/300 s\n\rxrunlab: 11/300 s\x1b[K\r\x1b[Kxrunlab: 20/300 s\n");
  ProgressLine off(out.file(), false);
  off.line("never");
  EXPECT_EQ(out.text().find("never"), std::string::npos);
}

TEST(ProgressLine, ALineIsRewrittenInPlaceAndClearedOnce) {
  Capture out;
  ProgressLine line(out.file(), true);
  line.clear();  // nothing shown yet: nothing to clear
  EXPECT_EQ(out.text(), "");
  line.show("xrunlab: 1/2 s | a", 0);
  EXPECT_TRUE(line.shown());
  const std::string first = "\rxrunlab: 1/2 s | a\x1b[K";
  EXPECT_EQ(out.text(), first);
  line.show("xrunlab: 2/2 s | a | b", 10);  // fitted to a terminal of 10 columns
  const std::string second = "\r2/2 s | a\x1b[K";
  EXPECT_EQ(out.text(), first + second);
  line.clear();
  EXPECT_FALSE(line.shown());
  EXPECT_EQ(out.text(), first + second + "\r\x1b[K");
  line.clear();  // already cleared: writes nothing
  EXPECT_EQ(out.text(), first + second + "\r\x1b[K");
}

TEST(ProgressLine, WantedOnlyOnATerminalAndNotQuiet) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_FALSE(ProgressLine::wanted(false, fds[1]));  // a pipe (CI, campaign children)
  EXPECT_EQ(terminal_columns(fds[1]), 0);
  EXPECT_EQ(progress_mode(false, fds[1]), ProgressMode::kLines);  // plain lines now and then
  EXPECT_EQ(progress_mode(true, fds[1]), ProgressMode::kOff);
  ::close(fds[0]);
  ::close(fds[1]);
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    if (master >= 0) ::close(master);
    GTEST_SKIP() << "no pseudo-terminal here";
  }
  const int tty = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  EXPECT_TRUE(ProgressLine::wanted(false, tty));
  EXPECT_FALSE(ProgressLine::wanted(true, tty));  // --quiet
  EXPECT_EQ(progress_mode(false, tty), ProgressMode::kTerminal);
  EXPECT_EQ(progress_mode(true, tty), ProgressMode::kOff);
  ::close(tty);
  ::close(master);
}

}  // namespace
}  // namespace xrunlab

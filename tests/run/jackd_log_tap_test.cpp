// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/jackd_log_tap.hpp"

#include <gtest/gtest.h>

#include "engine/base/errors.hpp"
#include "engine/system/clock.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::read_text;
using testing_support::TempDir;

constexpr const char* kLate =
    "JackEngine::XRun: client = xrunlab-c02 was not finished, state = Triggered";

TEST(JackdLogTap, EveryLineGoesToTheLog) {
  TempDir dir("tap");
  JackdLogTap tap;
  tap.open(dir.file("jackd.log"));
  tap.on_line("jackdmp 1.9.21");
  tap.on_line(kLate);
  tap.close();
  EXPECT_EQ(read_text(dir.file("jackd.log")), std::string("jackdmp 1.9.21\n") + kLate + "\n");
}

// After the start-up, debug chatter keeps its examples, then a note; xrun lines are all written
// and all counted, kept or not.
TEST(JackdLogTap, AfterTheStartUpChatterIsCountedNotWritten) {
  TempDir dir("tap");
  JackdLogTap tap;
  tap.set_event_gap(1000);
  tap.open(dir.file("jackd.log"));
  tap.on_line("jackdmp 1.9.21");
  tap.end_startup();
  tap.open_window(mono_raw_us());
  const std::string chatter = "Jack: JackEngine::ClientNotify: no callback for notification = 3";
  for (size_t i = 0; i < LogFilter::kKeepPerKind + 30; ++i) {
    tap.on_line(chatter);
    tap.on_line(kLate);
  }
  tap.close_window(mono_raw_us());
  tap.close();
  const std::string text = read_text(dir.file("jackd.log"));
  size_t late = 0, chat = 0, at = 0;
  while ((at = text.find(kLate, at)) != std::string::npos) ++late, ++at;
  at = 0;
  while ((at = text.find(chatter, at)) != std::string::npos) ++chat, ++at;
  EXPECT_EQ(late, LogFilter::kKeepPerKind + 30);
  EXPECT_EQ(chat, LogFilter::kKeepPerKind);
  EXPECT_NE(text.find(LogFilter::note("Jack: JackEngine::ClientNotify")), std::string::npos);
  XrunCounts x;
  tap.fill(x);
  EXPECT_EQ(x.log_client_lines, LogFilter::kKeepPerKind + 30);
  const LogCounts j = tap.log_counts();
  EXPECT_EQ(j.lines, 1 + 2 * (LogFilter::kKeepPerKind + 30));
  EXPECT_EQ(j.dropped.at("Jack: JackEngine::ClientNotify"), 30u);
}

TEST(JackdLogTap, OnlyLinesInsideTheWindowAreCounted) {
  JackdLogTap tap;  // no log file: lines are only counted
  tap.set_event_gap(1000);
  tap.on_line(kLate);  // before the window opens
  tap.open_window(mono_raw_us());
  tap.on_line(kLate);
  tap.on_line("JackEngine::XRun: client xrunlab-c03 finished after current callback");
  tap.close_window(mono_raw_us());
  tap.on_line(kLate);  // after the window closed
  XrunCounts x;
  tap.fill(x);
  EXPECT_EQ(x.log_client_lines, 2u);
  EXPECT_EQ(x.late_clients, (std::vector<std::string>{"xrunlab-c02", "xrunlab-c03"}));
  ASSERT_EQ(x.log_events.size(), x.log_client_events);
  EXPECT_GE(x.log_events.front().t_s, 0.0);
}

TEST(JackdLogTap, AFolderThatCannotBeWrittenIsAnOutputError) {
  JackdLogTap tap;
  try {
    tap.open("/nonexistent-xrunlab/jackd.log");
    ADD_FAILURE() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-xrunlab/jackd.log"), std::string::npos);
  }
}

// /dev/full: every write fails with ENOSPC, as on a full disk. The log degrades (nothing more is
// written, each line counted and said), the counting goes on.
TEST(JackdLogTap, AFullDiskStopsTheLogNotTheCounting) {
  JackdLogTap tap;
  tap.open("/dev/full");
  tap.set_event_gap(1000);
  EXPECT_EQ(tap.write_warning(), "");
  EXPECT_FALSE(tap.disk_full());
  tap.open_window(mono_raw_us());
  tap.on_line("jackdmp 1.9.21");
  tap.on_line(kLate);
  tap.on_line(kLate);
  tap.close_window(mono_raw_us());
  XrunCounts x;
  tap.fill(x);
  EXPECT_EQ(x.log_client_lines, 2u);
  EXPECT_TRUE(tap.disk_full());
  EXPECT_EQ(tap.write_warning(),
            "/dev/full: the disk is full: 0 line(s) written, the 3 after them not (the first of "
            "those may be there in part; jackd's xrun lines among them were still counted)");
  tap.close();
}

}  // namespace
}  // namespace xrunlab

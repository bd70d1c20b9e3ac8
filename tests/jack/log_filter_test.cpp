// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/log_filter.hpp"

#include <gtest/gtest.h>

#include <string>

namespace xrunlab {
namespace {

TEST(ClassifyJackLine, TheLinesTheXrunCounterReadsAreXrunLines) {
  for (const char* l :
       {"JackEngine::XRun: client = xrunlab-c02 was not finished, state = Triggered",
        "JackEngine::XRun: client xrunlab-c03 finished after current callback",
        "JackTimedDriver::Process XRun = 1234 usec", "**** alsa_pcm: xrun of at least 3.1 msecs",
        "Jack: JackEngine::NotifyXRun fCallback", "driver is not running: timed out\r\n"}) {
    const LogLineKind k = classify_jack_line(l);
    EXPECT_EQ(k.kind, "xrun") << l;
    EXPECT_TRUE(k.always_kept) << l;
  }
}

TEST(ClassifyJackLine, XrunLinesAndMessagesHaveARepeatKind) {
  EXPECT_EQ(classify_jack_line("JackEngine::XRun: client = c02 was not finished, state = Running")
                .repeat_kind,
            "xrun: client not finished");
  EXPECT_EQ(classify_jack_line("JackEngine::XRun: client c03 finished after current callback")
                .repeat_kind,
            "xrun: client finished late");
  EXPECT_EQ(classify_jack_line("Jack: **** alsa_pcm: xrun of at least 3.1 msecs").repeat_kind,
            "xrun: driver");
  EXPECT_EQ(classify_jack_line("driver is not running: timed out").repeat_kind, "xrun: timed out");
  EXPECT_EQ(classify_jack_line("Jack: ALSA XRun wait_status = 0").repeat_kind, "xrun: other");
  EXPECT_EQ(
      classify_jack_line("JackAudioDriver::ProcessGraphAsyncMaster: Process error\r\n").repeat_kind,
      "message: JackAudioDriver::ProcessGraphAsyncMaster");
  EXPECT_EQ(classify_jack_line("").repeat_kind, "message: ");
  EXPECT_EQ(classify_jack_line("Jack: JackClientSocket::Close").repeat_kind, "");
}

TEST(ClassifyJackLine, OurOwnNamesAreNotXruns) {
  const LogLineKind k =
      classify_jack_line("Jack: JackClient::ClientNotify ref = 3 name = xrunlab-c01 notify = 2");
  EXPECT_EQ(k.kind, "Jack: JackClient::ClientNotify");
  EXPECT_FALSE(k.always_kept);
}

TEST(ClassifyJackLine, MessagesAreKeptDebugLinesGoByTheirFirstWord) {
  for (const char* l : {"creating alsa driver ... xrunlab_vcard|xrunlab_vcard|1024|2|48000",
                        "Cannot write socket fd = 12 err = Broken pipe",
                        "xrunlab-c01: 843 cycles in total, 468 measured, 0 ring drops", ""}) {
    EXPECT_EQ(classify_jack_line(l).kind, "message") << l;
    EXPECT_TRUE(classify_jack_line(l).always_kept) << l;
  }
  EXPECT_EQ(
      classify_jack_line("Jack: JackEngine::ClientNotify: no callback for notification = 9").kind,
      "Jack: JackEngine::ClientNotify");
  EXPECT_EQ(classify_jack_line("Jack: JackClientSocket::Close").kind,
            "Jack: JackClientSocket::Close");
}

TEST(LogFilter, TheStartUpIsKeptThenEachDebugKindKeepsItsExamples) {
  LogFilter f(false, 3);
  const std::string chatter = "Jack: JackEngine::ClientNotify: no callback for notification = 3";
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(f.add(chatter).keep);  // start-up: all of it
  f.end_startup();
  int kept = 0, last = 0;
  for (int i = 0; i < 10; ++i) {
    const LogFilter::Verdict v = f.add(chatter);
    kept += v.keep ? 1 : 0;
    last += v.last_of_kind ? 1 : 0;
    EXPECT_EQ(v.keep, i < 3) << i;
  }
  EXPECT_EQ(kept, 3);
  EXPECT_EQ(last, 1);
  EXPECT_TRUE(f.add("Jack: JackClientSocket::Close").keep);  // another kind: its own examples
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(f.add("JackEngine::XRun: client = c1 was not finished, state = Triggered").keep);
    EXPECT_TRUE(f.add("CheckRes error").keep);
  }
  EXPECT_EQ(f.lines(), 5u + 10 + 1 + 200);
  EXPECT_EQ(f.kept(), 5u + 3 + 1 + 200);
  EXPECT_EQ(f.dropped(), 7u);
  EXPECT_EQ(f.dropped_by_kind().at("Jack: JackEngine::ClientNotify"), 7u);
  const LogCounts c = f.counts();
  EXPECT_EQ(c.lines, 216u);
  EXPECT_EQ(c.kept, 209u);
  EXPECT_EQ(c.dropped.at("Jack: JackEngine::ClientNotify"), 7u);
  EXPECT_FALSE(c.full_log);
  EXPECT_EQ(c.examples_per_kind, 3u);
  EXPECT_NE(LogFilter::note("Jack: X").find("--full-log"), std::string::npos);
}

TEST(LogFilter, RepeatedXrunLinesAndMessagesKeepTheirFirstLinesAfterTheStartUp) {
  LogFilter f(false, 1, 4);
  const std::string late = "JackEngine::XRun: client = c2 was not finished, state = Running";
  const std::string error = "JackAudioDriver::ProcessGraphAsyncMaster: Process error";
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(f.add(late).keep);  // start-up: all of it
  f.end_startup();
  int last = 0;
  for (int i = 0; i < 10; ++i) {
    const LogFilter::Verdict a = f.add(late), b = f.add(error);
    EXPECT_EQ(a.keep, i < 4) << i;
    EXPECT_EQ(b.keep, i < 4) << i;
    last += (a.last_of_kind ? 1 : 0) + (b.last_of_kind ? 1 : 0);
    if (a.last_of_kind) {
      EXPECT_EQ(a.kind, "xrun: client not finished");
    }
  }
  EXPECT_EQ(last, 2);
  // Another kind of xrun line has its own bound.
  EXPECT_TRUE(f.add("**** alsa_pcm: xrun of at least 3.1 msecs").keep);
  EXPECT_EQ(f.lines(), 6u + 20 + 1);
  EXPECT_EQ(f.kept(), 6u + 8 + 1);
  EXPECT_EQ(f.dropped_by_kind().at("xrun: client not finished"), 6u);
  EXPECT_EQ(f.dropped_by_kind().at("message: JackAudioDriver::ProcessGraphAsyncMaster"), 6u);
  EXPECT_EQ(f.counts().repeats_kept_per_kind, 4u);
  EXPECT_EQ(LogFilter().keep_repeats(), LogFilter::kKeepRepeats);
}

TEST(LogFilter, MessageKindsBeyondTheBoundCountTogether) {
  LogFilter f(false, 0, 0);
  f.end_startup();
  for (size_t i = 0; i < LogFilter::kMaxKinds + 5; ++i) {
    EXPECT_FALSE(f.add("Word" + std::to_string(i) + " error").keep);
  }
  EXPECT_EQ(f.dropped_by_kind().size(), LogFilter::kMaxKinds + 1);
  EXPECT_EQ(f.dropped_by_kind().at("message: (other)"), 5u);
}

TEST(LogFilter, FullLogKeepsEveryLineAndCountsThem) {
  LogFilter f(true, 1);
  f.end_startup();
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(f.add("Jack: JackClientSocket::Close").keep);
    EXPECT_TRUE(f.add("JackEngine::XRun: client = c1 was not finished, state = Running").keep);
  }
  EXPECT_EQ(f.lines(), 100u);
  EXPECT_EQ(f.kept(), 100u);
  EXPECT_TRUE(f.dropped_by_kind().empty());
}

TEST(LogFilter, KindsBeyondTheBoundCountTogether) {
  LogFilter f(false, 0);
  f.end_startup();
  for (size_t i = 0; i < LogFilter::kMaxKinds + 5; ++i) {
    EXPECT_FALSE(f.add("Jack: Kind" + std::to_string(i) + " x").keep);
  }
  EXPECT_EQ(f.dropped_by_kind().size(), LogFilter::kMaxKinds + 1);
  EXPECT_EQ(f.dropped_by_kind().at("Jack: (other)"), 5u);
}

TEST(LogFilter, MergeAddsTheCounts) {
  LogFilter a(false, 1), b(false, 1);
  a.end_startup();
  b.end_startup();
  for (int i = 0; i < 3; ++i) {
    a.add("Jack: K");
    b.add("Jack: K");
  }
  LogFilter all;
  all.merge(a);
  all.merge(b);
  EXPECT_EQ(all.lines(), 6u);
  EXPECT_EQ(all.kept(), 2u);
  EXPECT_EQ(all.dropped_by_kind().at("Jack: K"), 4u);
}

}  // namespace
}  // namespace xrunlab

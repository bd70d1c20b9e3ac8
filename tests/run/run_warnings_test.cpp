// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_warnings.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(CountWarnings, NoneWhenEverythingAgrees) {
  RunResult r;
  r.client_results.resize(2);
  r.xruns.monitor_events = r.xruns.log_client_events = 3;
  EXPECT_TRUE(count_warnings(r).empty());
}

TEST(CountWarnings, NamesEachDisagreementOnce) {
  RunResult r;
  r.client_results.resize(2);
  r.client_results[0].name = "xrunlab-c01";
  r.client_results[1].name = "xrunlab-c02";
  r.client_results[1].ring_dropped = 7;
  r.xruns.monitor_events = 4;
  r.xruns.log_client_events = 5;
  r.audio.emplace();
  r.audio->totals.ring_dropped = 2;
  const std::vector<std::string> w = count_warnings(r);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0],
            "the monitor counted 4 client xrun events, jackd's log 5: they should agree; the "
            "monitor's count is used");
  EXPECT_EQ(w[1], "xrunlab-c02 lost 7 cycle records (ring full)");
  EXPECT_EQ(w[2], "the chain's tail sent no audio totals: the audio check is incomplete");
  EXPECT_EQ(w[3], "the tail lost 2 audio chunks before checking them: glitches there are not real");
}

// vcard and alsa deliver driver xruns to the clients: the monitor counts them, and jackd's log
// has them as driver lines, so those are on the log's side too (they were once left out, and
// every driver xrun read as a disagreement).
TEST(CountWarnings, DriverXrunsThatReachTheMonitorAreOnTheLogsSide) {
  RunResult r;
  r.driver_xruns_reach_monitor = true;
  r.xruns.monitor_events = 5;
  r.xruns.log_client_events = 3;
  r.xruns.log_driver_xruns = 2;
  EXPECT_TRUE(count_warnings(r).empty());
  r.xruns.log_driver_xruns = 1;
  const std::vector<std::string> w = count_warnings(r);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "the monitor counted 5 xrun events, jackd's log 4 (3 of clients, 1 of the driver): "
            "they should agree; the monitor's count is used");
  // Where they do not reach it (dummy), the log's driver xruns are not the monitor's to see.
  r.driver_xruns_reach_monitor = false;
  r.xruns.monitor_events = 3;
  EXPECT_TRUE(count_warnings(r).empty());
}

// With the cycle table, each source is judged against the table's xrun events, not against
// the other source's timing-grouped count, and only a source that missed one (or reported
// before any) is worth a warning.
TEST(CountWarnings, WithTheCycleTableEachSourceIsJudgedAgainstIt) {
  RunResult r;
  r.xruns.monitor_events = 20;  // timing-grouped: would have disagreed with the log
  r.xruns.log_client_events = 24;
  r.xrun_cycles.present = true;
  r.xrun_cycles.events = 18;
  SourceTally monitor, log;
  monitor.key = "monitor";
  log.key = "jackd_log";
  monitor.events_reported = log.events_reported = 18;
  r.xrun_cycles.sources = {monitor, log};
  EXPECT_TRUE(count_warnings(r).empty()) << "both reported every event";
  r.xrun_cycles.sources[0].events_reported = 16;
  r.xrun_cycles.sources[0].events_missed = 2;
  const std::vector<std::string> w = count_warnings(r);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "of the cycle table's 18 xrun event(s) in the chain, the monitor did not report 2 and "
            "jackd's log 0 (see \"Xrun events by cycle\")");
  // A report no chain event explains is an xrun outside the chain, counted, not a warning.
  r.xrun_cycles.sources[0].events_reported = 18;
  r.xrun_cycles.sources[0].events_missed = 0;
  r.xrun_cycles.sources[1].reports_unmatched = 1;
  r.xrun_cycles.outside_events = 1;
  EXPECT_TRUE(count_warnings(r).empty());
}

TEST(AudioMatchWarnings, GlitchesNobodyExplainedAndXrunsNobodyHeard) {
  RunResult r;
  EXPECT_TRUE(audio_match_warnings(r).empty());  // no audio check
  r.audio.emplace();
  EXPECT_TRUE(audio_match_warnings(r).empty());
  r.audio->glitches_without_xrun = 1;
  r.audio->xruns_without_glitch = 3;
  const std::vector<std::string> w = audio_match_warnings(r);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "1 audible glitch(es) with no xrun within 50 ms: the chain lost audio that no xrun "
            "reported");
  EXPECT_EQ(w[1],
            "3 xrun(s) with no audible glitch within 50 ms (nothing was lost on the "
            "checked port)");
}

}  // namespace
TEST(AudioMatchWarnings, UnderPipewireGlitchesWithoutXrunCallbacksAreExplainedByItsReporting) {
  RunResult r;
  r.audio.emplace();
  r.audio->glitches_without_xrun = 1;
  r.audio->glitches.resize(3);
  r.audio->totals.glitches = 3;
  r.audio->events = 2;
  r.xruns.monitor_events = 0;
  r.backend.name = "pipewire";
  const std::vector<std::string> w = audio_match_warnings(r);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "1 audible glitch(es) with no xrun within 50 ms: the chain lost audio that no xrun "
            "reported");
  EXPECT_EQ(w[1].rfind("PipeWire: 2 audible glitch event(s), 0 xrun callback(s): PipeWire's "
                       "JACK calls the xrun callback at most once a cycle",
                       0),
            0u)
      << w[1];
  EXPECT_NE(w[1].find("the chain lost audio that no xrun reported"), std::string::npos) << w[1];
  // As many callbacks as heard events: nothing to explain.
  r.xruns.monitor_events = 2;
  EXPECT_EQ(audio_match_warnings(r).size(), 1u);
  // Under JACK2 the note is not PipeWire's to make.
  r.xruns.monitor_events = 0;
  r.backend.name = "dummy";
  EXPECT_EQ(audio_match_warnings(r).size(), 1u);
  // Nothing heard: nothing to explain.
  r.backend.name = "pipewire";
  r.audio = AudioResult{};
  EXPECT_TRUE(audio_match_warnings(r).empty());
}

TEST(RunWarnings, WhatWasFreedAfterDeadServersIsSaidWithTheFirstFourFilesNamed) {
  EXPECT_TRUE(reclaim_warnings({}).empty());
  ReclaimResult rr;
  rr.reclaimed = {"xrunlab-1-0", "xrunlab-2-0"};
  rr.removed_files = {"a", "b", "c", "d", "e"};
  rr.warning = "cannot read /dev/shm";
  const std::vector<std::string> w = reclaim_warnings(rr);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0],
            "freed 2 JACK registry slot(s) held by dead xrunlab servers: xrunlab-1-0, "
            "xrunlab-2-0");
  EXPECT_EQ(w[1],
            "removed 5 /dev/shm file(s) (semaphores, sockets, card records, cycle tables) "
            "of dead xrunlab servers: a, b, c, d, ...");
  EXPECT_EQ(w[2], "cannot read /dev/shm");
  rr.removed_files.resize(4);
  const std::string four = reclaim_warnings(rr)[1];
  EXPECT_EQ(four.substr(four.size() - 19), "servers: a, b, c, d") << "no ... after all four";
}

}  // namespace xrunlab

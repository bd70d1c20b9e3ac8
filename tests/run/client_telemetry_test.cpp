// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/client_telemetry.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace xrunlab {
namespace {

RunResult two_clients(bool audio) {
  RunResult r;
  r.client_results.resize(2);
  r.client_results[0].name = "xrunlab-c01";
  r.client_results[1].name = "xrunlab-c02";
  if (audio) r.audio.emplace();
  return r;
}

std::string line(const telemetry::Message& m) {
  std::string s = telemetry::encode(m);
  s.pop_back();  // the hub hands lines over without their newline
  return s;
}

TEST(ApplyClientLine, HelloMarksTheClientActiveWithItsThread) {
  RunResult r = two_clients(false);
  telemetry::Hello h;
  h.index = 2;
  h.rt_tid = 4242;
  h.dsp_stages = 12;
  h.sched_error = "refused";
  apply_client_line(r, 1, line(h), 0);
  EXPECT_TRUE(r.client_results[1].hello);
  EXPECT_EQ(r.client_results[1].rt_tid, 4242);
  EXPECT_EQ(r.client_results[1].dsp_stages, 12);
  EXPECT_EQ(r.client_results[1].sched_error, "refused");
  EXPECT_FALSE(r.client_results[0].hello);
}

TEST(ApplyClientLine, SecondsAddUpExactly) {
  RunResult r = two_clients(false);
  telemetry::Second s;
  s.index = 1;
  s.cycles = 3;
  s.delay = {{10, 2}, {40, 1}};
  s.over_1000 = 0;
  apply_client_line(r, 0, line(s), 0);
  s.second = 1;
  s.delay = {{1200, 1}};
  s.cycles = 1;
  s.over_1000 = 1;
  apply_client_line(r, 0, line(s), 0);
  const ClientResult& c = r.client_results[0];
  EXPECT_EQ(c.cycles, 4u);
  EXPECT_EQ(c.delay.count(), 4u);
  EXPECT_EQ(c.delay.max(), 1200);
  EXPECT_EQ(c.over_1000, 1u);
  ASSERT_EQ(c.seconds.size(), 2u);
}

TEST(ApplyClientLine, FinalCarriesTotalsAndTheTailsAudio) {
  RunResult r = two_clients(true);
  telemetry::Final f;
  f.index = 2;
  f.cycles_total = 999;
  f.ring_dropped = 1;
  f.audio.emplace();
  f.audio->frames = 48000;
  apply_client_line(r, 1, line(f), 0);
  EXPECT_TRUE(r.client_results[1].final);
  EXPECT_EQ(r.client_results[1].cycles_total, 999u);
  EXPECT_EQ(r.client_results[1].ring_dropped, 1u);
  ASSERT_TRUE(r.audio->final_received);
  EXPECT_EQ(r.audio->totals.frames, 48000u);
}

TEST(ApplyClientLine, GlitchTimesCountFromTheWindowStart) {
  RunResult r = two_clients(true);
  telemetry::GlitchReport g;
  g.index = 2;
  g.kind = "dropped";
  g.t_us = 5'500'000;
  apply_client_line(r, 1, line(g), 3'000'000);
  ASSERT_EQ(r.audio->glitches.size(), 1u);
  EXPECT_DOUBLE_EQ(r.audio->glitches[0].t_s, 2.5);
  apply_client_line(r, 1, line(g), 0);  // before the window opened: time 0
  EXPECT_DOUBLE_EQ(r.audio->glitches[1].t_s, 0.0);
}

// Found with tests/fuzz/telemetry_fuzz.cpp in mind: t_us - window start overflowed int64 (undefined
// behaviour) for a glitch line with a t_us near INT64_MIN.
TEST(ApplyClientLine, AGlitchTimeFarFromTheWindowDoesNotOverflow) {
  RunResult r = two_clients(true);
  telemetry::GlitchReport g;
  g.kind = "dropped";
  g.t_us = std::numeric_limits<int64_t>::min();
  apply_client_line(r, 1, line(g), 3'000'000);
  ASSERT_EQ(r.audio->glitches.size(), 1u);
  EXPECT_DOUBLE_EQ(r.audio->glitches[0].t_s, -9223372036857.775808);
}

TEST(ApplyClientLine, GlitchesBeyondTheKeptNumberAreNotStored) {
  RunResult r = two_clients(true);
  r.audio->glitches.resize(kMaxGlitchesKept);
  telemetry::GlitchReport g;
  g.kind = "dropped";
  apply_client_line(r, 1, line(g), 0);
  EXPECT_EQ(r.audio->glitches.size(), kMaxGlitchesKept);
}

TEST(ApplyClientLine, ErrorsAndUnreadableLinesAreNamed) {
  RunResult r = two_clients(false);
  apply_client_line(r, 0, line(telemetry::Error{1, "cannot activate"}), 0);
  EXPECT_EQ(r.client_results[0].error, "cannot activate");
  apply_client_line(r, 1, "not json", 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("xrunlab-c02: unreadable telemetry line (", 0), 0u)
      << r.warnings[0];
}

// The reply to "report-connections" is what the run waits for while it wires: an empty list is
// a reply too (a client whose ports have no connection yet).
TEST(ApplyClientLine, ConnectionsAreKeptForTheClientThatReportedThem) {
  RunResult r = two_clients(false);
  EXPECT_FALSE(r.client_results[1].connections);
  apply_client_line(r, 0, line(telemetry::Connections{1, {}}), 0);
  ASSERT_TRUE(r.client_results[0].connections);
  EXPECT_TRUE(r.client_results[0].connections->empty());
  EXPECT_FALSE(r.client_results[1].connections);
  apply_client_line(
      r, 1, line(telemetry::Connections{2, {{"xrunlab-c01:out_1", "xrunlab-c02:in_1"}}}), 0);
  ASSERT_TRUE(r.client_results[1].connections);
  EXPECT_EQ(*r.client_results[1].connections, (std::vector<std::pair<std::string, std::string>>{
                                                  {"xrunlab-c01:out_1", "xrunlab-c02:in_1"}}));
}

}  // namespace
}  // namespace xrunlab

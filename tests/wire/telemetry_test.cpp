// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/telemetry.hpp"

#include <gtest/gtest.h>

namespace xrunlab::telemetry {
namespace {

TEST(Telemetry, SecondRoundTripsExactly) {
  Second s;
  s.index = 4;
  s.second = 17;
  s.cycles = 3;
  s.delay = {{20, 2}, {1041, 1}};
  s.delay_dll = {{-5, 1}, {12, 2}};
  s.duration = {{100, 3}};
  s.cycle = {{120, 2}, {1141, 1}};
  s.over_1000 = 1;
  s.late = 0;
  s.worst = {{990000, 123456, 1041, 100, 1141}};
  const std::string line = encode(s);
  ASSERT_EQ(line.back(), '\n');
  ASSERT_EQ(line.find('\n'), line.size() - 1);
  const auto m = decode(line);
  ASSERT_TRUE(m);
  const auto& d = std::get<Second>(*m);
  EXPECT_EQ(d.index, 4);
  EXPECT_EQ(d.second, 17);
  EXPECT_EQ(d.delay, s.delay);
  EXPECT_EQ(d.delay_dll, s.delay_dll);
  EXPECT_EQ(d.cycle, s.cycle);
  ASSERT_EQ(d.worst.size(), 1u);
  EXPECT_EQ(d.worst[0].frame, 123456u);
  EXPECT_EQ(d.worst[0].cycle_us, 1141);
}

TEST(Telemetry, HelloFinalErrorRoundTrip) {
  Hello h;
  h.index = 2;
  h.name = "xrunlab-c02";
  h.rate = 48000;
  h.frames = 64;
  h.dsp_stages = 11;
  h.rt_tid = 4321;
  h.sched_target = "OTHER:-20";
  h.sched_error = "EPERM";
  const Hello back = std::get<Hello>(*decode(encode(h)));
  EXPECT_EQ(back.name, "xrunlab-c02");
  EXPECT_EQ(back.rt_tid, 4321);
  EXPECT_EQ(back.sched_target, "OTHER:-20");
  EXPECT_EQ(back.sched_error, "EPERM");
  Final f;
  f.cycles_total = 99;
  EXPECT_EQ(std::get<Final>(*decode(encode(f))).cycles_total, 99u);
  EXPECT_EQ(std::get<Error>(*decode(encode(Error{1, "boom"}))).message, "boom");
}

TEST(Telemetry, ConnectionsRoundTripInOrderAndRefuseAnythingButPairs) {
  Connections c;
  c.index = 3;
  c.connections = {{"system:capture_1", "xrunlab-c03:in_1"},
                   {"xrunlab-c03:out_1", "system:playback_1"},
                   {"vcard:clock", "xrunlab-c03:clock"}};
  const Connections back = std::get<Connections>(*decode(encode(c)));
  EXPECT_EQ(back.index, 3);
  EXPECT_EQ(back.connections, c.connections);
  EXPECT_TRUE(std::get<Connections>(*decode(encode(Connections{1, {}}))).connections.empty());
  std::string why;
  EXPECT_FALSE(decode(R"({"type":"connections","v":1,"index":1,"connections":[["a:x"]]})", &why));
  EXPECT_NE(why.find("pair"), std::string::npos) << why;
  EXPECT_FALSE(
      decode(R"({"type":"connections","v":1,"index":1,"connections":[["a:x","b:y","c:z"]]})"));
  EXPECT_FALSE(decode(R"({"type":"connections","v":1,"index":1,"connections":[["a:x",2]]})"));
  EXPECT_FALSE(decode(R"({"type":"connections","v":1,"index":1})"));
}

TEST(Telemetry, RejectsGarbageWithAReason) {
  std::string why;
  EXPECT_FALSE(decode("not json", &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(decode(R"({"type":"second","v":1})", &why));
  EXPECT_FALSE(decode(R"({"type":"hello","v":99})", &why));
  EXPECT_NE(why.find("version"), std::string::npos);
  EXPECT_FALSE(decode(R"({"type":"bogus","v":1})", &why));
}

// Found by tests/fuzz/telemetry_fuzz.cpp: nlohmann's get<int>() converted any number, so
// "index": 1e30 was undefined behaviour (a floating number out of int's range), "rate": -1 became
// 4294967295 and "frame": 4294967296 became 0. A field out of its type's range is refused.
TEST(Telemetry, NumbersOutOfTheirFieldsRangeAreRefused) {
  const std::string good = encode(Error{1, "boom"});
  ASSERT_TRUE(decode(good));
  std::string why;
  EXPECT_FALSE(decode(R"({"type":"error","v":1,"index":1e30,"message":"x"})", &why));
  EXPECT_NE(why.find("'index' is not a whole number"), std::string::npos) << why;
  EXPECT_FALSE(decode(R"({"type":"error","v":1,"index":1.5,"message":"x"})", &why));
  EXPECT_FALSE(decode(R"({"type":"error","v":1,"index":2147483648,"message":"x"})", &why));
  EXPECT_FALSE(decode(R"({"type":"error","v":1.0,"index":1,"message":"x"})", &why));
  EXPECT_TRUE(decode(R"({"type":"error","v":1,"index":-2147483648,"message":"x"})", &why));
  Hello h;
  std::string hello = encode(h);
  const std::string rate = "\"rate\":0";
  ASSERT_NE(hello.find(rate), std::string::npos);
  EXPECT_FALSE(
      decode(std::string(hello).replace(hello.find(rate), rate.size(), "\"rate\":-1"), &why));
  EXPECT_NE(why.find("'rate'"), std::string::npos) << why;
  EXPECT_FALSE(decode(
      std::string(hello).replace(hello.find(rate), rate.size(), "\"rate\":4294967296"), &why));
  EXPECT_FALSE(decode(R"({"type":"second","v":1,"index":1,"second":0,"cycles":1,"delay":[[1,-1]],)"
                      R"("delay_dll":[],"signal":[],"unreferenced":0,"duration":[],"cycle":[],)"
                      R"("over_spare":0,"over_1000":0,"late":0,"injected":0,"worst":[]})",
                      &why));
  EXPECT_NE(why.find("'count'"), std::string::npos) << why;
}

TEST(Telemetry, GlitchAndAudioTotalsRoundTrip) {
  GlitchReport g;
  g.index = 3;
  g.kind = "dropped";
  g.t_us = 123456789;
  g.frame = 4096;
  g.at_frame = 31744;
  g.jump = 256;
  g.length = 0;
  g.max_deviation = 0.75;
  g.excerpt = "glitch-001.wav";
  const auto back = decode(encode(g));
  ASSERT_TRUE(back);
  const auto* h = std::get_if<GlitchReport>(&*back);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->kind, "dropped");
  EXPECT_EQ(h->t_us, 123456789);
  EXPECT_EQ(h->at_frame, 31744u);
  EXPECT_EQ(h->jump, 256);
  EXPECT_EQ(h->max_deviation, 0.75);
  EXPECT_EQ(h->excerpt, "glitch-001.wav");

  Final f;
  f.index = 3;
  AudioTotals a;
  a.frames = 192000;
  a.glitches = 2;
  a.delta_max = 0.5;
  a.recording = "received.wav";
  a.recorded_frames = 192000;
  f.audio = a;
  const auto fb = decode(encode(f));
  ASSERT_TRUE(fb);
  const auto* ff = std::get_if<Final>(&*fb);
  ASSERT_NE(ff, nullptr);
  ASSERT_TRUE(ff->audio);
  EXPECT_EQ(ff->audio->frames, 192000u);
  EXPECT_EQ(ff->audio->glitches, 2u);
  EXPECT_EQ(ff->audio->delta_max, 0.5);
  EXPECT_EQ(ff->audio->recording, "received.wav");
  // A client that is not the sink sends no audio totals.
  const auto plain = decode(encode(Final{}));
  ASSERT_TRUE(plain);
  EXPECT_FALSE(std::get<Final>(*plain).audio);
}

}  // namespace
}  // namespace xrunlab::telemetry

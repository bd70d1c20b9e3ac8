// SPDX-License-Identifier: GPL-2.0-or-later
// The tail's audio check (clients/drain/audio_check.hpp): cycles of the test signal with a fault
// at a known frame, fed as the drain thread feeds them (in AudioChunk-sized pieces carrying their
// cycle's JACK time); each glitch is reported once, timed by the cycle that carried it.
#include "clients/drain/audio_check.hpp"

#include <gtest/gtest.h>
#include <sndfile.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "clients/rt/audio_chunk.hpp"
#include "clients/rt/test_signal.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000;
constexpr uint32_t kFrames = 256;  // one cycle
constexpr uint64_t kT0 = 7000000;  // the first cycle's callback entry, JACK time
constexpr uint64_t kPeriodUs = 5333;

// The signal from frame 0 to 1330, then from 1430 on (100 frames dropped): 4330 frames.
std::vector<float> stream_with_a_drop() {
  const TestSignal s(kRate);
  std::vector<float> x(1330 + 3000);
  s.fill_rt(x.data(), 0, 1330);
  s.fill_rt(x.data() + 1330, 1430, 3000);
  return x;
}

// Cycle k carries frames [k * kFrames, (k + 1) * kFrames), in pieces of AudioChunk::kChunk.
void feed_cycles(AudioCheck& check, const std::vector<float>& x) {
  for (size_t first = 0, k = 0; first < x.size(); first += kFrames, ++k) {
    const size_t end = std::min(x.size(), first + kFrames);
    for (size_t off = first; off < end; off += AudioChunk::kChunk) {
      const auto n = static_cast<uint32_t>(std::min<size_t>(AudioChunk::kChunk, end - off));
      check.feed(x.data() + off, n, kT0 + k * kPeriodUs, static_cast<uint32_t>(k * kFrames));
    }
  }
}

sf_count_t wav_frames(const std::string& path) {
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  if (f == nullptr) return -1;
  sf_close(f);
  return info.frames;
}

TEST(AudioCheck, ReportsEachGlitchOnceWithTheCycleThatCarriedIt) {
  std::vector<telemetry::GlitchReport> got;
  AudioCheck check(3, kRate, "", [&](const telemetry::GlitchReport& g) { got.push_back(g); });
  const std::vector<float> x = stream_with_a_drop();
  feed_cycles(check, x);
  check.add_ring_dropped(2);
  check.finish();
  ASSERT_EQ(got.size(), 1u);
  const telemetry::GlitchReport& g = got[0];
  EXPECT_EQ(g.index, 3);
  EXPECT_EQ(g.kind, "dropped");
  EXPECT_EQ(g.at_frame, 1330u);
  EXPECT_EQ(g.jump, 100);
  EXPECT_EQ(g.length, 0u);
  EXPECT_EQ(g.t_us, static_cast<int64_t>(kT0 + 5 * kPeriodUs));  // frame 1330 is in cycle 5
  EXPECT_EQ(g.frame, 5 * kFrames);
  EXPECT_GT(g.max_deviation, 0.0);
  EXPECT_EQ(g.excerpt, "");
  const telemetry::AudioTotals t = check.totals();
  EXPECT_EQ(t.frames, x.size());
  EXPECT_EQ(t.unlocked_frames, 0u);
  EXPECT_EQ(t.glitches, 1u);
  EXPECT_EQ(t.delta_max, g.max_deviation);
  EXPECT_EQ(t.ring_dropped, 2u);
  EXPECT_EQ(t.recorded_frames, 0u);
  EXPECT_EQ(t.recording, "");
  // Finished: later audio is not checked, and finishing again reports nothing twice.
  check.feed(x.data(), 64, kT0 + 100 * kPeriodUs, 100 * kFrames);
  check.finish();
  EXPECT_EQ(check.totals().frames, x.size());
  EXPECT_EQ(got.size(), 1u);
}

TEST(AudioCheck, RecordsTheReceivedSignalAndAnExcerptPerGlitch) {
  const testing_support::TempDir dir("audio-check");
  std::vector<telemetry::GlitchReport> got;
  const std::vector<float> x = stream_with_a_drop();
  {
    AudioCheck check(1, kRate, dir.str(),
                     [&](const telemetry::GlitchReport& g) { got.push_back(g); });
    feed_cycles(check, x);
    check.finish();
    const telemetry::AudioTotals t = check.totals();
    EXPECT_EQ(t.recording, "received.wav");
    EXPECT_EQ(t.recorded_frames, x.size());
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].excerpt, "glitch-001.wav");
  EXPECT_EQ(wav_frames(dir.file("received.wav")), static_cast<sf_count_t>(x.size()));
  // 100 ms either side of frame 1330, cut by the start of the stream and by its end.
  EXPECT_EQ(wav_frames(dir.file("glitch-001.wav")), static_cast<sf_count_t>(x.size()));
}

TEST(AudioCheck, NamesTheRecordingItCannotCreate) {
  try {
    AudioCheck check(1, kRate, "/nonexistent-xrunlab-dir", [](const telemetry::GlitchReport&) {});
    ADD_FAILURE() << "created";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-xrunlab-dir/received.wav"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace xrunlab

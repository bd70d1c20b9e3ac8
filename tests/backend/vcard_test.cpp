// SPDX-License-Identifier: GPL-2.0-or-later
// The virtual sound card's shared definitions (grid, marker) and the engine side (ALSA config,
// shm object, reader). No jackd, no alsa-lib: the reader runs over a Shm built by hand.
#include "engine/backend/vcard.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

using vcard::boundary_index;
using vcard::boundary_ns;

// ---- the grid --------------------------------------------------------------------------------

TEST(VcardGrid, RoundTripAndMonotonicForManyRatesAndPeriods) {
  // Around 0, 1 s, 11.6 days and 126 years of uptime (CLOCK_MONOTONIC ns fit in 63 bits).
  const uint64_t start_ns[] = {0, 1000000000ull, 1000000000000000ull, 4000000000000000000ull};
  for (const uint32_t rate : {44100u, 48000u, 96000u}) {
    for (uint32_t frames = 16; frames <= 4096; frames *= 2) {
      for (const uint64_t t0 : start_ns) {
        const uint64_t start = boundary_index(t0, rate, frames);
        uint64_t prev = 0;
        for (uint64_t m = start; m < start + 2000; ++m) {
          const uint64_t t = boundary_ns(m, rate, frames);
          ASSERT_EQ(boundary_index(t, rate, frames), m) << rate << "/" << frames << " m=" << m;
          if (m > 0) {
            ASSERT_EQ(boundary_index(t - 1, rate, frames), m - 1)
                << rate << "/" << frames << " m=" << m;
          }
          if (m > start) {
            ASSERT_GT(t, prev);
          }
          prev = t;
        }
      }
    }
  }
}

TEST(VcardGrid, EveryTimeLiesBetweenItsBoundaryAndTheNext) {
  std::mt19937_64 rng(42);
  for (const uint32_t rate : {44100u, 48000u, 96000u}) {
    for (uint32_t frames = 16; frames <= 4096; frames *= 2) {
      for (int i = 0; i < 2000; ++i) {
        const uint64_t t = rng() >> 1;  // any CLOCK_MONOTONIC value (up to 292 years)
        const uint64_t m = boundary_index(t, rate, frames);
        ASSERT_LE(boundary_ns(m, rate, frames), t);
        ASSERT_GT(boundary_ns(m + 1, rate, frames), t);
      }
    }
  }
}

TEST(VcardGrid, ExactInstantsRoundUpToWholeNanoseconds) {
  // 256 frames at 48 kHz: 5.333... ms.
  EXPECT_EQ(boundary_ns(0, 48000, 256), 0u);
  EXPECT_EQ(boundary_ns(1, 48000, 256), 5333334u);
  EXPECT_EQ(boundary_ns(2, 48000, 256), 10666667u);
  EXPECT_EQ(boundary_ns(3, 48000, 256), 16000000u);
  EXPECT_EQ(boundary_index(15999999, 48000, 256), 2u);
  EXPECT_EQ(boundary_index(16000000, 48000, 256), 3u);
  // 441 frames at 44.1 kHz: exactly 10 ms.
  EXPECT_EQ(boundary_ns(7, 44100, 441), 70000000u);
}

// ---- the marker ------------------------------------------------------------------------------

TEST(VcardMarker, RoundTripIncludingLargeBoundaries) {
  const uint64_t values[] = {0,
                             1,
                             65535,
                             65536,
                             0xFFFFFFFFu,
                             1ull << 32,
                             (1ull << 32) + 12345,
                             (1ull << 47) + 0xABCDEF1,
                             (1ull << 48) - 1};
  for (const uint64_t m : values) {
    float buf[8] = {};
    vcard::write_marker(buf, 1, m);
    uint64_t got = 0;
    ASSERT_TRUE(vcard::read_marker(buf, 8, &got)) << m;
    EXPECT_EQ(got, m);

    // In an interleaved 5-channel buffer, channel 4: the frames are 5 floats apart.
    float inter[5 * 8] = {};
    vcard::write_marker(inter + 4, 5, m);
    float channel[8];
    for (int f = 0; f < 8; ++f) channel[f] = inter[5 * f + 4];
    ASSERT_TRUE(vcard::read_marker(channel, 8, &got)) << m;
    EXPECT_EQ(got, m);
    for (int f = 0; f < 8; ++f) {
      for (int c = 0; c < 4; ++c) EXPECT_EQ(inter[5 * f + c], 0.0f);  // other channels untouched
    }
  }
}

TEST(VcardMarker, RejectsSilenceAudioAndGarbage) {
  uint64_t m = 77;
  const std::vector<float> silence(64, 0.0f);
  EXPECT_FALSE(vcard::read_marker(silence.data(), 64, &m));
  EXPECT_EQ(m, 77u);  // untouched

  std::vector<float> audio(64);
  for (size_t i = 0; i < audio.size(); ++i) audio[i] = std::sin(static_cast<float>(i) * 0.1f);
  EXPECT_FALSE(vcard::read_marker(audio.data(), 64, &m));

  float good[4];
  vcard::write_marker(good, 1, 123456);
  EXPECT_TRUE(vcard::read_marker(good, 4, &m));
  EXPECT_FALSE(vcard::read_marker(good, 3, &m));      // too short
  EXPECT_FALSE(vcard::read_marker(nullptr, 64, &m));  // no buffer

  auto corrupt = [&](int index, float value) {
    float b[4];
    std::copy(good, good + 4, b);
    b[index] = value;
    return vcard::read_marker(b, 4, &m);
  };
  EXPECT_FALSE(corrupt(0, 0.5f));      // not an integer
  EXPECT_FALSE(corrupt(1, -1.0f));     // negative
  EXPECT_FALSE(corrupt(2, 65536.0f));  // more than 16 bits
  EXPECT_FALSE(corrupt(0, std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(corrupt(3, 12344.0f));  // wrong check value
}

// ---- ALSA configuration, names, plugin path -------------------------------------------------

VcardSpec sample_spec() {
  VcardSpec s;
  s.rate = 48000;
  s.frames = 256;
  s.playback_channels = 4;
  s.capture_channels = 5;
  s.clock_channel = 5;
  s.shm_name = "/xrunlab-vcard-xrunlab-7-0";
  s.plugin_path = "/opt/xrunlab/lib/libasound_module_pcm_xrunlab.so";
  return s;
}

TEST(VcardConfig, CompleteText) {
  EXPECT_EQ(alsa_config_text(sample_spec()),
            "# xrunlab virtual sound card: the complete private ALSA configuration of this run.\n"
            "# jackd reads only this file (ALSA_CONFIG_PATH); ~/.asoundrc and /etc are not read.\n"
            "pcm_type.xrunlab {\n"
            "  lib \"/opt/xrunlab/lib/libasound_module_pcm_xrunlab.so\"\n"
            "}\n"
            "pcm.xrunlab_vcard {\n"
            "  type xrunlab\n"
            "  rate 48000\n"
            "  period_frames 256\n"
            "  min_periods 2\n"
            "  max_periods 32\n"
            "  playback_channels 4\n"
            "  capture_channels 5\n"
            "  clock_channel 5\n"
            "  shared_timer 1\n"
            "  shm \"/xrunlab-vcard-xrunlab-7-0\"\n"
            "}\n");
}

TEST(VcardConfig, QuotesStringsAndOddNames) {
  VcardSpec s = sample_spec();
  s.plugin_path = "/tmp/a \"b\"\\c/libasound_module_pcm_xrunlab.so";
  s.pcm_name = "my.card";
  s.clock_channel = 0;
  const std::string t = alsa_config_text(s);
  EXPECT_NE(t.find("  lib \"/tmp/a \\\"b\\\"\\\\c/libasound_module_pcm_xrunlab.so\"\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("pcm.\"my.card\" {\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  clock_channel 0\n"), std::string::npos) << t;
}

TEST(VcardConfig, ShmNameOfAServer) {
  EXPECT_EQ(vcard_shm_name("xrunlab-123-0"), "/xrunlab-vcard-xrunlab-123-0");
}

// ---- the shm object --------------------------------------------------------------------------

std::string test_shm_name() {
  static int n = 0;
  return "/xrunlab-vcard-unittest-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
}

bool shm_exists(const std::string& name) {
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

TEST(VcardShmObject, CreatesInitialisesAndRemoves) {
  const std::string name = test_shm_name();
  {
    VcardShm shm = VcardShm::create(name, 48000, 256);
    ASSERT_NE(shm.shm(), nullptr);
    EXPECT_EQ(shm.shm()->magic, vcard::kShmMagic);
    EXPECT_EQ(shm.shm()->version, vcard::kShmVersion);
    EXPECT_EQ(shm.shm()->rate, 48000u);
    EXPECT_EQ(shm.shm()->frames, 256u);
    EXPECT_EQ(shm.shm()->stream[1].wakes_written.load(), 0u);
    EXPECT_EQ(shm.shm()->stream[1].wake[5].seq.load(), 0u);
    EXPECT_TRUE(shm_exists(name));

    // Exclusive: a second card of the same name is an error that names the object.
    try {
      VcardShm::create(name, 48000, 256);
      ADD_FAILURE() << "created twice";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kOutput);
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }

    VcardShm moved = std::move(shm);
    EXPECT_EQ(shm.shm(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_NE(moved.shm(), nullptr);
    EXPECT_TRUE(shm_exists(name));
  }
  EXPECT_FALSE(shm_exists(name));  // the destructor unlinked it
}

TEST(VcardShmObject, UnlinkKeepsTheMapping) {
  const std::string name = test_shm_name();
  VcardShm shm = VcardShm::create(name, 44100, 64);
  shm.unlink();
  EXPECT_FALSE(shm_exists(name));
  EXPECT_EQ(shm.shm()->rate, 44100u);
  shm.unlink();  // idempotent
}

// ---- the reader ------------------------------------------------------------------------------

constexpr int64_t kMs = 1000000;

// Writes one wake record as the card does (seqlock order) and counts it.
void put_wake(vcard::StreamRecord& r, uint64_t m, int64_t latency_ns) {
  vcard::WakeSlot& s = r.wake[m % vcard::kWakeSlots];
  s.seq.store(0);
  s.ideal_ns = static_cast<int64_t>(m) * 5 * kMs;
  s.wake_ns = s.ideal_ns + latency_ns;
  s.seq.store(m + 1);
  r.wakes_written.fetch_add(1);
}

void put_xrun(vcard::StreamRecord& r, uint64_t boundary) {
  const uint64_t n = r.xruns.load();
  vcard::XrunEvent& e = r.xrun[n % vcard::kXrunSlots];
  e.boundary = boundary;
  e.ideal_ns = static_cast<int64_t>(boundary) * 5 * kMs;
  e.detected_ns = e.ideal_ns + 7 * kMs;
  e.avail_frames = 512;
  r.xruns.store(n + 1);
}

TEST(VcardReaderTest, NothingBeforeAStreamIsOpened) {
  auto shm = std::make_unique<vcard::Shm>();
  VcardReader reader(shm.get());
  reader.poll();
  EXPECT_EQ(reader.stream(), -1);
  EXPECT_EQ(reader.wakes(), 0u);
  EXPECT_EQ(reader.missed(), 0u);
}

TEST(VcardReaderTest, ConsecutiveGapOverwrittenAndTornSlots) {
  auto shm = std::make_unique<vcard::Shm>();
  vcard::StreamRecord& cap = shm->stream[VcardReader::kCapture];
  vcard::StreamRecord& play = shm->stream[VcardReader::kPlayback];
  play.open = 1;
  cap.open = 1;
  VcardReader reader(shm.get());

  // Consecutive: boundaries 1000..1009, latencies 0.5, 1.5, ... 9.5 µs.
  for (uint64_t m = 1000; m < 1010; ++m)
    put_wake(cap, m, static_cast<int64_t>(m - 1000) * 1000 + 500);
  for (uint64_t m = 1000; m < 1010; ++m) put_wake(play, m, 999 * 1000);  // not read: capture wins
  reader.poll();
  EXPECT_EQ(reader.stream(), VcardReader::kCapture);
  EXPECT_EQ(reader.wakes(), 10u);
  EXPECT_EQ(reader.missed(), 0u);
  EXPECT_EQ(reader.wake_latency_us().count(), 10u);
  EXPECT_EQ(reader.wake_latency_us().min(), 0);
  EXPECT_EQ(reader.wake_latency_us().max(), 9);

  reader.poll();  // nothing new
  EXPECT_EQ(reader.wakes(), 10u);

  // A gap (boundaries 1010..1019 never recorded, e.g. a restart): not missed.
  for (uint64_t m = 1020; m < 1025; ++m) put_wake(cap, m, 20 * 1000);
  reader.poll();
  EXPECT_EQ(reader.wakes(), 15u);
  EXPECT_EQ(reader.missed(), 0u);

  // An overwritten slot: 1026 is replaced by 1026 + kWakeSlots before the reader saw it.
  put_wake(cap, 1025, 30 * 1000);
  put_wake(cap, 1026, 30 * 1000);
  put_wake(cap, 1027, 30 * 1000);
  put_wake(cap, 1026 + vcard::kWakeSlots, 40 * 1000);
  reader.poll();
  EXPECT_EQ(reader.wakes(), 18u);  // 1025, 1027, 1026 + kWakeSlots
  EXPECT_EQ(reader.missed(), 1u);  // 1026
  EXPECT_EQ(reader.wake_latency_us().max(), 40);

  // A torn slot: the card has started overwriting a record the reader has not read yet (seq 0
  // while the fields change); that record is lost, the one being written is not counted yet.
  const uint64_t x = 1030 + vcard::kWakeSlots;
  put_wake(cap, x, 50 * 1000);
  cap.wake[x % vcard::kWakeSlots].seq.store(0);
  reader.poll();
  EXPECT_EQ(reader.wakes(), 18u);
  EXPECT_EQ(reader.missed(), 2u);
  // ... and once the card has finished writing it, the new record is read.
  vcard::WakeSlot& s = cap.wake[x % vcard::kWakeSlots];
  s.ideal_ns = static_cast<int64_t>(x + vcard::kWakeSlots) * 5 * kMs;
  s.wake_ns = s.ideal_ns + 60 * 1000;
  s.seq.store(x + vcard::kWakeSlots + 1);
  cap.wakes_written.fetch_add(1);
  reader.poll();
  EXPECT_EQ(reader.wakes(), 19u);
  EXPECT_EQ(reader.missed(), 2u);
  EXPECT_EQ(reader.wake_latency_us().max(), 60);

  // A garbage slot (its seq does not belong to its index) and an older lap are ignored.
  cap.wake[7].seq.store(8 + 1);
  reader.poll();
  EXPECT_EQ(reader.wakes(), 19u);
  EXPECT_EQ(reader.missed(), 2u);
  EXPECT_EQ(reader.wakes() + reader.missed(), cap.wakes_written.load());
}

TEST(VcardReaderTest, PlaybackWhenCaptureIsNotOpenAndXrunsOfBothStreams) {
  auto shm = std::make_unique<vcard::Shm>();
  vcard::StreamRecord& cap = shm->stream[VcardReader::kCapture];
  vcard::StreamRecord& play = shm->stream[VcardReader::kPlayback];
  play.open = 1;
  VcardReader reader(shm.get());
  for (uint64_t m = 50; m < 60; ++m) put_wake(play, m, 2 * 1000);
  put_xrun(play, 55);
  put_xrun(cap, 56);
  put_xrun(cap, 90);
  reader.poll();
  EXPECT_EQ(reader.stream(), VcardReader::kPlayback);
  EXPECT_EQ(reader.wakes(), 10u);
  ASSERT_EQ(reader.xrun_events(VcardReader::kPlayback).size(), 1u);
  EXPECT_EQ(reader.xrun_events(VcardReader::kPlayback)[0].boundary, 55u);
  ASSERT_EQ(reader.xrun_events(VcardReader::kCapture).size(), 2u);
  EXPECT_EQ(reader.xrun_events(VcardReader::kCapture)[1].boundary, 90u);
  reader.poll();  // events are read once
  EXPECT_EQ(reader.xrun_events(VcardReader::kCapture).size(), 2u);

  const VcardCardRecord c = reader.record();
  EXPECT_EQ(c.wake_stream, "playback");
  EXPECT_EQ(c.wakes, 10u);
  EXPECT_EQ(c.missed, 0u);
  EXPECT_EQ(c.wake_latency_us.count, 10u);
  ASSERT_TRUE(c.wake_latency_us.p50 && c.wake_latency_us.p99);
  EXPECT_EQ(c.wake_latency_us.p50->value_us, 2);
  EXPECT_EQ(c.wake_latency_us.p99->value_us, 2);
  EXPECT_EQ(c.wake_latency_us.max_us, 2);
  EXPECT_TRUE(c.playback.open);
  EXPECT_FALSE(c.capture.open);
  EXPECT_EQ(c.capture.xruns, 2u);
  ASSERT_EQ(c.capture.xrun_events.size(), 2u);
  EXPECT_EQ(c.capture.xrun_events[0].boundary, 56u);
  EXPECT_EQ(c.capture.xrun_events[0].detection_delay_us, 7000);
  EXPECT_EQ(c.playback.xruns, 1u);
}

TEST(VcardReaderTest, MoreXrunsThanSlotsKeepsTheNewest) {
  auto shm = std::make_unique<vcard::Shm>();
  vcard::StreamRecord& cap = shm->stream[VcardReader::kCapture];
  for (uint64_t i = 0; i < vcard::kXrunSlots + 10; ++i) put_xrun(cap, 100 + i);
  VcardReader reader(shm.get());
  reader.poll();
  EXPECT_EQ(reader.xrun_events(VcardReader::kCapture).size(), vcard::kXrunSlots);
  EXPECT_EQ(reader.xruns_missed(VcardReader::kCapture), 10u);
  EXPECT_EQ(reader.xrun_events(VcardReader::kCapture).front().boundary, 110u);
}

}  // namespace
}  // namespace xrunlab

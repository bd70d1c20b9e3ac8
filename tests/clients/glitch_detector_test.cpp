// SPDX-License-Identifier: GPL-2.0-or-later
// The test signal (clients/rt/test_signal.hpp) and the glitch detector
// (clients/drain/glitch_detector.hpp): synthetic streams with faults at known positions, each found
// exactly.
#include "clients/drain/glitch_detector.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "clients/rt/test_signal.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000;
using Kind = Glitch::Kind;

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float dev(float received, float expected) {
  return std::fabs(received - expected);
}

// The largest |0 - signal| over signal frames [first, first + n).
float peak(const TestSignal& s, uint64_t first, uint64_t n) {
  float m = 0;
  for (uint64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(s.at(first + i)));
  return m;
}

// A received stream built from segments.
class Stream {
 public:
  explicit Stream(const TestSignal& s) : s_(s) {}
  Stream& signal(uint64_t first, size_t n) {
    const size_t old = data_.size();
    data_.resize(old + n);
    s_.fill_rt(data_.data() + old, first, static_cast<uint32_t>(n));
    return *this;
  }
  Stream& zeros(size_t n) {
    data_.resize(data_.size() + n, 0.0f);
    return *this;
  }
  Stream& noise(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      seed_ = seed_ * 6364136223846793005ULL + 1442695040888963407ULL;
      data_.push_back(static_cast<float>(seed_ >> 40) / static_cast<float>(1 << 24) - 0.5f);
    }
    return *this;
  }
  float& operator[](size_t i) { return data_[i]; }
  const std::vector<float>& data() const { return data_; }
  size_t size() const { return data_.size(); }

 private:
  const TestSignal& s_;
  std::vector<float> data_;
  uint64_t seed_ = 12345;
};

struct Result {
  std::vector<Glitch> glitches;
  float delta_max = 0;
  uint64_t frames = 0;
  uint64_t unlocked = 0;
  bool locked = false;
};

// Feeds `data` in chunks of `chunk` samples (0: all at once), then finish().
Result detect(const std::vector<float>& data, size_t chunk = 0, uint32_t rate = kRate) {
  GlitchDetector d(rate);
  if (chunk == 0) chunk = data.size();
  for (size_t i = 0; i < data.size(); i += chunk) {
    d.feed(data.data() + i, std::min(chunk, data.size() - i));
  }
  d.finish();
  return {d.glitches(), d.delta_max(), d.frames(), d.unlocked_frames(), d.locked()};
}

Glitch make(Kind kind, uint64_t at, int64_t jump, uint64_t length, float max_deviation) {
  Glitch g;
  g.kind = kind;
  g.at = at;
  g.jump = jump;
  g.length = length;
  g.max_deviation = max_deviation;
  return g;
}

// --- TestSignal ----------------------------------------------------------------------------

TEST(TestSignal, StepIsCoprimeAndNearRateOver48) {
  for (uint32_t rate : {44100u, 48000u, 96000u}) {
    const TestSignal s(rate);
    EXPECT_EQ(s.rate(), rate);
    EXPECT_EQ(std::gcd(s.step(), rate), 1u) << rate;
    EXPECT_GE(s.step(), rate / 48) << rate;
    EXPECT_LT(s.step(), rate / 48 + 10) << rate;
  }
  EXPECT_EQ(TestSignal(44100).step(), 919u);
  EXPECT_EQ(TestSignal(48000).step(), 1001u);
  EXPECT_EQ(TestSignal(96000).step(), 2003u);
}

TEST(TestSignal, RejectsRatesBelowTheMinimum) {
  EXPECT_THROW(TestSignal(999), std::invalid_argument);
  EXPECT_NO_THROW(TestSignal(1000));
}

TEST(TestSignal, IsAHalfScaleSineWithASingleZeroPerPeriod) {
  const TestSignal s(kRate);
  float lo = 0, hi = 0;
  for (uint32_t k = 0; k < kRate; ++k) {
    lo = std::min(lo, s.table(k));
    hi = std::max(hi, s.table(k));
    if (k != 0) {
      EXPECT_NE(s.table(k), 0.0f) << k;
    }
  }
  EXPECT_EQ(s.table(0), 0.0f);
  EXPECT_EQ(hi, 0.5f);
  EXPECT_EQ(lo, -0.5f);
  // Frame n is table[(n * F) % R]: a sine of F Hz.
  for (uint64_t n : {0ull, 1ull, 7ull, 47999ull, 123456789ull}) {
    EXPECT_EQ(bits(s.at(n)), bits(s.table(static_cast<uint32_t>(n * s.step() % kRate)))) << n;
    EXPECT_NEAR(s.at(n),
                0.5 * std::sin(2 * M_PI * static_cast<double>(n * s.step() % kRate) / kRate), 1e-7)
        << n;
  }
}

TEST(TestSignal, RepeatsEveryRateFrames) {
  for (uint32_t rate : {44100u, 48000u, 96000u}) {
    const TestSignal s(rate);
    for (uint64_t n = 0; n < 3 * rate; n += 997) {
      EXPECT_EQ(bits(s.at(n)), bits(s.at(n + rate))) << rate << " " << n;
      EXPECT_EQ(bits(s.at(n)), bits(s.at(n + 1000000ull * rate))) << rate << " " << n;
    }
  }
}

TEST(TestSignal, FillEqualsAt) {
  const TestSignal s(kRate);
  for (uint64_t first : {0ull, 47990ull, 95999ull, 1000000000007ull}) {
    std::vector<float> out(300, -1.0f);
    s.fill_rt(out.data(), first, 299);
    for (uint32_t i = 0; i < 299; ++i) {
      ASSERT_EQ(bits(out[i]), bits(s.at(first + i))) << first << " + " << i;
    }
    EXPECT_EQ(out[299], -1.0f);  // nframes, not one more
  }
}

// --- GlitchDetector: the lookup --------------------------------------------------------------

TEST(GlitchDetector, LocatesEveryPositionFromEightSamples) {
  for (uint32_t rate : {44100u, 48000u, 96000u}) {
    const GlitchDetector d(rate);
    std::vector<float> x(rate + GlitchDetector::kMatch);
    TestSignal(rate).fill_rt(x.data(), 0, static_cast<uint32_t>(x.size()));
    for (uint64_t n = 0; n < rate; ++n) {
      const auto found = d.locate(x.data() + n);
      ASSERT_TRUE(found.has_value()) << rate << " " << n;
      ASSERT_EQ(*found, n) << rate;
    }
    std::vector<float> wrong(x.begin(), x.begin() + GlitchDetector::kMatch);
    wrong[7] += 0.25f;
    EXPECT_FALSE(d.locate(wrong.data()).has_value());
  }
}

// --- GlitchDetector: faults --------------------------------------------------------------------

TEST(GlitchDetector, CleanSignalHasNoGlitch) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 3 * kRate + 17).data());
  EXPECT_TRUE(r.glitches.empty());
  EXPECT_EQ(r.delta_max, 0.0f);
  EXPECT_EQ(r.frames, 3 * kRate + 17);
  EXPECT_EQ(r.unlocked, 0u);
  EXPECT_TRUE(r.locked);
}

TEST(GlitchDetector, DroppedBlock) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 10000).signal(10256, 20000).data());
  const float d = dev(s.at(10256), s.at(10000));
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kDropped, 10000, 256, 0, d));
  EXPECT_EQ(r.delta_max, d);
  EXPECT_GT(d, 0.0f);
  EXPECT_EQ(r.frames, 30000u);
}

// The signal repeats every R frames, so a drop of exactly R (or any multiple) leaves a stream
// identical to a clean one: invisible by construction, as with any periodic signal. With R the
// sample rate, only whole-second drops hide.
TEST(GlitchDetector, DropOfExactlyRateFramesIsInvisible) {
  const TestSignal s(kRate);
  const std::vector<float> x = Stream(s).signal(0, 10000).signal(10000 + kRate, 20000).data();
  EXPECT_EQ(x, Stream(s).signal(0, 30000).data());
  const Result r = detect(x);
  EXPECT_TRUE(r.glitches.empty());
  EXPECT_EQ(r.delta_max, 0.0f);
  // One frame more is seen, as a drop of 1.
  const Result one = detect(Stream(s).signal(0, 10000).signal(10001 + kRate, 20000).data());
  ASSERT_EQ(one.glitches.size(), 1u);
  EXPECT_EQ(one.glitches[0], make(Kind::kDropped, 10000, 1, 0, dev(s.at(10001), s.at(10000))));
}

// Positions are known modulo R only: a jump is reported as the one nearest to zero, in
// [-R/2, R/2). A drop of 30000 frames at 48000 Hz reads as a replay of 18000.
TEST(GlitchDetector, JumpsAreReportedModuloRate) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 40000).signal(70000, 20000).data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kRepeated, 40000, -18000, 0, dev(s.at(70000), s.at(40000))));
}

TEST(GlitchDetector, JumpOfHalfTheRateIsAReplay) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 30000).signal(30000 + kRate / 2, 20000).data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kRepeated, 30000, -static_cast<int64_t>(kRate / 2), 0,
                                dev(s.at(30000 + kRate / 2), s.at(30000))));
}

TEST(GlitchDetector, RepeatedBlock) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 10000).signal(10000 - 256, 20000).data());
  const float d = dev(s.at(10000 - 256), s.at(10000));
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kRepeated, 10000, -256, 0, d));
  EXPECT_EQ(r.delta_max, d);
}

TEST(GlitchDetector, SingleCorruptedSample) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 20000);
  x[12345] += 0.25f;
  const Result r = detect(x.data());
  const float d = dev(s.at(12345) + 0.25f, s.at(12345));
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kCorrupted, 12345, 0, 1, d));
  EXPECT_EQ(r.delta_max, d);
  EXPECT_NEAR(d, 0.25f, 1e-7);
}

TEST(GlitchDetector, RunOfThreeCorruptedSamples) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 20000);
  x[5000] += 0.125f;
  x[5001] -= 0.375f;
  x[5002] += 0.25f;
  const Result r = detect(x.data());
  const float d = dev(s.at(5001) - 0.375f, s.at(5001));
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kCorrupted, 5000, 0, 3, d));
  EXPECT_EQ(r.delta_max, d);
}

TEST(GlitchDetector, ZeroedSampleIsCorruptionNotSilence) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 20000);
  x[7000] = 0.0f;
  const Result r = detect(x.data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kCorrupted, 7000, 0, 1, std::fabs(s.at(7000))));
}

// 512 zeros where the signal should have been; it continues where it would have been.
TEST(GlitchDetector, SilenceReplacingTheSignal) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 30000);
  for (size_t i = 10000; i < 10512; ++i) x[i] = 0.0f;
  const Result r = detect(x.data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kSilence, 10000, 0, 512, peak(s, 10000, 512)));
  EXPECT_EQ(r.delta_max, peak(s, 10000, 512));
}

// 512 zeros inserted; the signal resumes where it stopped: 512 frames behind. The first sample
// after the silence is a jump too and counts against the position expected there.
TEST(GlitchDetector, SilenceInsertedIntoTheSignal) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 10000).zeros(512).signal(10000, 20000).data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kSilence, 10000, -512, 512,
                                std::max(peak(s, 10000, 512), dev(s.at(10000), s.at(10512)))));
}

TEST(GlitchDetector, SilenceBeforeTheSignalIsUnlockedNotAGlitch) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).zeros(3000).signal(0, 20000).data());
  EXPECT_TRUE(r.glitches.empty());
  EXPECT_EQ(r.unlocked, 3000u);
  EXPECT_EQ(r.frames, 23000u);
  EXPECT_EQ(r.delta_max, 0.0f);
  EXPECT_TRUE(r.locked);
  // The signal may start anywhere in its period; the smallest position is taken.
  const Result late = detect(Stream(s).noise(100).signal(31234, 20000).data());
  EXPECT_TRUE(late.glitches.empty());
  EXPECT_EQ(late.unlocked, 100u);
}

// A drop that lands on the signal's only exact zero: the zero followed by the signal is a new
// position (kDropped), not silence.
TEST(GlitchDetector, DropOntoTheZeroCrossingIsADrop) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 40000).signal(kRate, 10000).data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kDropped, 40000, 8000, 0, std::fabs(s.at(40000))));
}

TEST(GlitchDetector, TwoGlitchesCloseTogether) {
  const TestSignal s(kRate);
  {  // A corrupted sample, then a drop 8 samples later.
    Stream x(s);
    x.signal(0, 1008).signal(1008 + 256, 5000);
    x[1000] += 0.25f;
    const Result r = detect(x.data());
    ASSERT_EQ(r.glitches.size(), 2u);
    EXPECT_EQ(r.glitches[0], make(Kind::kCorrupted, 1000, 0, 1, dev(x[1000], s.at(1000))));
    EXPECT_EQ(r.glitches[1], make(Kind::kDropped, 1008, 256, 0, dev(s.at(1264), s.at(1008))));
  }
  {  // Two corrupted samples with one good sample between them.
    Stream x(s);
    x.signal(0, 5000);
    x[2000] += 0.25f;
    x[2002] -= 0.125f;
    const Result r = detect(x.data());
    ASSERT_EQ(r.glitches.size(), 2u);
    EXPECT_EQ(r.glitches[0], make(Kind::kCorrupted, 2000, 0, 1, dev(x[2000], s.at(2000))));
    EXPECT_EQ(r.glitches[1], make(Kind::kCorrupted, 2002, 0, 1, dev(x[2002], s.at(2002))));
  }
  {  // Two drops 9 samples apart.
    const Result r = detect(Stream(s).signal(0, 3000).signal(3100, 9).signal(3300, 5000).data());
    ASSERT_EQ(r.glitches.size(), 2u);
    EXPECT_EQ(r.glitches[0], make(Kind::kDropped, 3000, 100, 0, dev(s.at(3100), s.at(3000))));
    EXPECT_EQ(r.glitches[1], make(Kind::kDropped, 3009, 191, 0, dev(s.at(3300), s.at(3109))));
  }
}

// A fault fewer than kMatch samples after a jump cannot be told apart from it (the jump is only
// confirmed by kMatch clean samples): one glitch covers both.
TEST(GlitchDetector, FaultRightAfterAJumpMergesIntoIt) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 1000).signal(1256, 5000);
  x[1005] += 0.25f;
  const Result r = detect(x.data());
  float d = 0;
  for (uint64_t i = 0; i <= 6; ++i) d = std::max(d, dev(x[1000 + i], s.at(1000 + i)));
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kDropped, 1000, 256, 6, d));
}

TEST(GlitchDetector, GlitchAtAChunkBoundary) {
  const TestSignal s(kRate);
  const std::vector<float> x = Stream(s).signal(0, 4096).signal(4096 + 256, 4096).data();
  const Glitch want = make(Kind::kDropped, 4096, 256, 0, dev(s.at(4352), s.at(4096)));
  for (size_t split = 4096 - 9; split <= 4096 + 9; ++split) {
    GlitchDetector d(kRate);
    d.feed(x.data(), split);
    d.feed(x.data() + split, x.size() - split);
    d.finish();
    ASSERT_EQ(d.glitches().size(), 1u) << split;
    EXPECT_EQ(d.glitches()[0], want) << split;
  }
  // The default chunks of a JACK period.
  const Result r = detect(x, 256);
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], want);
}

TEST(GlitchDetector, ResultsDoNotDependOnChunkSizes) {
  const TestSignal s(kRate);
  Stream x(s);
  x.noise(300).zeros(200);                // unlocked: 500
  x.signal(0, 5000);                      // 500..5499
  x.signal(5256, 3000);                   // drop 256 at 5500
  x.signal(8256 - 100, 2000);             // repeat 100 at 8500
  x.zeros(700);                           // inserted silence at 10500
  x.signal(10156, 50);                    // 11200..11249
  x.signal(10306, 4000);                  // drop 100 at 11250
  x[12000] += 0.25f;                      // corrupted
  x[12003] = 0.0f;                        // corrupted (single zero)
  x.signal(kRate + 14306, 100);           // invisible whole-second drop at 15250
  x.noise(kRate + 50).signal(14456, 20);  // lost for more than R at 15350
  x.signal(15150, 5);                     // drop 24 in the last 5 samples: lost at the end
  const std::vector<float>& data = x.data();

  const Result all = detect(data);
  ASSERT_EQ(all.glitches.size(), 8u);
  EXPECT_EQ(all.unlocked, 500u);
  EXPECT_EQ(all.frames, data.size());
  EXPECT_EQ(all.glitches[0].at, 5500u);
  EXPECT_EQ(all.glitches[1].at, 8500u);
  EXPECT_EQ(all.glitches[2], make(Kind::kSilence, 10500, -700, 700,
                                  std::max(peak(s, 10156, 700), dev(s.at(10156), s.at(10856)))));
  EXPECT_EQ(all.glitches[3].at, 11250u);
  EXPECT_EQ(all.glitches[4].at, 12000u);
  EXPECT_EQ(all.glitches[5].at, 12003u);
  EXPECT_EQ(all.glitches[6].kind, Kind::kLost);
  EXPECT_EQ(all.glitches[6].at, 15350u);
  EXPECT_EQ(all.glitches[6].length, kRate + 50);
  EXPECT_EQ(all.glitches[6].jump, 0);
  EXPECT_EQ(all.glitches[7].kind, Kind::kLost);  // the jump cannot be confirmed from 5 samples
  EXPECT_EQ(all.glitches[7].at, data.size() - 5);
  EXPECT_EQ(all.glitches[7].length, 5u);
  EXPECT_FALSE(all.locked);
  for (size_t chunk : {1, 7, 256, 4095, 4096, 4097, 10000}) {
    const Result r = detect(data, chunk);
    EXPECT_EQ(r.glitches, all.glitches) << chunk;
    EXPECT_EQ(bits(r.delta_max), bits(all.delta_max)) << chunk;
    EXPECT_EQ(r.unlocked, all.unlocked) << chunk;
    EXPECT_EQ(r.frames, all.frames) << chunk;
    EXPECT_EQ(r.locked, all.locked) << chunk;
  }
}

TEST(GlitchDetector, SignalNeverArrives) {
  const TestSignal s(kRate);
  for (const auto& x : {Stream(s).zeros(100000).data(), Stream(s).noise(100000).data(),
                        Stream(s).signal(0, 7).data()}) {
    const Result r = detect(x, 256);
    EXPECT_TRUE(r.glitches.empty());
    EXPECT_EQ(r.unlocked, x.size());
    EXPECT_EQ(r.frames, x.size());
    EXPECT_EQ(r.delta_max, 0.0f);
    EXPECT_FALSE(r.locked);
  }
}

TEST(GlitchDetector, SignalLostAtTheEnd) {
  const TestSignal s(kRate);
  const Result r = detect(Stream(s).signal(0, 10000).zeros(3000).data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kLost, 10000, 0, 3000, peak(s, 10000, 3000)));
  EXPECT_EQ(r.delta_max, peak(s, 10000, 3000));
  EXPECT_FALSE(r.locked);
}

TEST(GlitchDetector, SignalMissingForMoreThanRateFrames) {
  const TestSignal s(kRate);
  const std::vector<float> x =
      Stream(s).signal(0, 10000).zeros(kRate + 100).signal(10000 + kRate + 100, 5000).data();
  GlitchDetector d(kRate);
  d.feed(x.data(), 10000 + kRate);
  EXPECT_TRUE(d.locked());  // missing for exactly R frames so far
  EXPECT_TRUE(d.glitches().empty());
  d.feed(x.data() + 10000 + kRate, 1);
  EXPECT_FALSE(d.locked());
  d.feed(x.data() + 10000 + kRate + 1, x.size() - 10000 - kRate - 1);
  d.finish();
  EXPECT_TRUE(d.locked());
  ASSERT_EQ(d.glitches().size(), 1u);
  EXPECT_EQ(d.glitches()[0], make(Kind::kLost, 10000, 0, kRate + 100, 0.5f));
}

// Fewer than kMatch samples after a fault at the end: a return to the expected position is
// accepted, a jump cannot be confirmed.
TEST(GlitchDetector, FaultInTheLastSamples) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 10000);
  x[9997] += 0.25f;
  Result r = detect(x.data(), 1);
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0], make(Kind::kCorrupted, 9997, 0, 1, dev(x[9997], s.at(9997))));
  EXPECT_TRUE(r.locked);

  x[9999] = 0.25f;  // the very last sample
  r = detect(x.data());
  ASSERT_EQ(r.glitches.size(), 2u);
  EXPECT_EQ(r.glitches[1], make(Kind::kLost, 9999, 0, 1, dev(0.25f, s.at(9999))));
}

// The signal's zero (frame R) among the last samples: a single zero is not evidence enough in the
// middle of a stream, but the whole tail continuing the signal is.
TEST(GlitchDetector, FaultJustBeforeTheZeroCrossingInTheLastSamples) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, kRate + 4);
  x[kRate - 1] += 0.25f;
  const Result r = detect(x.data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0],
            make(Kind::kCorrupted, kRate - 1, 0, 1, dev(x[kRate - 1], s.at(kRate - 1))));
  EXPECT_TRUE(r.locked);
}

TEST(GlitchDetector, NanCountsAsInfiniteDeviation) {
  const TestSignal s(kRate);
  Stream x(s);
  x.signal(0, 10000);
  x[5000] = std::numeric_limits<float>::quiet_NaN();
  const Result r = detect(x.data());
  ASSERT_EQ(r.glitches.size(), 1u);
  EXPECT_EQ(r.glitches[0],
            make(Kind::kCorrupted, 5000, 0, 1, std::numeric_limits<float>::infinity()));
}

TEST(GlitchDetector, FinishIsIdempotentAndEndsTheStream) {
  const TestSignal s(kRate);
  const std::vector<float> x = Stream(s).signal(0, 100).zeros(10).data();
  GlitchDetector d(kRate);
  d.feed(x.data(), x.size());
  EXPECT_TRUE(d.glitches().empty());  // still pending: the signal may come back
  d.finish();
  d.finish();
  ASSERT_EQ(d.glitches().size(), 1u);
  EXPECT_EQ(d.glitches()[0].kind, Kind::kLost);
  EXPECT_THROW(d.feed(x.data(), 1), std::logic_error);
}

TEST(GlitchDetector, KindNames) {
  EXPECT_STREQ(to_string(Kind::kDropped), "dropped");
  EXPECT_STREQ(to_string(Kind::kRepeated), "repeated");
  EXPECT_STREQ(to_string(Kind::kCorrupted), "corrupted");
  EXPECT_STREQ(to_string(Kind::kSilence), "silence");
  EXPECT_STREQ(to_string(Kind::kLost), "lost");
}

}  // namespace
}  // namespace xrunlab

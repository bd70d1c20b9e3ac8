// SPDX-License-Identifier: GPL-2.0-or-later
// The check against the user's file (clients/drain/reference_signal.hpp with the glitch detector
// and the tail's audio check): fixture loops built in memory, faults at known blocks, and the
// judged / not judged block counts exact by construction (the rule computed naively beside).
#include "clients/drain/reference_signal.hpp"

#include <gtest/gtest.h>
#include <sndfile.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "clients/drain/audio_check.hpp"
#include "clients/drain/glitch_detector.hpp"
#include "clients/rt/looped_samples.hpp"
#include "clients/rt/test_signal.hpp"
#include "tests/support/audio_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using Kind = Glitch::Kind;

constexpr uint32_t kRate = 48000;
constexpr uint32_t kBlock = 256;

std::vector<float> concat(std::vector<std::vector<float>> parts) {
  std::vector<float> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// What the tail receives when received frame r carries file position position(r) (mod the
// file's length): as the head's LoopedSamples plays it.
template <typename F>
std::vector<float> received(const std::vector<float>& file, size_t n, F position) {
  const LoopedSamples loop(file);
  std::vector<float> x(n);
  for (size_t r = 0; r < n; ++r) loop.fill_rt(&x[r], position(r), 1);
  return x;
}

std::shared_ptr<FileReference> reference(const std::vector<float>& file) {
  auto ref = std::make_shared<FileReference>(file);
  ref->prepare_blocks(kBlock);
  return ref;
}

// Fed in blocks, as the tail's cycles come.
GlitchDetector detect(std::shared_ptr<const ReferenceSignal> ref, const std::vector<float>& x) {
  GlitchDetector d(std::move(ref), kRate);
  for (size_t off = 0; off < x.size(); off += kBlock) {
    d.feed(x.data() + off, std::min<size_t>(kBlock, x.size() - off));
  }
  d.finish();
  return d;
}

// The rule, naively: the block at q differs from the block before and from the block after.
bool naive_can_show_jump(const std::vector<float>& f, uint64_t q) {
  const uint64_t n = f.size();
  bool before = false, after = false;
  for (uint64_t i = 0; i < kBlock; ++i) {
    before = before || f[(q + i) % n] != f[(q + i + n - kBlock % n) % n];
    after = after || f[(q + i) % n] != f[(q + i + kBlock) % n];
  }
  return before && after;
}

TEST(LoopedSamples, PlaysTheFileFromItsFirstFrameAndLoopsAcrossItsEnd) {
  const LoopedSamples loop({1, 2, 3, 4, 5});
  std::vector<float> out(12);
  loop.fill_rt(out.data(), 3, 12);
  EXPECT_EQ(out, (std::vector<float>{4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5}));
  EXPECT_THROW(LoopedSamples({}), std::invalid_argument);
}

TEST(FileReference, PlacesEveryWindowOfANoiseFileAndTheNearestAfterAGlitch) {
  const std::vector<float> file = noise(kRate);
  const FileReference ref(file);
  EXPECT_EQ(ref.unique_windows(), kRate);
  for (uint64_t n = 0; n < kRate; n += 997) {
    const std::vector<float> w = received(file, kMatchFrames, [&](size_t r) { return n + r; });
    ASSERT_EQ(ref.find(w.data(), std::nullopt), std::optional<uint64_t>(n));
    // Near a later loop: the same place one loop on; across the loop's end too.
    EXPECT_EQ(ref.find(w.data(), 3 * kRate + n + 100), std::optional<uint64_t>(3 * kRate + n));
  }
  const std::vector<float> w = received(file, kMatchFrames, [&](size_t r) { return 5 + r; });
  EXPECT_EQ(ref.find(w.data(), kRate - 10), std::optional<uint64_t>(kRate + 5));
  std::vector<float> wrong = w;
  wrong[3] = 0.75f;  // no noise sample is 0.75
  EXPECT_FALSE(ref.find(wrong.data(), std::nullopt).has_value());
  EXPECT_FALSE(ref.find(wrong.data(), 100).has_value());
}

TEST(FileCheck, ADroppedBlockIsOneDropOfExactlyOneBlockAndEveryBlockIsJudged) {
  const std::vector<float> file = noise(kRate);
  constexpr uint64_t kStart = 1000, kBlocks = 40, kAt = 20 * kBlock;
  const std::vector<float> x = received(
      file, kBlocks * kBlock, [&](size_t r) { return kStart + r + (r >= kAt ? kBlock : 0); });
  const GlitchDetector d = detect(reference(file), x);
  ASSERT_EQ(d.glitches().size(), 1u);
  const Glitch& g = d.glitches()[0];
  EXPECT_EQ(g.kind, Kind::kDropped);
  EXPECT_EQ(g.at, kAt);
  EXPECT_EQ(g.jump, static_cast<int64_t>(kBlock));
  EXPECT_EQ(g.length, 0u);
  EXPECT_EQ(d.unlocked_frames(), 0u);
  EXPECT_EQ(d.judged_blocks(), kBlocks);
  EXPECT_EQ(d.unjudged_blocks(), 0u);
}

TEST(FileCheck, ARepeatedBlockIsOneRepeatOfExactlyOneBlock) {
  const std::vector<float> file = noise(kRate);
  constexpr uint64_t kStart = 1000, kBlocks = 40, kAt = 20 * kBlock;
  const std::vector<float> x = received(
      file, kBlocks * kBlock, [&](size_t r) { return kStart + r - (r >= kAt ? kBlock : 0); });
  const GlitchDetector d = detect(reference(file), x);
  ASSERT_EQ(d.glitches().size(), 1u);
  EXPECT_EQ(d.glitches()[0].kind, Kind::kRepeated);
  EXPECT_EQ(d.glitches()[0].at, kAt);
  EXPECT_EQ(d.glitches()[0].jump, -static_cast<int64_t>(kBlock));
  EXPECT_EQ(d.judged_blocks(), kBlocks);
}

TEST(FileCheck, TheLoopContinuesAcrossTheFilesEndWithoutAGlitch) {
  const std::vector<float> file = noise(kRate + 123);
  const std::vector<float> x =
      received(file, 30 * kBlock, [&](size_t r) { return file.size() - 3000 + r; });
  const GlitchDetector d = detect(reference(file), x);
  EXPECT_TRUE(d.glitches().empty());
  EXPECT_EQ(d.judged_blocks(), 30u);
}

// Noise, half a second of digital silence, noise: the blocks inside the silence equal their
// neighbours and cannot be judged; the counts are the naive rule's, block by block.
TEST(FileCheck, BlocksOfSilenceAreCountedAsNotJudgedExactly) {
  const std::vector<float> file =
      concat({noise(kRate, 1), std::vector<float>(kRate / 2, 0.0f), noise(kRate, 2)});
  const uint64_t blocks = file.size() / kBlock;  // 468 whole blocks from position 0
  const std::vector<float> x = received(file, blocks * kBlock, [](size_t r) { return r; });
  const auto ref = reference(file);
  EXPECT_EQ(file_check_impossible(*ref, kRate), "");
  uint64_t judged = 0;
  for (uint64_t k = 0; k < blocks; ++k) judged += naive_can_show_jump(file, k * kBlock) ? 1 : 0;
  ASSERT_GT(blocks - judged, 80u);  // about 93 blocks lie in the silence
  const GlitchDetector d = detect(ref, x);
  EXPECT_TRUE(d.glitches().empty());
  EXPECT_EQ(d.judged_blocks(), judged);
  EXPECT_EQ(d.unjudged_blocks(), blocks - judged);
  for (uint64_t q = 0; q < file.size(); q += 37) {
    ASSERT_EQ(ref->can_show_jump(q), naive_can_show_jump(file, q)) << q;
  }
}

TEST(FileCheck, FilesTheCheckCannotWorkOnSayWhy) {
  EXPECT_EQ(file_check_impossible(*reference(std::vector<float>(2 * kRate, 0.0f)), kRate),
            "the file is digital silence");
  EXPECT_EQ(file_check_impossible(*reference(noise(kRate / 2)), kRate),
            "the file is 0.500 s long (24000 frames); the check needs at least 1 s, as a jump "
            "is only known modulo the file's length");
  const std::vector<float> twice = concat({noise(kRate), noise(kRate)});
  const auto ref = reference(twice);
  EXPECT_EQ(ref->unique_windows(), 0u);
  EXPECT_EQ(file_check_impossible(*ref, kRate),
            "no 8 consecutive samples of the file occur only once: its content repeats, so "
            "where the received audio belongs is ambiguous");
  // And it never locks onto such a file: every window fits twice.
  const std::vector<float> x = received(twice, 10 * kBlock, [](size_t r) { return r; });
  const GlitchDetector d = detect(ref, x);
  EXPECT_FALSE(d.ever_locked());
  EXPECT_EQ(d.unlocked_frames(), 10u * kBlock);
  EXPECT_TRUE(d.glitches().empty());
}

// A silent file is received and recorded, never judged: no frame counts as checked.
TEST(FileCheck, TheTailReportsASilentFileAsNotCheckedWithEverythingReceived) {
  TempDir dir("file-check");
  AudioCheckSetup s;
  s.reference_kind = "file";
  const auto silent = reference(std::vector<float>(kRate, 0.0f));
  s.reference = silent;
  s.not_checked = file_check_impossible(*silent, kRate);
  std::vector<telemetry::GlitchReport> got;
  AudioCheck check(
      2, kRate, dir.str(), [&](const telemetry::GlitchReport& g) { got.push_back(g); }, s);
  const std::vector<float> zeros(10 * kBlock, 0.0f);
  for (uint64_t k = 0; k < 10; ++k) check.feed(zeros.data() + k * kBlock, kBlock, 1000 + k, 0);
  check.finish();
  const telemetry::AudioTotals t = check.totals();
  EXPECT_EQ(t.reference, "file");
  EXPECT_EQ(t.not_checked, "the file is digital silence");
  EXPECT_EQ(t.frames, 0u);
  EXPECT_EQ(t.received_frames, 10u * kBlock);
  EXPECT_EQ(t.recorded_frames, 10u * kBlock);
  EXPECT_EQ(t.judged_blocks + t.unjudged_blocks + t.glitches, 0u);
  EXPECT_TRUE(got.empty());
}

// 24-bit FLAC: what the tail received, with two samples beyond +-1.0 clipped and counted; the
// test signal's blocks are all judged.
TEST(FileCheck, AFlacRecordingClipsAndCountsSamplesBeyondOne) {
  TempDir dir("file-check");
  AudioCheckSetup s;
  s.format = RecordFormat::kFlac;
  s.block_frames = kBlock;
  AudioCheck check(
      2, kRate, dir.str(), [](const telemetry::GlitchReport&) {}, s);
  std::vector<float> x(8 * kBlock);
  TestSignal(kRate).fill_rt(x.data(), 0, static_cast<uint32_t>(x.size()));
  for (uint64_t k = 0; k < 8; ++k) check.feed(x.data() + k * kBlock, kBlock, 1000 + k, 0);
  std::vector<float> loud(kBlock, 0.25f);
  loud[10] = 1.5f;
  loud[20] = -3.0f;
  loud[30] = 1.0f;  // exactly 1.0 is in range
  check.feed(loud.data(), kBlock, 2000, 0);
  check.finish();
  const telemetry::AudioTotals t = check.totals();
  EXPECT_EQ(t.clipped_samples, 2u);
  EXPECT_EQ(t.recording, "received.flac");
  EXPECT_EQ(t.record_format, "flac");
  EXPECT_EQ(t.judged_blocks, 8u);
  EXPECT_EQ(t.unjudged_blocks, 0u);
  ASSERT_EQ(t.glitches, 1u);  // the loud block
  SF_INFO info{};
  SNDFILE* f = sf_open(dir.file("received.flac").c_str(), SFM_READ, &info);
  ASSERT_NE(f, nullptr) << sf_strerror(nullptr);
  EXPECT_EQ(info.format, SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
  EXPECT_EQ(info.samplerate, static_cast<int>(kRate));
  EXPECT_EQ(info.frames, static_cast<sf_count_t>(9 * kBlock));
  std::vector<float> back(static_cast<size_t>(info.frames));
  sf_readf_float(f, back.data(), info.frames);
  sf_close(f);
  const size_t at = 8 * kBlock;
  EXPECT_NEAR(back[at + 10], 1.0f, 1e-6);
  EXPECT_EQ(back[at + 20], -1.0f);
  EXPECT_NEAR(back[at + 0], 0.25f, 1e-6);
  EXPECT_NEAR(back[3], x[3], 1.0 / 8388608);  // 24 bits
  EXPECT_TRUE(std::ifstream(dir.file("glitch-001.flac")).good());
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// The user's audio file (engine/wire/source_audio.hpp): fixture files written with libsndfile at
// test time; what is loaded is channel 1, bit for bit, and every refusal names the file.
#include "engine/wire/source_audio.hpp"

#include <gtest/gtest.h>
#include <sndfile.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/audio_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;

std::string load_error(const std::string& path, uint32_t rate) {
  try {
    load_source_audio(path, rate);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(SourceAudio, LoadsChannelOneOfAStereoFlacBitForBit) {
  TempDir dir("source-audio");
  const std::vector<float> left = noise(3000, 1), right = noise(3000, 2);
  std::vector<float> both;
  for (size_t i = 0; i < left.size(); ++i) {
    both.push_back(left[i]);
    both.push_back(right[i]);
  }
  const std::string path = dir.file("stereo.flac");
  write_audio(path, both, 2, 48000, SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
  SourceAudioInfo info;
  const std::vector<float> got = load_source_audio(path, 48000, &info);
  EXPECT_EQ(got, left);
  EXPECT_EQ(info.rate, 48000u);
  EXPECT_EQ(info.channels, 2);
  EXPECT_EQ(info.frames, 3000u);
  EXPECT_EQ(info.used_frames, 3000u);
  EXPECT_FALSE(info.truncated());
  EXPECT_EQ(info.format, "FLAC (Free Lossless Audio Codec)");
  EXPECT_NE(describe_source(info).find("2 channels (channel 1 played)"), std::string::npos)
      << describe_source(info);
}

TEST(SourceAudio, AFileAtAnotherRateIsRefusedNamingBothRatesAndRate) {
  TempDir dir("source-audio");
  const std::string path = dir.file("44k.wav");
  write_audio(path, noise(100), 1, 44100, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  EXPECT_EQ(load_error(path, 48000),
            "--source '" + path +
                "': the file's rate is 44100 Hz, the run's is 48000 Hz; pass --rate 44100 "
                "(xrunlab does not resample, so that the check compares the file's own samples)");
}

TEST(SourceAudio, MissingUnreadableAndEmptyFilesAreRefusedNamingTheFile) {
  TempDir dir("source-audio");
  std::string why;
  EXPECT_FALSE(probe_source_audio(dir.file("none.flac"), &why));
  EXPECT_EQ(why, "--source '" + dir.file("none.flac") +
                     "': No such file or directory (give an audio file: WAV, FLAC or Ogg)");
  const std::string text = dir.write("notes.wav", "not audio at all\n");
  EXPECT_FALSE(probe_source_audio(text, &why));
  EXPECT_NE(why.find("--source '" + text + "': libsndfile cannot read it"), std::string::npos)
      << why;
  const std::string empty = dir.file("empty.wav");
  write_audio(empty, {}, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  EXPECT_FALSE(probe_source_audio(empty, &why));
  EXPECT_EQ(why, "--source '" + empty + "': it holds no audio frames");
  EXPECT_FALSE(probe_source_audio(dir.str(), &why));
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  EXPECT_EQ(load_error(empty, 48000), "--source '" + empty + "': it holds no audio frames");
}

TEST(SourceAudio, AFileLongerThanTheBoundIsTruncatedToItAndSaysSo) {
  TempDir dir("source-audio");
  constexpr int kRate = 1000;  // a small rate keeps the 301 s file small
  const std::string path = dir.file("long.wav");
  write_audio(path, noise(301 * kRate), 1, kRate, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  SourceAudioInfo info;
  const std::vector<float> got = load_source_audio(path, kRate, &info);
  EXPECT_EQ(got.size(), 300u * kRate);
  EXPECT_TRUE(info.truncated());
  EXPECT_EQ(info.frames, 301u * kRate);
  EXPECT_NE(describe_source(info).find("(the first 300.00 s of 301.00 s)"), std::string::npos)
      << describe_source(info);
  // Above 48 kHz the bound is 300 s at 48 kHz in frames: 150 s at 96 kHz.
  EXPECT_EQ(source_max_frames(96000), 150u * 96000);
  EXPECT_EQ(source_max_frames(48000), 300u * 48000);
  EXPECT_EQ(source_max_frames(44100), 300u * 44100);
}

// Ogg Vorbis is lossy, but decoding is deterministic: the head and the tail, loading the same
// file with the same libsndfile, hold the same floats.
TEST(SourceAudio, AnOggFileLoadsTheSameFloatsEveryTime) {
  TempDir dir("source-audio");
  const std::string path = dir.file("song.ogg");
  try {
    write_audio(path, noise(48000), 1, 48000, SF_FORMAT_OGG | SF_FORMAT_VORBIS);
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "this libsndfile writes no Ogg Vorbis: " << e.what();
  }
  SourceAudioInfo info;
  const std::vector<float> a = load_source_audio(path, 48000, &info);
  EXPECT_EQ(a.size(), 48000u);
  EXPECT_EQ(info.format.rfind("OGG", 0), 0u) << info.format;
  EXPECT_EQ(load_source_audio(path, 48000), a);
}

}  // namespace
}  // namespace xrunlab

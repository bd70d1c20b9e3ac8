// SPDX-License-Identifier: GPL-2.0-or-later
// The user's own audio through the audible chain (`xrunlab run --source FILE`) with the real
// jackd, clients and virtual card: the file is generated here with libsndfile, played by the head,
// passed through exactly, checked by the tail against the same file, recorded as 24-bit FLAC.
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "tests/support/audio_fixtures.hpp"
#include "tests/support/run_harness.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;

constexpr int kRate = 48000;
constexpr uint64_t kPeriod = 256;

// Two seconds of noise on channel 1 (and other noise on channel 2, which is not played) in 16
// bits, so that a 24-bit FLAC recording of it is lossless.
std::vector<float> write_noise_flac(const std::string& path) {
  const std::vector<float> left = noise(2 * kRate, 7), right = noise(2 * kRate, 8);
  std::vector<float> both;
  for (size_t i = 0; i < left.size(); ++i) {
    both.push_back(left[i]);
    both.push_back(right[i]);
  }
  write_audio(path, both, 2, kRate, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
  return read_channel_1(path);  // what xrunlab plays: libsndfile's reading of it
}

struct Recording {
  int format = 0, rate = 0;
  std::vector<float> samples;
};

Recording read_recording(const std::string& path) {
  Recording r;
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  if (f == nullptr) return r;
  r.format = info.format;
  r.rate = info.samplerate;
  r.samples.resize(static_cast<size_t>(info.frames));
  sf_readf_float(f, r.samples.data(), info.frames);
  sf_close(f);
  return r;
}

// The block rule (clients/drain/reference_signal.hpp) naively, at every place of the loop: a
// fixture whose every block differs from its neighbours has every block judged.
bool every_block_judgeable(const std::vector<float>& f) {
  const size_t n = f.size();
  for (size_t q = 0; q < n; ++q) {
    bool before = false, after = false;
    for (size_t i = 0; i < kPeriod && !(before && after); ++i) {
      before = before || f[(q + i) % n] != f[(q + i + n - kPeriod) % n];
      after = after || f[(q + i) % n] != f[(q + i + kPeriod) % n];
    }
    if (!(before && after)) return false;
  }
  return true;
}

// A clean run plays the file: the check ran on it and judged every block the tail received
// locked, and the FLAC recording is the file's channel 1, looped, sample for sample.
TEST(AudioChainSourceFile, TheFileIsPlayedCheckedAndRecordedAsFlac) {
  TempDir dir("source-file");
  const std::string song = dir.file("song.flac");
  const std::vector<float> file = write_noise_flac(song);
  ASSERT_EQ(file.size(), 2u * kRate);
  ASSERT_TRUE(every_block_judgeable(file));
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--backend", "vcard", "--clients", "2", "--ports", "1", "--period",
                        "256", "--duration", "3", "--source", song, "--record", "--record-format",
                        "flac", "--label", "it-source-flac", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& a = j["audio"];
  ASSERT_TRUE(a.is_object()) << j.dump();
  EXPECT_EQ(a["reference"], "file") << a.dump();
  EXPECT_TRUE(a["checked"].get<bool>()) << a.dump();
  EXPECT_TRUE(a["not_checked"].is_null()) << a.dump();
  EXPECT_NE(a["source"].get<std::string>().find("2 channels (channel 1 played)"), std::string::npos)
      << a.dump();
  EXPECT_EQ(j["spec"]["source"], song);
  EXPECT_EQ(j["spec"]["record_format"], "flac");
  EXPECT_EQ(a["block_frames"].get<uint64_t>(), kPeriod);
  const auto judged = a["judged_blocks"].get<uint64_t>();
  const auto unjudged = a["unjudged_blocks"].get<uint64_t>();
  const auto checked = a["frames_checked"].get<uint64_t>();
  const auto unlocked = a["unlocked_frames"].get<uint64_t>();
  EXPECT_GT(judged, 0u) << a.dump();
  EXPECT_EQ(unjudged, 0u) << a.dump();  // the fixture's every block differs from its neighbours
  EXPECT_EQ(a["frames_received"].get<uint64_t>(), checked);
  // Every block start from the lock on is judged, unless a glitch covers it.
  const uint64_t blocks_locked =
      (checked + kPeriod - 1) / kPeriod - (unlocked + kPeriod - 1) / kPeriod;
  if (a["glitches"].get<uint64_t>() == 0) {
    EXPECT_EQ(judged, blocks_locked) << a.dump();
  } else {
    EXPECT_LE(judged, blocks_locked) << a.dump();
  }
  EXPECT_EQ(a["glitches_without_xrun"].get<uint64_t>(), 0u) << a.dump();
  EXPECT_EQ(a["clipped_samples"].get<uint64_t>(), 0u);
  // The recording: FLAC, 24-bit, at the run's rate, every checked frame.
  EXPECT_EQ(a["recording"], "audio/received.flac");
  EXPECT_EQ(a["record_format"], "flac");
  const Recording rec = read_recording(r.run_dir() + "/audio/received.flac");
  EXPECT_EQ(rec.format, SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
  EXPECT_EQ(rec.rate, kRate);
  EXPECT_EQ(rec.samples.size(), a["recorded_frames"].get<uint64_t>());
  EXPECT_EQ(rec.samples.size(), checked);
  // Up to the first glitch (all of it without one), what arrived is the file's channel 1 from
  // some frame on, looped, sample for sample.
  const size_t until =
      a["glitch_list"].empty() ? rec.samples.size() : a["glitch_list"][0]["at_frame"].get<size_t>();
  if (until >= unlocked + 8) {
    size_t offset = file.size();
    for (size_t p = 0; p < file.size() && offset == file.size(); ++p) {
      bool fits = true;
      for (size_t m = 0; m < 8 && fits; ++m) {
        fits = rec.samples[unlocked + m] == file[(p + m) % file.size()];
      }
      if (fits) offset = p;
    }
    ASSERT_LT(offset, file.size()) << "the recording does not start anywhere in the file";
    size_t differ = 0;
    for (size_t i = unlocked; i < until; ++i) {
      differ += rec.samples[i] != file[(offset + i - unlocked) % file.size()] ? 1 : 0;
    }
    EXPECT_EQ(differ, 0u);
    std::printf(
        "the recording is the file from frame %zu on: %zu of %zu frames compared (%llu "
        "glitches)\n",
        offset, until - unlocked, rec.samples.size(),
        static_cast<unsigned long long>(a["glitches"].get<uint64_t>()));
  }
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(" Audio check . . . . . . . . . : " + std::to_string(judged) +
                         " blocks of 256 frames judged, 0 not judgeable"),
            std::string::npos)
      << summary;
  expect_nothing_left(r);
}

// Injected overruns of the middle client with the file playing: as with the test signal
// (AudioChain.InjectedOverrunsAreHeardAndMatched), how many JACK2 makes audible is its timing;
// what holds by construction is asserted: every glitch the file check heard lies in an xrun
// event, is one of the check's kinds and has its FLAC excerpt, and heard + missed = judged.
TEST(AudioChainSourceFile, InjectedOverrunsAreHeardAgainstTheFileAndMatched) {
  TempDir dir("source-file");
  const std::string song = dir.file("song.wav");
  const std::vector<float> file = noise(2 * kRate, 9);
  write_audio(song, file, 1, kRate, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run",
                        "--backend",
                        "vcard",
                        "--clients",
                        "3",
                        "--ports",
                        "1",
                        "--period",
                        "256",
                        "--duration",
                        "4",
                        "--inject",
                        "8000:100",
                        "--inject-client",
                        "2",
                        "--source",
                        song,
                        "--record",
                        "--record-format",
                        "flac",
                        "--label",
                        "it-source-inject",
                        "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& a = j["audio"];
  ASSERT_TRUE(a.is_object()) << j.dump();
  EXPECT_EQ(a["reference"], "file");
  EXPECT_TRUE(a["checked"].get<bool>()) << a.dump();
  EXPECT_GT(a["judged_blocks"].get<uint64_t>(), 0u) << a.dump();
  const auto injected = j["totals"]["injected_overruns"].get<uint64_t>();
  ASSERT_GE(injected, 4u);
  EXPECT_EQ(a["matched_by"], "cycle") << a.dump();
  const json& x = j["xrun_cycles"];
  std::map<std::string, json> source;
  for (const json& s : x["sources"]) source[s["key"].get<std::string>()] = s;
  ASSERT_EQ(source.size(), 3u) << x.dump();
  EXPECT_EQ(a["glitches_without_xrun"].get<uint64_t>(), 0u) << a.dump();
  EXPECT_EQ(source["audio"]["reports_without_xrun_cycle"].get<uint64_t>(), 0u) << x.dump();
  const auto heard = source["audio"]["events_reported"].get<uint64_t>();
  std::printf("%llu of %llu injected overruns heard at the tail against the file\n",
              static_cast<unsigned long long>(heard), static_cast<unsigned long long>(injected));
  EXPECT_EQ(heard + source["audio"]["events_missed"].get<uint64_t>(),
            source["audio"]["events_judged"].get<uint64_t>())
      << x.dump();
  EXPECT_EQ(a["delta_max"].get<double>() > 0.0, a["glitches"].get<uint64_t>() > 0) << a.dump();
  uint64_t excerpts = 0;
  for (const json& g : a["glitch_list"]) {
    EXPECT_TRUE(g["matched_xrun"].get<bool>()) << g.dump();
    const std::string kind = g["kind"].get<std::string>();
    EXPECT_TRUE(kind == "dropped" || kind == "repeated" || kind == "silence" ||
                kind == "corrupted" || kind == "lost")
        << g.dump();
    const std::string excerpt = g["excerpt"].get<std::string>();
    EXPECT_EQ(excerpt.substr(excerpt.size() - 5), ".flac") << g.dump();
    const Recording e = read_recording(r.run_dir() + "/" + excerpt);
    EXPECT_EQ(e.format, SF_FORMAT_FLAC | SF_FORMAT_PCM_24) << g.dump();
    EXPECT_GT(e.samples.size(), 0u) << g.dump();
    EXPECT_LE(e.samples.size(), 9600u) << g.dump();
    ++excerpts;
  }
  EXPECT_EQ(excerpts, a["glitches"].get<uint64_t>());
  expect_nothing_left(r);
}

// A file of digital silence is played and recorded, but the check cannot work on it: run.json,
// the summary and the warnings say so, and it counts no glitch and hears no xrun.
TEST(AudioChainSourceFile, ASilentFileIsPlayedButNotCheckedAndSaysSo) {
  TempDir dir("source-file");
  const std::string song = dir.file("silence.flac");
  write_audio(song, std::vector<float>(kRate, 0.0f), 1, kRate, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
  XrunlabRun r;
  ASSERT_EQ(run_to_end(
                {"run", "--backend", "vcard", "--clients", "2", "--ports", "1", "--period", "1024",
                 "--duration", "1", "--source", song, "--label", "it-source-silence", "--no-plots"},
                &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& a = j["audio"];
  ASSERT_TRUE(a.is_object()) << j.dump();
  EXPECT_FALSE(a["checked"].get<bool>());
  EXPECT_EQ(a["not_checked"], "the file is digital silence");
  EXPECT_EQ(a["frames_checked"].get<uint64_t>(), 0u);
  EXPECT_GT(a["frames_received"].get<uint64_t>(), 0u);
  EXPECT_EQ(a["judged_blocks"].get<uint64_t>(), 0u);
  EXPECT_EQ(a["glitches"].get<uint64_t>(), 0u);
  for (const json& s : j["xrun_cycles"]["sources"]) EXPECT_NE(s["key"], "audio") << s.dump();
  EXPECT_NE(j["warnings"].dump().find("played but not checked: the file is digital silence"),
            std::string::npos)
      << j["warnings"].dump();
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(" Delta Maximum . . . . . . . . : not checked"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("not checked: the file is digital silence"), std::string::npos) << summary;
  expect_nothing_left(r);
}

// A file that is not audio is refused before anything starts: one line naming it, exit 2.
TEST(AudioChainSourceFile, AFileThatIsNotAudioIsRefusedBeforeAnythingStarts) {
  TempDir dir("source-file");
  const std::string text = dir.write("notes.wav", "not audio\n");
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--backend", "vcard", "--clients", "2", "--duration", "1",
                        "--source", text, "--no-plots"},
                       &r),
            2)
      << r.log();
  const std::string log = r.log();
  EXPECT_NE(log.find("xrunlab: error: --source '" + text + "': libsndfile cannot read it"),
            std::string::npos)
      << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
  EXPECT_EQ(r.run_dir(), "");
  expect_nothing_left(r);
}

}  // namespace
}  // namespace xrunlab

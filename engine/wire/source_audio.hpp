// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The user's own audio file for the audible chain (`xrunlab run --source FILE`): read with
// libsndfile (WAV, FLAC, Ogg and whatever else it reads), channel 1 only, at the file's own rate
// (never resampled: a file whose rate is not the run's is refused, naming both rates, so the
// check compares bit-exact samples rather than a resampler's output). At most
// source_max_frames(rate) are used; a longer file is truncated to them and that is said.
//
// The engine probes the file before anything starts (probe_source_audio); the head and the tail
// of the chain load the same samples (load_source_audio) before activation, so both hold exactly
// the same floats (the same libsndfile conversion in both processes). Non-realtime.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

// Five minutes, and at most 300 s at 48 kHz in frames (150 s at 96 kHz): the tail holds the
// file, its window index and its block table (about 17 bytes per frame: 250 MB for the bound,
// indexed in about 3 s here), the head the samples (4 bytes per frame).
inline constexpr double kSourceMaxSeconds = 300;
inline constexpr uint64_t kSourceMaxFrames = uint64_t{300} * 48000;

struct SourceAudioInfo {
  std::string path;
  uint32_t rate = 0;         // the file's sample rate, Hz
  int channels = 0;          // in the file; only channel 1 is played
  uint64_t frames = 0;       // in the file
  uint64_t used_frames = 0;  // played and checked: frames, at most source_max_frames(rate)
  std::string format;        // libsndfile's name of the container, e.g. "FLAC", "WAV (Microsoft)"
  bool truncated() const { return used_frames < frames; }
};

// min(kSourceMaxSeconds * rate, kSourceMaxFrames).
uint64_t source_max_frames(uint32_t rate);

// Opens `path` and reads its header. nullopt and *why (one line naming the file and what is
// wrong: missing, unreadable, not audio libsndfile reads, no frames) when it cannot be used.
std::optional<SourceAudioInfo> probe_source_audio(const std::string& path, std::string* why);

// "--source 'PATH': the file's rate is 44100 Hz, the run's is 48000 Hz; pass --rate 44100
// (xrunlab does not resample)".
std::string source_rate_mismatch(const std::string& path, uint32_t file_rate, uint32_t run_rate);

// "'PATH': FLAC, 44100 Hz, 2 channels (channel 1 played), 3.20 s" and, when truncated, "(the
// first 300.00 s of 612.40 s)".
std::string describe_source(const SourceAudioInfo& info);

// Channel 1 of the first used_frames frames of `path`, as floats (libsndfile's normalised
// conversion). Throws std::runtime_error (one line naming the file) when it cannot be read or
// when its rate is not `run_rate` (source_rate_mismatch). *info, if given, gets the probe.
std::vector<float> load_source_audio(const std::string& path, uint32_t run_rate,
                                     SourceAudioInfo* info = nullptr);

}  // namespace xrunlab

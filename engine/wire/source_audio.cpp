// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/source_audio.hpp"

#include <fmt/format.h>
#include <sndfile.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace xrunlab {

uint64_t source_max_frames(uint32_t rate) {
  return std::min(static_cast<uint64_t>(kSourceMaxSeconds * rate), kSourceMaxFrames);
}

std::optional<SourceAudioInfo> probe_source_audio(const std::string& path, std::string* why) {
  auto fail = [&](const std::string& what) -> std::optional<SourceAudioInfo> {
    if (why != nullptr) *why = "--source '" + path + "': " + what;
    return std::nullopt;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return fail(std::string(std::strerror(errno)) + " (give an audio file: WAV, FLAC or Ogg)");
  }
  if (!S_ISREG(st.st_mode))
    return fail("not a regular file (give an audio file: WAV, FLAC or Ogg)");
  SF_INFO sf{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &sf);
  if (f == nullptr) {
    return fail(std::string("libsndfile cannot read it (") + sf_strerror(nullptr) +
                "); give WAV, FLAC or Ogg audio");
  }
  SF_FORMAT_INFO fi{};
  fi.format = sf.format & SF_FORMAT_TYPEMASK;
  const bool named = sf_command(nullptr, SFC_GET_FORMAT_INFO, &fi, sizeof fi) == 0;
  sf_close(f);
  if (sf.frames <= 0) return fail("it holds no audio frames");
  if (sf.samplerate <= 0 || sf.channels <= 0) return fail("its header gives no rate or channels");
  SourceAudioInfo info;
  info.path = path;
  info.rate = static_cast<uint32_t>(sf.samplerate);
  info.channels = sf.channels;
  info.frames = static_cast<uint64_t>(sf.frames);
  info.used_frames = std::min(info.frames, source_max_frames(info.rate));
  info.format = named && fi.name != nullptr ? fi.name : "audio";
  return info;
}

std::string source_rate_mismatch(const std::string& path, uint32_t file_rate, uint32_t run_rate) {
  return fmt::format(
      "--source '{}': the file's rate is {} Hz, the run's is {} Hz; pass --rate {} (xrunlab does "
      "not resample, so that the check compares the file's own samples)",
      path, file_rate, run_rate, file_rate);
}

std::string describe_source(const SourceAudioInfo& info) {
  std::string s = fmt::format("'{}': {}, {} Hz, {} channel{}{}, {:.2f} s", info.path, info.format,
                              info.rate, info.channels, info.channels == 1 ? "" : "s",
                              info.channels == 1 ? "" : " (channel 1 played)",
                              static_cast<double>(info.used_frames) / info.rate);
  if (info.truncated()) {
    s += fmt::format(" (the first {:.2f} s of {:.2f} s)",
                     static_cast<double>(info.used_frames) / info.rate,
                     static_cast<double>(info.frames) / info.rate);
  }
  return s;
}

std::vector<float> load_source_audio(const std::string& path, uint32_t run_rate,
                                     SourceAudioInfo* info_out) {
  std::string why;
  const std::optional<SourceAudioInfo> info = probe_source_audio(path, &why);
  if (!info) throw std::runtime_error(why);
  if (info->rate != run_rate) {
    throw std::runtime_error(source_rate_mismatch(path, info->rate, run_rate));
  }
  SF_INFO sf{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &sf);
  if (f == nullptr) {
    throw std::runtime_error("--source '" + path + "': libsndfile cannot read it (" +
                             sf_strerror(nullptr) + ")");
  }
  const auto channels = static_cast<size_t>(sf.channels);
  std::vector<float> mono(info->used_frames);
  std::vector<float> frames(4096 * channels);
  uint64_t got = 0;
  while (got < info->used_frames) {
    const auto want = static_cast<sf_count_t>(std::min<uint64_t>(4096, info->used_frames - got));
    const sf_count_t n = sf_readf_float(f, frames.data(), want);
    if (n <= 0) break;
    for (sf_count_t i = 0; i < n; ++i) mono[got + static_cast<uint64_t>(i)] = frames[i * channels];
    got += static_cast<uint64_t>(n);
  }
  sf_close(f);
  if (got < info->used_frames) {
    throw std::runtime_error(
        fmt::format("--source '{}': read {} of its {} frames; the file is "
                    "damaged or truncated",
                    path, got, info->used_frames));
  }
  if (info_out != nullptr) *info_out = *info;
  return mono;
}

}  // namespace xrunlab

#include "clients/drain/audio_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace xrunlab {

AudioCheck::AudioCheck(int index, uint32_t rate, const std::string& record_dir, Emit emit)
    : index_(index), rate_(rate), record_dir_(record_dir), emit_(std::move(emit)), detector_(rate) {
  if (!record_dir_.empty()) recording_ = open_wav(record_dir_ + "/received.wav");
}

AudioCheck::~AudioCheck() {
  finish();
}

SNDFILE* AudioCheck::open_wav(const std::string& path) {
  SF_INFO info{};
  info.samplerate = static_cast<int>(rate_);
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  if (f == nullptr) {
    throw std::runtime_error("cannot create '" + path + "': " + sf_strerror(nullptr));
  }
  return f;
}

void AudioCheck::feed(const float* samples, uint32_t n, uint64_t t_entry_us, uint32_t frame_time) {
  if (finished_ || n == 0) return;
  const uint64_t first = detector_.frames();
  if (cycles_.empty() || t_entry_us != last_cycle_t_) {
    cycles_.push_back({first, t_entry_us, frame_time});
    last_cycle_t_ = t_entry_us;
    while (cycles_.size() > 1 && cycles_.front().t_entry_us + 5000000 < t_entry_us) {
      cycles_.pop_front();
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  detector_.feed(samples, n);
  check_ns_ += static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  if (recording_ != nullptr) {
    recorded_ += static_cast<uint64_t>(sf_writef_float(recording_, samples, n));
  }
  if (!record_dir_.empty()) {
    history_.insert(history_.end(), samples, samples + n);
    while (history_.size() > rate_) {
      history_.pop_front();
      ++history_first_;
    }
  }
  report_new_glitches();
  write_excerpts(false);
}

void AudioCheck::report_new_glitches() {
  const std::vector<Glitch>& all = detector_.glitches();
  for (; reported_ < all.size(); ++reported_) {
    const Glitch& g = all[reported_];
    telemetry::GlitchReport r;
    r.index = index_;
    r.kind = to_string(g.kind);
    r.at_frame = g.at;
    r.jump = g.jump;
    r.length = g.length;
    r.max_deviation = g.max_deviation;
    // The cycle that carried the glitch's first sample.
    auto it = std::upper_bound(cycles_.begin(), cycles_.end(), g.at,
                               [](uint64_t at, const CycleStart& c) { return at < c.first_frame; });
    if (it != cycles_.begin()) {
      --it;
      r.t_us = static_cast<int64_t>(it->t_entry_us);
      r.frame = it->frame_time;
    }
    if (!record_dir_.empty()) {
      r.excerpt = fmt::format("glitch-{:03d}.wav", reported_ + 1);
      Excerpt e;
      e.from = g.at > rate_ / 10 ? g.at - rate_ / 10 : 0;
      e.from = std::max(e.from, history_first_);
      e.to = g.at + rate_ / 10;
      e.written_to = e.from;
      e.file = open_wav(record_dir_ + "/" + r.excerpt);
      excerpts_.push_back(e);
    }
    emit_(r);
  }
}

void AudioCheck::write_excerpts(bool at_end) {
  const uint64_t have_to = history_first_ + history_.size();
  for (Excerpt& e : excerpts_) {
    if (e.file == nullptr) continue;
    const uint64_t upto = std::min(e.to, have_to);
    for (uint64_t i = std::max(e.written_to, history_first_); i < upto; ++i) {
      const float x = history_[i - history_first_];
      sf_writef_float(e.file, &x, 1);
    }
    e.written_to = std::max(e.written_to, upto);
    if (e.written_to >= e.to || at_end) {
      sf_close(e.file);
      e.file = nullptr;
    }
  }
}

void AudioCheck::finish() {
  if (finished_) return;
  finished_ = true;
  detector_.finish();
  report_new_glitches();
  write_excerpts(true);
  if (recording_ != nullptr) {
    sf_close(recording_);
    recording_ = nullptr;
  }
}

telemetry::AudioTotals AudioCheck::totals() const {
  telemetry::AudioTotals t;
  t.frames = detector_.frames();
  t.unlocked_frames = detector_.unlocked_frames();
  t.glitches = detector_.glitches().size();
  t.delta_max = detector_.delta_max();
  t.ring_dropped = ring_dropped_;
  t.recorded_frames = recorded_;
  t.recording = record_dir_.empty() ? "" : "received.wav";
  t.check_ns_per_frame = t.frames > 0 ? check_ns_ / static_cast<double>(t.frames) : 0;
  return t;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/audio_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace xrunlab {

const char* extension(RecordFormat f) {
  return f == RecordFormat::kFlac ? "flac" : "wav";
}

namespace {

std::shared_ptr<const ReferenceSignal> reference_or_test_signal(const AudioCheckSetup& s,
                                                                uint32_t rate) {
  if (s.reference) return s.reference;
  auto r = std::make_shared<TestSignalReference>(rate);
  r->prepare_blocks(s.block_frames);
  return r;
}

}  // namespace

AudioCheck::AudioCheck(int index, uint32_t rate, const std::string& record_dir, Emit emit,
                       AudioCheckSetup setup)
    : index_(index),
      rate_(rate),
      record_dir_(record_dir),
      emit_(std::move(emit)),
      setup_(std::move(setup)),
      detector_(reference_or_test_signal(setup_, rate), rate) {
  if (!record_dir_.empty()) {
    recording_ = open_file(record_dir_ + "/received." + extension(setup_.format));
  }
}

// The fallback when finish() did not run: what it could throw (a failed allocation, libsndfile's
// writer) ends the client here as in any destructor.
AudioCheck::~AudioCheck() {  // NOLINT(bugprone-exception-escape)
  finish();
}

// 32-bit float WAV, or 24-bit integer FLAC with libsndfile's clipping on (without it a sample
// beyond +-1.0 would wrap around).
SNDFILE* AudioCheck::open_file(const std::string& path) {
  SF_INFO info{};
  info.samplerate = static_cast<int>(rate_);
  info.channels = 1;
  info.format = setup_.format == RecordFormat::kFlac ? (SF_FORMAT_FLAC | SF_FORMAT_PCM_24)
                                                     : (SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  if (f == nullptr) {
    throw std::runtime_error("cannot create '" + path + "': " + sf_strerror(nullptr));
  }
  if (setup_.format == RecordFormat::kFlac) sf_command(f, SFC_SET_CLIPPING, nullptr, SF_TRUE);
  return f;
}

void AudioCheck::feed(const float* samples, uint32_t n, uint64_t t_entry_us, uint32_t frame_time) {
  if (finished_ || n == 0) return;
  const uint64_t first = received_;
  if (cycles_.empty() || t_entry_us != last_cycle_t_) {
    cycles_.push_back({first, t_entry_us, frame_time});
    last_cycle_t_ = t_entry_us;
    while (cycles_.size() > 1 && cycles_.front().t_entry_us + 5000000 < t_entry_us) {
      cycles_.pop_front();
    }
  }
  received_ += n;
  if (checking()) {
    const auto t0 = std::chrono::steady_clock::now();
    detector_.feed(samples, n);
    check_ns_ += static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  if (recording_ != nullptr) {
    recorded_ += static_cast<uint64_t>(sf_writef_float(recording_, samples, n));
    if (setup_.format == RecordFormat::kFlac) {
      for (uint32_t i = 0; i < n; ++i) {
        if (!(samples[i] >= -1.0f && samples[i] <= 1.0f)) ++clipped_;  // NaN counts too
      }
    }
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
      r.excerpt = fmt::format("glitch-{:03d}.{}", reported_ + 1, extension(setup_.format));
      Excerpt e;
      e.from = g.at > rate_ / 10 ? g.at - rate_ / 10 : 0;
      e.from = std::max(e.from, history_first_);
      e.to = g.at + rate_ / 10;
      e.written_to = e.from;
      e.file = open_file(record_dir_ + "/" + r.excerpt);
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
  if (checking()) detector_.finish();
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
  t.received_frames = received_;
  t.unlocked_frames = detector_.unlocked_frames();
  t.glitches = detector_.glitches().size();
  t.delta_max = detector_.delta_max();
  t.ring_dropped = ring_dropped_;
  t.recorded_frames = recorded_;
  t.recording = record_dir_.empty() ? "" : std::string("received.") + extension(setup_.format);
  t.record_format = record_dir_.empty() ? "" : extension(setup_.format);
  t.clipped_samples = clipped_;
  t.reference = setup_.reference_kind;
  t.block_frames = detector_.reference().block_frames();
  t.judged_blocks = detector_.judged_blocks();
  t.unjudged_blocks = detector_.unjudged_blocks();
  t.not_checked = setup_.not_checked;
  if (t.not_checked.empty() && t.received_frames > 0 && !detector_.ever_locked() &&
      setup_.reference_kind == "file") {
    t.not_checked = "the received audio never matched the file at a place that occurs only once";
  }
  t.check_ns_per_frame = t.frames > 0 ? check_ns_ / static_cast<double>(t.frames) : 0;
  return t;
}

}  // namespace xrunlab

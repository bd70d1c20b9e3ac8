// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/vcard.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <utility>

#include "engine/base/errors.hpp"
#include "engine/result/result.hpp"
#include "engine/system/shm_object.hpp"

namespace xrunlab {
namespace {

// An ALSA configuration string: double-quoted, with backslash and quote escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '\\' || ch == '"') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// An ALSA configuration key: as is when it is a plain identifier, else quoted.
std::string key(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-';
  });
  return plain ? s : quoted(s);
}

// (wake - ideal) in µs, rounded down (towards minus infinity).
int64_t floor_us(int64_t ns) {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

const char* stream_name(int stream) {
  return stream == VcardReader::kCapture ? "capture" : "playback";
}

}  // namespace

std::string alsa_config_text(const VcardSpec& s) {
  std::string t;
  t += "# xrunlab virtual sound card: the complete private ALSA configuration of this run.\n";
  t += "# jackd reads only this file (ALSA_CONFIG_PATH); ~/.asoundrc and /etc are not read.\n";
  t += "pcm_type.xrunlab {\n";
  t += "  lib " + quoted(s.plugin_path) + "\n";
  t += "}\n";
  t += "pcm." + key(s.pcm_name) + " {\n";
  t += "  type xrunlab\n";
  t += "  rate " + std::to_string(s.rate) + "\n";
  t += "  period_frames " + std::to_string(s.frames) + "\n";
  t += "  min_periods 2\n";
  t += "  max_periods 32\n";
  t += "  playback_channels " + std::to_string(s.playback_channels) + "\n";
  t += "  capture_channels " + std::to_string(s.capture_channels) + "\n";
  t += "  clock_channel " + std::to_string(s.clock_channel) + "\n";
  // jackd drives both streams from its driver thread: one timer per card, one wake per period.
  t += "  shared_timer 1\n";
  t += "  shm " + quoted(s.shm_name) + "\n";
  t += "}\n";
  return t;
}

std::string vcard_shm_name(const std::string& server_name) {
  return "/xrunlab-vcard-" + server_name;
}

// ---- VcardShm ------------------------------------------------------------------------------

VcardShm::VcardShm(VcardShm&& other) noexcept {
  *this = std::move(other);
}

VcardShm& VcardShm::operator=(VcardShm&& other) noexcept {
  if (this != &other) {
    release();
    name_ = std::move(other.name_);
    shm_ = std::exchange(other.shm_, nullptr);
    linked_ = std::exchange(other.linked_, false);
  }
  return *this;
}

VcardShm::~VcardShm() {
  release();
}

void VcardShm::release() noexcept {
  unlink();
  if (shm_ != nullptr) ::munmap(shm_, sizeof(vcard::Shm));
  shm_ = nullptr;
}

void VcardShm::unlink() {
  if (linked_) ::shm_unlink(name_.c_str());
  linked_ = false;
}

VcardShm VcardShm::create(const std::string& name, uint32_t rate, uint32_t frames) {
  void* p = create_shm_object(name, sizeof(vcard::Shm), "the virtual card's shared memory object");
  VcardShm out;
  out.name_ = name;
  out.linked_ = true;  // from here on the destructor removes the name again
  // The new object is zero-filled: every counter is 0 and every slot empty (seq 0).
  auto* shm = new (p) vcard::Shm;
  shm->version = vcard::kShmVersion;
  shm->rate = rate;
  shm->frames = frames;
  shm->magic = vcard::kShmMagic;  // read only after jackd starts, which is after this
  out.shm_ = shm;
  return out;
}

// ---- VcardReader ---------------------------------------------------------------------------

VcardReader::VcardReader(const vcard::Shm* shm) : shm_(shm) {}

void VcardReader::poll() {
  choose_stream();
  poll_wakes();
  poll_xruns(kPlayback);
  poll_xruns(kCapture);
}

void VcardReader::choose_stream() {
  // Switch to capture while nothing was read yet: jackd opens playback first, both before the
  // first wake.
  if (stream_ == kCapture || wakes_ + missed_ > 0) return;
  auto used = [this](int s) {
    const vcard::StreamRecord& r = shm_->stream[s];
    return r.open.load(std::memory_order_acquire) != 0 ||
           r.wakes_written.load(std::memory_order_acquire) != 0;
  };
  if (used(kCapture)) {
    stream_ = kCapture;
  } else if (used(kPlayback)) {
    stream_ = kPlayback;
  }
}

void VcardReader::poll_wakes() {
  if (stream_ < 0) return;
  const vcard::StreamRecord& r = shm_->stream[stream_];
  constexpr int kAttempts = 4;
  uint64_t written = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    written = r.wakes_written.load(std::memory_order_acquire);
    if (written == wakes_ + missed_) return;  // nothing new
    scratch_.clear();
    for (uint32_t i = 0; i < vcard::kWakeSlots; ++i) {
      const vcard::WakeSlot& slot = r.wake[i];
      uint64_t m = 0;
      int64_t ideal = 0, wake = 0;
      if (!vcard::read_wake(slot, &m, &ideal, &wake)) continue;  // empty, being written, torn
      if (m % vcard::kWakeSlots != i) continue;                  // not a valid record
      if (any_read_ && m < next_boundary_) continue;
      scratch_.push_back({m, ideal, wake});
    }
    // A stable snapshot when the card wrote nothing during the scan; else retry, and accept the
    // last attempt as it is (records it raced past are counted as missed).
    if (r.wakes_written.load(std::memory_order_acquire) == written) break;
  }
  std::sort(scratch_.begin(), scratch_.end(),
            [](const Wake& a, const Wake& b) { return a.boundary < b.boundary; });
  for (const Wake& w : scratch_) latency_.add(floor_us(w.wake_ns - w.ideal_ns));
  wakes_ += scratch_.size();
  if (!scratch_.empty()) {
    any_read_ = true;
    next_boundary_ = scratch_.back().boundary + 1;
  }
  // Every record counted in `written` was either read now or earlier, or is gone. Records
  // written during an unstable scan may make this an undercount until the next poll.
  if (written > wakes_) missed_ = std::max(missed_, written - wakes_);
}

void VcardReader::poll_xruns(int stream) {
  const vcard::StreamRecord& r = shm_->stream[stream];
  const uint64_t n = r.xruns.load(std::memory_order_acquire);
  uint64_t& seen = xruns_seen_[stream];
  if (n - seen > vcard::kXrunSlots) {
    xruns_missed_[stream] += n - seen - vcard::kXrunSlots;
    seen = n - vcard::kXrunSlots;
  }
  for (; seen < n; ++seen) xruns_[stream].push_back(r.xrun[seen % vcard::kXrunSlots]);
}

VcardCardRecord VcardReader::record() const {
  VcardCardRecord c;
  if (stream_ >= 0) c.wake_stream = stream_name(stream_);
  c.wakes = wakes_;
  c.missed = missed_;
  c.wake_latency_us = summarize(latency_);
  for (const int s : {kPlayback, kCapture}) {
    const vcard::StreamRecord& r = shm_->stream[s];
    VcardStreamRecord& out = s == kPlayback ? c.playback : c.capture;
    out.open = r.open.load(std::memory_order_acquire) != 0;
    out.starts = r.starts.load(std::memory_order_relaxed);
    out.timer_arms = r.timer_arms.load(std::memory_order_relaxed);
    out.wakes_written = r.wakes_written.load(std::memory_order_acquire);
    out.xruns = xruns_[s].size() + xruns_missed_[s];
    for (const vcard::XrunEvent& e : xruns_[s]) {
      out.xrun_events.push_back({e.boundary, e.ideal_ns, e.detected_ns,
                                 floor_us(e.detected_ns - e.ideal_ns), e.avail_frames});
    }
  }
  return c;
}

}  // namespace xrunlab

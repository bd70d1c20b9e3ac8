// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// De-duplicates JACK2 xrun callbacks into distinct events. JACK2 notifies every client once per
// late client of a cycle, asynchronously; callbacks that see the same cycle (the same
// jack_last_frame_time()) or arrive back to back (within `burst_us` of the previous one, a
// burst delivered after the cycle moved on) belong to one event.
#include <cstdint>
#include <optional>

namespace xrunlab {

class XrunDedup {
 public:
  explicit XrunDedup(int64_t burst_us) : burst_us_(burst_us) {}
  // Returns true when this callback starts a new event.
  bool add(uint32_t frame, int64_t t_us) {
    const bool same = last_frame_ && (*last_frame_ == frame || t_us - last_t_us_ <= burst_us_);
    last_frame_ = frame;
    last_t_us_ = t_us;
    if (!same) ++events_;
    ++callbacks_;
    return !same;
  }
  uint64_t events() const { return events_; }
  uint64_t callbacks() const { return callbacks_; }

 private:
  int64_t burst_us_;
  std::optional<uint32_t> last_frame_;
  int64_t last_t_us_ = 0;
  uint64_t events_ = 0;
  uint64_t callbacks_ = 0;
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/cycle_stats.hpp"

#include <algorithm>

#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {

CycleStats::CycleStats(int index, uint32_t rate, uint32_t frames, Emit emit)
    : index_(index), rate_(rate), frames_(frames), emit_(std::move(emit)) {}

int64_t CycleStats::floor_div_1000(int64_t ns) {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

int64_t CycleStats::frames_to_us(uint32_t frames) const {
  // Floor, like JACK's own frame/time conversions: the true value lies within one frame above.
  return static_cast<int64_t>(uint64_t{frames} * 1000000u / rate_);
}

void CycleStats::begin_second(int64_t second) {
  current_.emplace();
  current_->index = index_;
  current_->second = second;
}

void CycleStats::emit_current() {
  if (current_) emit_(*current_);
  current_.reset();
}

std::optional<uint64_t> CycleStats::end_us() const {
  if (stop_us_) return stop_us_;
  return planned_stop_us_;
}

void CycleStats::consume(const CycleRecord& r) {
  ++cycles_total_;
  if (finished_) return;
  if (stop_us_ && r.t_entry_us >= *stop_us_) {
    finish();  // every record before this one is in the window or before it: count them
    return;
  }
  if (stop_us_) {
    // The end is final: nothing held can fall outside the window any more.
    while (!held_.empty()) {
      count(held_.front());
      held_.pop_front();
    }
    count(r);
    return;
  }
  held_.push_back(r);
}

void CycleStats::count(const CycleRecord& r) {
  if (!start_us_ || r.t_entry_us < *start_us_) return;
  if (const auto end = end_us(); end && r.t_entry_us >= *end) return;
  const int64_t second = static_cast<int64_t>((r.t_entry_us - *start_us_) / 1000000u);
  if (!current_) begin_second(0);
  // Seconds in which this client ran no cycle at all are emitted too, with zero cycles.
  while (current_->second < second) {
    const int64_t next = current_->second + 1;
    emit_current();
    begin_second(next);
  }

  const int64_t duration = static_cast<int64_t>(r.t_exit_us - r.t_entry_us);
  const int64_t delay_dll =
      static_cast<int64_t>(r.t_entry_us) - static_cast<int64_t>(r.dll_period_start_us);
  const int64_t period = frames_to_us(r.nframes);
  telemetry::Second& s = *current_;
  ++s.cycles;
  ++cycles_measured_;
  ++s.delay_dll[delay_dll];
  ++s.duration[duration];

  int64_t delay = 0;
  switch (reference_) {
    case Reference::kFrames:
      delay = frames_to_us(r.frames_since_start);
      break;
    case Reference::kDll:
      delay = delay_dll;
      break;
    case Reference::kCard: {
      if ((r.flags & CycleRecord::kHasBoundary) == 0) {
        // No marker: this cycle has no exact reference, and another one is not mixed in.
        ++s.unreferenced;
        if ((r.flags & CycleRecord::kInjected) != 0) {
          ++s.injected;
          ++injected_;
        }
        return;
      }
      const int64_t ideal =
          static_cast<int64_t>(vcard::boundary_ns(r.card_boundary, rate_, frames_));
      delay = floor_div_1000(static_cast<int64_t>(r.t_entry_mono_ns) - ideal);
      int64_t wake_ns = 0;
      if (wake_ && wake_(r.card_boundary, &wake_ns)) {
        ++s.signal[floor_div_1000(static_cast<int64_t>(r.t_entry_mono_ns) - wake_ns)];
      }
      break;
    }
  }
  const int64_t cycle = delay + duration;
  ++s.delay[delay];
  ++s.cycle[cycle];
  if (delay > period) ++s.over_spare;
  if (delay > 1000) ++s.over_1000;
  if (cycle > period) ++s.late;
  if ((r.flags & CycleRecord::kInjected) != 0) {
    ++s.injected;
    ++injected_;
  }

  const telemetry::WorstCycle w{static_cast<int64_t>(r.t_entry_us - *start_us_), r.frame_time,
                                delay, duration, cycle};
  auto worse = [](const telemetry::WorstCycle& a, const telemetry::WorstCycle& b) {
    return a.delay_us != b.delay_us ? a.delay_us > b.delay_us : a.cycle_us > b.cycle_us;
  };
  if (s.worst.size() < kWorstPerSecond || worse(w, s.worst.back())) {
    s.worst.insert(std::upper_bound(s.worst.begin(), s.worst.end(), w, worse), w);
    if (s.worst.size() > kWorstPerSecond) s.worst.pop_back();
  }
}

bool CycleStats::poll(uint64_t now_us, uint64_t grace_us) {
  if (finished_) return true;
  // Older than the hold: an early stop sent while it ran would have arrived.
  while (!held_.empty() && held_.front().t_entry_us + kHoldUs <= now_us) {
    count(held_.front());
    held_.pop_front();
  }
  if (const auto end = end_us(); end && now_us >= *end + grace_us) finish();
  return finished_;
}

void CycleStats::finish() {
  if (finished_) return;
  for (const CycleRecord& r : held_) count(r);
  held_.clear();
  finished_ = true;
  emit_current();
  telemetry::Final f;
  f.index = index_;
  f.cycles_total = cycles_total_;
  f.cycles_measured = cycles_measured_;
  f.ring_dropped = ring_dropped_;
  f.injected = injected_;
  emit_(f);
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/measurement_loop.hpp"

#include "engine/run/checkpoint_interval.hpp"

namespace xrunlab {

WindowEnd run_window(uint64_t t0, uint64_t planned_end, WindowSteps& steps) {
  WindowEnd out;
  out.end_us = planned_end;
  out.last_sample_us = t0;
  uint64_t next_sample = t0 + 1000000;
  uint64_t next_checkpoint = t0 + kFirstCheckpointUs;
  uint64_t next_poll = t0;
  uint64_t next_progress = t0;  // at once (0 s), then each whole second of the window
  while (true) {
    const uint64_t now = steps.now_us();
    steps.watch();
    if (now >= next_sample && next_sample <= planned_end) {
      steps.sample(next_sample);
      out.last_sample_us = next_sample;
      next_sample += 1000000;
    }
    if (steps.interrupted()) {
      out.reason = {StopKind::kInterrupted, ""};
      out.end_us = now;
      return out;
    }
    if (now >= planned_end) return out;
    out.reason = steps.stop_reason();
    if (out.reason.stopped()) {
      out.end_us = now;
      return out;
    }
    if (now >= next_poll) {
      steps.poll(now);
      next_poll = now + kPollIntervalUs;
    }
    // After the poll, so the figures shown are the newest read.
    if (steps.shows_progress() && now >= next_progress) {
      steps.progress(now - t0);
      next_progress = t0 + ((now - t0) / 1000000 + 1) * 1000000;
    }
    if (now >= next_checkpoint) {
      steps.checkpoint(now);
      next_checkpoint += checkpoint_interval_us(now - t0);
    }
    steps.pause();
  }
}

}  // namespace xrunlab

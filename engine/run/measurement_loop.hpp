// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The measurement window's loop, and only its timing: from the window's start t0 to its planned
// end (or the first reason to stop), every 10 ms it
//   - watches (WindowSteps::watch: --trace-on-xrun freezes its ring at the first xrun),
//   - takes the machine's second when one has passed (the last partial one is the caller's),
//   - stops at once on a signal, at the planned end, or when stop_reason() gives a reason,
//   - polls the card and the cycle table every 100 ms,
//   - shows the progress line at 0 s and then each whole second (if there is one),
//   - writes a checkpoint 1.5 s in (the clients' first second has arrived) and then at the
//     intervals of engine/run/checkpoint_interval.hpp.
// What each step does is the caller's (engine/run/runner_window.cpp); a unit test drives this loop
// with a fake clock. All times are JACK time in µs. Non-realtime: the run's own thread.
#include <cstdint>

#include "engine/run/stop_reason.hpp"

namespace xrunlab {

class WindowSteps {
 public:
  virtual ~WindowSteps() = default;
  virtual uint64_t now_us() = 0;
  virtual bool interrupted() = 0;           // SIGINT or SIGTERM arrived
  virtual StopReason stop_reason() = 0;     // stopped(): the window ends now, failed
  virtual void watch() = 0;                 // every pass, first
  virtual void sample(uint64_t until) = 0;  // the machine's second that ended at `until`
  virtual void poll(uint64_t now) = 0;
  virtual bool shows_progress() = 0;
  virtual void progress(uint64_t elapsed_us) = 0;
  virtual void checkpoint(uint64_t now) = 0;
  virtual void pause() = 0;  // about 10 ms
};

struct WindowEnd {
  uint64_t end_us = 0;          // the planned end, or the moment the loop stopped early
  uint64_t last_sample_us = 0;  // the end of the last machine second taken (t0: none)
  StopReason reason;            // why it stopped early (none: it ran to its planned end)
};

// Polls come this often, checkpoints first this long after t0.
inline constexpr uint64_t kPollIntervalUs = 100000;
inline constexpr uint64_t kFirstCheckpointUs = 1500000;

WindowEnd run_window(uint64_t t0_us, uint64_t planned_end_us, WindowSteps& steps);

}  // namespace xrunlab

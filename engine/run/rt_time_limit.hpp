// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How long a realtime audio thread of the run may run without blocking: RLIMIT_RTTIME on every
// realtime process the run starts (the clients, and the server it launches: jackd or the private
// PipeWire), and the engine's watchdog after it. The kernel counts, per thread under SCHED_FIFO
// or SCHED_RR, the CPU time since it last blocked; at the soft limit it sends SIGXCPU (the client
// then names the cause on its telemetry and exits with kClientExitRtTime), at the hard limit
// SIGKILL. The watchdog (runaway_watchdog.hpp) is the backstop for a thread the kernel's limit
// does not cover (SCHED_DEADLINE, a limit that was not applied).
// Non-realtime: the run's thread.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/result/run_records.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

struct RtTimeLimit {
  uint64_t soft_us = 0;      // SIGXCPU
  uint64_t hard_us = 0;      // SIGKILL
  uint64_t watchdog_us = 0;  // the engine's SIGKILL to a client thread still running
};

// The shortest soft limit: far above any legitimate stretch, short enough to end a runaway
// before it has held a CPU for long.
inline constexpr uint64_t kRtTimeFloorUs = 1000000;
// hard = soft + this; watchdog = hard + this.
inline constexpr uint64_t kRtTimeStepUs = 1000000;

// soft = max(1 s, 4 periods + the largest injected overrun), hard = soft + 1 s, watchdog =
// hard + 1 s. A thread that blocks every period never comes near: a callback that overruns
// into the next cycles runs them back to back without sleeping, hence the 4 periods.
RtTimeLimit rt_time_limit(double period_us, uint64_t largest_overrun_us);

// RLIMIT_RTTIME at these values, for SpawnSpec::limits.
ChildLimit rttime_child_limit(const RtTimeLimit& l);

// run.json "rt_time_limit": the limits, the programs they apply to and the rule, in words.
RtTimeLimitRecord rt_time_limit_record(const RtTimeLimit& l,
                                       const std::vector<std::string>& applied_to);

// What stopped a client that ended.
enum class RunawayCause {
  kNone,        // not a runaway: an ordinary end
  kRtTimeSoft,  // RLIMIT_RTTIME's SIGXCPU (the client's exit status, or the signal itself)
  kRtTimeHard,  // RLIMIT_RTTIME's SIGKILL: killed by SIGKILL we did not send, after the
                // watchdog saw its thread run at least the soft limit without blocking
  kWatchdog,    // the engine's watchdog killed it
};

// The cause, from its raw wait status, whether the watchdog killed it, and the longest stretch
// without blocking the watchdog saw (ns of CPU).
RunawayCause runaway_cause(int wait_status, bool killed_by_watchdog, uint64_t seen_ran_ns,
                           const RtTimeLimit& l);

// "RLIMIT_RTTIME" or "the watchdog"; "SIGXCPU" or "SIGKILL".
std::string stopped_by(RunawayCause c);
std::string stop_signal(RunawayCause c);

// How long it ran, in ms: what the watchdog saw, and at least the limit the kernel acted at.
uint64_t runaway_ran_ms(RunawayCause c, uint64_t seen_ran_ns, const RtTimeLimit& l);

// The run's one-line reason, e.g. "xrunlab-c02's process thread ran 1000 ms at SCHED_FIFO 65
// without blocking: stopped by RLIMIT_RTTIME (SIGXCPU at its soft limit of 1000 ms)".
std::string runaway_reason(const std::string& client, RunawayCause c, uint64_t ran_ms,
                           const std::string& policy, const RtTimeLimit& l);

}  // namespace xrunlab

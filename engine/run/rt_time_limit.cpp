// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/rt_time_limit.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>

#include "engine/wire/client_args.hpp"

namespace xrunlab {

RtTimeLimit rt_time_limit(double period_us, uint64_t largest_overrun_us) {
  const auto periods = static_cast<uint64_t>(std::ceil(4.0 * std::max(period_us, 0.0)));
  RtTimeLimit l;
  l.soft_us = std::max(kRtTimeFloorUs, periods + largest_overrun_us);
  l.hard_us = l.soft_us + kRtTimeStepUs;
  l.watchdog_us = l.hard_us + kRtTimeStepUs;
  return l;
}

ChildLimit rttime_child_limit(const RtTimeLimit& l) {
  return {RLIMIT_RTTIME, l.soft_us, l.hard_us, "RLIMIT_RTTIME"};
}

RtTimeLimitRecord rt_time_limit_record(const RtTimeLimit& l,
                                       const std::vector<std::string>& applied_to) {
  return {l.soft_us, l.hard_us, l.watchdog_us, applied_to,
          "RLIMIT_RTTIME soft = max(1 s, 4 periods + the largest injected overrun) (SIGXCPU), "
          "hard = soft + 1 s (SIGKILL); the watchdog kills a client thread at hard + 1 s"};
}

RunawayCause runaway_cause(int wait_status, bool killed_by_watchdog, uint64_t seen_ran_ns,
                           const RtTimeLimit& l) {
  if (killed_by_watchdog) return RunawayCause::kWatchdog;
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == kClientExitRtTime) {
    return RunawayCause::kRtTimeSoft;
  }
  if (WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGXCPU)
    return RunawayCause::kRtTimeSoft;
  if (WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL &&
      seen_ran_ns >= l.soft_us * 1000) {
    return RunawayCause::kRtTimeHard;
  }
  return RunawayCause::kNone;
}

std::string stopped_by(RunawayCause c) {
  switch (c) {
    case RunawayCause::kRtTimeSoft:
    case RunawayCause::kRtTimeHard:
      return "RLIMIT_RTTIME";
    case RunawayCause::kWatchdog:
      return "the watchdog";
    case RunawayCause::kNone:
      break;
  }
  return "";
}

std::string stop_signal(RunawayCause c) {
  switch (c) {
    case RunawayCause::kRtTimeSoft:
      return "SIGXCPU";
    case RunawayCause::kRtTimeHard:
    case RunawayCause::kWatchdog:
      return "SIGKILL";
    case RunawayCause::kNone:
      break;
  }
  return "";
}

uint64_t runaway_ran_ms(RunawayCause c, uint64_t seen_ran_ns, const RtTimeLimit& l) {
  uint64_t at_least_us = 0;
  if (c == RunawayCause::kRtTimeSoft) at_least_us = l.soft_us;
  if (c == RunawayCause::kRtTimeHard) at_least_us = l.hard_us;
  return std::max(seen_ran_ns / 1000000, at_least_us / 1000);
}

std::string runaway_reason(const std::string& client, RunawayCause c, uint64_t ran_ms,
                           const std::string& policy, const RtTimeLimit& l) {
  std::string how;
  switch (c) {
    case RunawayCause::kRtTimeSoft:
      how = fmt::format("RLIMIT_RTTIME (SIGXCPU at its soft limit of {} ms)", l.soft_us / 1000);
      break;
    case RunawayCause::kRtTimeHard:
      how = fmt::format("RLIMIT_RTTIME (SIGKILL at its hard limit of {} ms)", l.hard_us / 1000);
      break;
    case RunawayCause::kWatchdog:
      how = fmt::format("the watchdog (SIGKILL after {} ms; RLIMIT_RTTIME did not act)",
                        l.watchdog_us / 1000);
      break;
    case RunawayCause::kNone:
      return "";
  }
  return fmt::format("{}'s process thread ran {} ms at {} without blocking: stopped by {}", client,
                     ran_ms, policy.empty() ? "a realtime policy" : policy, how);
}

}  // namespace xrunlab

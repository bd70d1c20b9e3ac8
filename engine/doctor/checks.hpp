// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab doctor`'s checks: is this system set up for realtime audio? Each check is a pure
// function of a SystemSnapshot (snapshot.hpp): a status, what was found, one sentence on why it
// matters for audio and the exact command or file change that fixes it.
// Non-realtime.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/doctor/snapshot.hpp"

namespace xrunlab {

// Ordered from best to worst for the exit code; kNeedsRoot and kSkipped are not failures.
enum class CheckStatus { kOk, kSkipped, kNeedsRoot, kWarn, kFail };

// "ok", "skipped", "needs-root", "warn", "fail" (run --json's words) and the table's words
// ("OK", "SKIP", "ROOT?", "WARN", "FAIL").
const char* status_key(CheckStatus s);
const char* status_label(CheckStatus s);

struct CheckResult {
  std::string
      id;  // stable: "rtprio", "cpu-governor", ... (docs/commands.md, `xrunlab doctor`, lists them)
  std::string title;  // "Realtime priority limit"
  CheckStatus status = CheckStatus::kOk;
  std::string found;  // what the system has, in one line
  std::string why;    // one sentence: why it matters for audio
  std::string fix;    // the command or file change; "" when nothing is to be done
};

// What xrunlab would run: the priority its jackd gets and the run's defaults, which the
// policies check and the IRQ thread check measure against (engine/run/run_options.hpp).
struct DoctorTargets {
  int jackd_priority = 70;
  int clients = 14;
  uint32_t period = 64;
  uint32_t rate = 48000;
  double dsp_load_pct = 30;
};

// Every check, in the order the table shows them (ids: audio-group, audio-limits, rtprio,
// memlock, policies, cpu-governor, smt, preempt, threadirqs, high-res-timers, no-hz,
// mitigations, swappiness, atime, cpu-dma-latency, rt-throttling, cgroup-rt, rtkit,
// sound-cards, card-irqs, irq-priorities, audio-servers, card-holders).
std::vector<CheckResult> run_checks(const SystemSnapshot& s, const DoctorTargets& t);

// The worst status among the results (kOk for none).
CheckStatus worst_status(const std::vector<CheckResult>& results);

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --ping: ICMP echo requests at a fixed rate through the measurement window (engine/ping/
// icmp_pinger.hpp), from this machine across a veth pair into a network namespace of the run's
// own (engine/ping/ping_network.hpp), to ask
// the 2004 realtime-preempt question: does the realtime audio load starve the network stack
// (its softirqs), so that echo requests go unanswered? Its lifecycle follows the timer
// baseline's (engine/run/cyclictest_baseline.hpp): configured in preflight (the programs found
// before anything starts), the namespace made and the pinger started right before the window,
// stopped at the window's end or on any exit path, then put into the result. The namespace is
// the journal's (SysJournal "netns"): the run's end removes it with the other system changes.
// Non-realtime: the run's own thread only.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ping/icmp_pinger.hpp"
#include "engine/ping/ping_network.hpp"
#include "engine/result/result.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

struct PingSettings {
  std::string ip, nft;  // the programs' paths (nft: only with drop_every)
  int rate_hz = 100;
  int drop_every = 0;
};

// The most requests a run sends (2.8 hours at 100/s): the pinger keeps one entry per request.
inline constexpr uint64_t kMaxPingRequests = 1000000;

class PingCompanion {
 public:
  // Without configure() every call does nothing.
  void configure(PingSettings settings);
  bool configured() const { return !settings_.ip.empty(); }

  // Makes the namespace (journalled in `journal`) and the veth pair, and with drop_every loads
  // the nftables rule into it; the commands' output goes to <run_dir>/ping-setup.log. Throws
  // Error(kRunFailed) naming the command that failed, or SysChangeError.
  void make_network(SysJournal& journal, const std::string& run_dir, pid_t engine_pid);

  // Starts the pinger for `duration_s` (its count is the rate times that, at most
  // kMaxPingRequests). Returns the sentence that says what started. Throws Error as
  // IcmpPinger::start.
  std::string start(double duration_s);

  // Stops sending, waits for the last answers (1 s at most), computes the figures and writes
  // <run_dir>/ping.csv. Idempotent; never throws: a problem becomes the record's error.
  void stop() noexcept;

  // r.ping: the settings and ping's figures, or why there are none (and a warning).
  void fill(RunResult& r) const;

 private:
  void run_command(const std::vector<std::string>& argv) const;

  PingSettings settings_;
  std::string run_dir_;
  std::optional<PingNetwork> network_;
  PingRecord record_;
  IcmpPinger pinger_;
  bool stopped_ = false;
};

}  // namespace xrunlab

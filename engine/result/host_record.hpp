// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The machine a run ran on (engine/system/host_context.hpp collect_host_context()): run.json's
// "host".
#include <cstdint>
#include <string>
#include <vector>

namespace xrunlab {

struct HostKernel {
  std::string sysname, release, version, machine;
  std::string preempt;  // "PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT" or "none"
  std::string cmdline;
};

struct HostCpu {
  std::string model;
  int64_t count = 0;                   // CPUs online
  std::vector<std::string> governors;  // the cpufreq governors in use, sorted, distinct
};

struct HostRecord {
  std::string hostname;
  HostKernel kernel;
  HostCpu cpu;
  uint64_t memory_total_kib = 0;
  std::string jackd_version;  // the first line of `jackd --version`
};

}  // namespace xrunlab

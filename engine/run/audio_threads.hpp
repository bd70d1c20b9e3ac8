// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The policy on the audio threads: what jackd's realtime thread and each client's process
// thread must run under (--policy, --priority), whether that is permitted here, applying it to
// jackd's thread (the clients apply it to their own), the rt-throttle group, the iso-emu
// governor, and reading every audio thread back from the kernel to check it is in its class.
// Non-realtime: the run's thread, before, around and after the measurement.
#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/result.hpp"
#include "engine/run/run_options.hpp"
#include "engine/sched/iso_governor.hpp"
#include "engine/sched/policy.hpp"
#include "engine/sched/rt_throttle.hpp"
#include "engine/sched/sys_journal.hpp"

namespace xrunlab {

// An audio thread of a client, as its hello reported it.
struct ClientThread {
  std::string name;
  pid_t pid = 0, tid = 0;
};

// The first thread that is not in its requested class or not on the --cpus CPUs, as one line
// ("" when all are as requested).
std::string first_mismatch(const std::vector<AudioThread>& threads);

// run.json's "affinity" (nullopt when neither --cpus nor --load-cpus was given): the requested
// sets; the audio-thread read-backs compared with cpus (start and end) and the loads whose
// read-back (loads[].cpus) was compared with load_cpus; verified: every one matched, one did
// not, or nullopt when a requested set had nothing read back to compare (the run ended first).
// From what the result records, so it says what was checked, not what was meant.
std::optional<AffinityRecord> affinity_record(const std::vector<int>& cpus,
                                              const std::vector<int>& load_cpus,
                                              const std::vector<AudioThread>& threads_start,
                                              const std::vector<AudioThread>& threads_end,
                                              const std::optional<std::vector<LoadRecord>>& loads);

class AudioThreadPolicy {
 public:
  // The targets for these options (server priority, deadline runtimes from the DSP load).
  explicit AudioThreadPolicy(const RunOptions& o);
  ~AudioThreadPolicy();  // stops the governor if it still runs

  bool realtime() const { return realtime_; }  // false with --priority 0 (jackd without -R)
  int server_priority() const { return server_priority_; }
  const PolicyTargets& targets() const { return targets_; }
  const std::string& label() const { return label_; }  // run.json scheduling.label

  // Before anything starts: may this policy run here (permission for the highest realtime
  // priority it uses, the preflight's rules)? Throws Error(kPermission) or, for a policy this
  // system does not have, Error(kUnsupported), naming --policy.
  void check_permitted(int clients) const;

  // rt-throttle: creates the cgroup-v1 group through the journal; returns what was done, for
  // the log ("" for the other policies). Throws Error naming --policy.
  std::string create_group(SysJournal& journal);
  // The group's cgroup.procs, for starting jackd and the clients inside it ("" = none).
  std::string cgroup_procs() const;
  std::optional<RtThrottleRecord> group_record() const;  // run.json scheduling.rt_throttle

  // Puts jackd's realtime thread (the one at the server priority) under the server target;
  // `program` names the server in errors (pipewire: its data loop). Throws
  // Error(kServerFailed) when it cannot be found, Error(kPermission) when refused.
  void apply_to_server(pid_t jackd_pid, const std::string& program = "jackd");
  // iso-emu: starts the governor over jackd's thread and the clients'. Error(kPermission).
  void start_governor(pid_t jackd_pid, const std::vector<ClientThread>& clients);
  // iso-emu: stops the governor; its report for run.json (nullopt for the other policies).
  std::optional<IsoReport> stop_governor();

  // Every audio thread as the kernel has it now, each checked against its target (a thread
  // outside the rt-throttle group, too; under iso-emu a demoted thread is in its class) and,
  // with --cpus, against that CPU set (its affinity must be exactly the set).
  std::vector<AudioThread> read(pid_t jackd_pid, const std::vector<ClientThread>& clients) const;

 private:
  PolicySpec policy_;
  bool realtime_ = true;
  int server_priority_ = 70;
  PolicyTargets targets_;
  std::string label_;
  std::vector<int> cpus_;  // --cpus (empty: the affinity is not checked)
  pid_t server_tid_ = 0;
  RtThrottleGroup group_;
  bool throttled_ = false;
  std::unique_ptr<IsoGovernor> governor_;
};

}  // namespace xrunlab

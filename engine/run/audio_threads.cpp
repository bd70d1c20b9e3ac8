// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/audio_threads.hpp"

#include <fmt/format.h>

#include <string_view>
#include <thread>

#include "engine/base/errors.hpp"
#include "engine/sched/preflight.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

// Where the iso-emu governor puts the audio threads while they are over their share.
ThreadTarget iso_demoted() {
  return ThreadTarget{};  // SCHED_OTHER nice 0
}

// How an affinity mismatch starts, so that first_mismatch names it as one.
constexpr std::string_view kAffinityMismatch = "CPU affinity ";

}  // namespace

std::string first_mismatch(const std::vector<AudioThread>& threads) {
  for (const AudioThread& a : threads) {
    if (a.mismatch.rfind(kAffinityMismatch, 0) == 0) {
      return fmt::format("{} thread {} is not on the requested CPUs: {}", a.role, a.sched.tid,
                         a.mismatch);
    }
    if (!a.mismatch.empty()) {
      return fmt::format("{} thread {} is not in the requested class: {}", a.role, a.sched.tid,
                         a.mismatch);
    }
  }
  return "";
}

std::optional<AffinityRecord> affinity_record(const std::vector<int>& cpus,
                                              const std::vector<int>& load_cpus,
                                              const std::vector<AudioThread>& threads_start,
                                              const std::vector<AudioThread>& threads_end,
                                              const std::optional<std::vector<LoadRecord>>& loads) {
  if (cpus.empty() && load_cpus.empty()) return std::nullopt;
  bool mismatch = false;
  int threads = 0, load_count = 0;
  if (!cpus.empty()) {
    for (const auto* set : {&threads_start, &threads_end}) {
      for (const AudioThread& a : *set) {
        ++threads;
        mismatch = mismatch || a.sched.cpus != cpus;
      }
    }
  }
  if (!load_cpus.empty() && loads) {
    for (const LoadRecord& l : *loads) {
      ++load_count;
      mismatch = mismatch || l.cpus != load_cpus;
    }
  }
  const bool unchecked = (!cpus.empty() && threads == 0) || (!load_cpus.empty() && load_count == 0);
  AffinityRecord a;
  a.cpus = cpus;
  a.load_cpus = load_cpus;
  a.threads_checked = threads;
  a.loads_checked = load_count;
  if (mismatch) {
    a.verified = false;
  } else if (!unchecked) {
    a.verified = true;
  }
  return a;
}

AudioThreadPolicy::AudioThreadPolicy(const RunOptions& o) : policy_(o.policy), cpus_(o.cpus) {
  realtime_ = o.priority > 0;
  server_priority_ = o.server_priority();
  policy_.priority = server_priority_;
  const double period_ns = static_cast<double>(o.period) * 1e9 / o.rate;
  // A ramp's clients reach their share of its top: the budget is for that.
  const double load_pct = o.ramp ? kRampTopPct : o.dsp_load_pct;
  const auto client_dsp_ns = static_cast<uint64_t>(period_ns * load_pct / 100.0 / o.clients);
  targets_ = targets_for(policy_, o.period, o.rate, client_dsp_ns);
  if (policy_.kind == PolicyKind::kIsoEmu) {
    // The governor switches every audio thread between one promoted and one demoted class,
    // as SCHED_ISO has no priorities among ISO tasks: the server shares the clients' class.
    targets_.server = targets_.client;
  }
  if (!realtime_) {
    // jackd without -R: JACK makes nothing realtime; the threads stay SCHED_OTHER nice 0.
    targets_.server = ThreadTarget{};
    targets_.client = ThreadTarget{};
    label_ = "SCHED_OTHER nice 0 (--priority 0: jackd without -R, nothing realtime)";
  } else {
    label_ = describe(policy_);
  }
}

AudioThreadPolicy::~AudioThreadPolicy() {
  if (governor_) governor_->stop();
}

void AudioThreadPolicy::check_permitted(int clients) const {
  if (!realtime_) return;
  // jackd always starts in realtime mode (-R -P) so that JACK behaves alike under every policy;
  // the iso-emu governor runs at FIFO 90. Both need the permission, whatever the policy.
  const int highest_rt = policy_.kind == PolicyKind::kIsoEmu ? 90 : server_priority_;
  if (const std::string denied = check_realtime_permission(highest_rt); !denied.empty()) {
    throw Error(ExitCode::kPermission, denied);
  }
  const std::string problem = check_policy(policy_, targets_, clients, collect_sched_facts());
  if (!problem.empty()) {
    const bool unsupported =
        policy_.kind == PolicyKind::kIso || policy_.kind == PolicyKind::kRtThrottle;
    throw Error(unsupported ? ExitCode::kUnsupported : ExitCode::kPermission,
                "--policy " + policy_.text + ": " + problem);
  }
}

std::string AudioThreadPolicy::create_group(SysJournal& journal) {
  if (policy_.kind != PolicyKind::kRtThrottle || !realtime_) return "";
  const RtThrottleSupport support = detect_rt_throttle();
  if (!support.available) {
    throw Error(ExitCode::kUnsupported, "--policy " + policy_.text + ": " + support.why);
  }
  std::string said;
  try {
    said = group_.create(journal, support, policy_.throttle_pct, policy_.throttle_period_us);
  } catch (const Error& e) {
    throw Error(e.code(), "--policy " + policy_.text + ": " + e.what());
  }
  throttled_ = true;
  return said;
}

std::string AudioThreadPolicy::cgroup_procs() const {
  return throttled_ ? group_.path() + "/cgroup.procs" : std::string();
}

std::optional<RtThrottleRecord> AudioThreadPolicy::group_record() const {
  if (!throttled_) return std::nullopt;
  return RtThrottleRecord{group_.path(), policy_.throttle_pct, policy_.throttle_period_us};
}

void AudioThreadPolicy::apply_to_server(pid_t jackd_pid, const std::string& program) {
  if (!realtime_) return;
  std::string why;
  const auto tid = find_rt_thread(jackd_pid, server_priority_, &why);
  if (!tid) {
    throw Error(ExitCode::kServerFailed, "cannot find " + program +
                                             "'s realtime thread (SCHED_FIFO " +
                                             std::to_string(server_priority_) + "): " + why);
  }
  server_tid_ = *tid;
  const std::string err = apply_thread_sched(server_tid_, targets_.server);
  if (!err.empty()) throw Error(ExitCode::kPermission, program + "'s realtime thread: " + err);
}

void AudioThreadPolicy::start_governor(pid_t jackd_pid, const std::vector<ClientThread>& clients) {
  if (policy_.kind != PolicyKind::kIsoEmu || !realtime_) return;
  std::vector<std::pair<pid_t, pid_t>> threads = {{jackd_pid, server_tid_}};
  for (const ClientThread& c : clients) threads.emplace_back(c.pid, c.tid);
  governor_ = std::make_unique<IsoGovernor>(policy_.iso_cpu_pct, policy_.iso_period_s,
                                            static_cast<int>(std::thread::hardware_concurrency()));
  // Above every audio thread and above jackd's own priority, so it is never starved.
  const std::string err = governor_->start(threads, targets_.client, iso_demoted(), 90);
  if (!err.empty()) throw Error(ExitCode::kPermission, "iso-emu governor: " + err);
}

std::optional<IsoReport> AudioThreadPolicy::stop_governor() {
  if (!governor_) return std::nullopt;
  IsoReport report = governor_->stop();
  governor_.reset();
  return report;
}

std::vector<AudioThread> AudioThreadPolicy::read(pid_t jackd_pid,
                                                 const std::vector<ClientThread>& clients) const {
  std::vector<AudioThread> out;
  auto add = [&](const std::string& role, pid_t pid, pid_t tid, const ThreadTarget& want) {
    AudioThread a;
    a.role = role;
    a.expected = describe_target(want);
    std::string why;
    if (auto s = read_thread_sched(pid, tid, &why)) {
      a.sched = *s;
      a.mismatch = check_thread_sched(*s, want);
      if (a.mismatch.empty() && throttled_ && !in_cgroup(pid, group_.path())) {
        a.mismatch = "not in the rt-throttle group " + group_.path();
      }
      // Under iso-emu a demoted thread is where the governor put it: that is the policy too.
      if (!a.mismatch.empty() && governor_ && check_thread_sched(*s, iso_demoted()).empty()) {
        a.mismatch.clear();
      }
      // --cpus: set before exec on jackd and every client, inherited by all their threads.
      if (a.mismatch.empty() && !cpus_.empty() && s->cpus != cpus_) {
        a.mismatch = fmt::format("{}{}, expected {} (--cpus)", kAffinityMismatch,
                                 format_cpu_list(s->cpus), format_cpu_list(cpus_));
      }
    } else {
      a.sched.pid = pid;
      a.sched.tid = tid;
      a.mismatch = "cannot read: " + why;
    }
    out.push_back(a);
  };
  if (server_tid_ != 0) add("server", jackd_pid, server_tid_, targets_.server);
  for (const ClientThread& c : clients) add(c.name, c.pid, c.tid, targets_.client);
  return out;
}

}  // namespace xrunlab

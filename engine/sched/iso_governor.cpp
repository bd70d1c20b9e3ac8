// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/iso_governor.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

bool is_rt(const ThreadTarget& t) {
  return t.policy == kSchedFifo || t.policy == kSchedRr;
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

timespec to_timespec(uint64_t ns) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000u);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000u);
  return ts;
}

// First field of an open /proc/PID/task/TID/schedstat (ns on CPU). Returns 0 or an errno value
// (ESRCH once the thread has exited).
int read_schedstat_ns(int fd, uint64_t& out) {
  char buf[128];
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n < 0) return errno;
  if (n == 0) return ESRCH;
  const auto [ptr, ec] = std::from_chars(buf, buf + n, out);
  if (ec != std::errc() || ptr == buf) return EINVAL;
  return 0;
}

constexpr size_t kMaxErrors = 64;

}  // namespace

// ---------------------------------------------------------------------------------------------
// IsoAccounting

IsoAccounting::IsoAccounting(double iso_cpu_pct, double iso_period_s, int ncpus)
    : iso_cpu_pct_(iso_cpu_pct), tau_ns_(iso_period_s * 1e9), ncpus_(ncpus) {
  if (!(iso_cpu_pct > 0 && iso_cpu_pct <= 100)) {
    throw Error(
        ExitCode::kUsage,
        fmt::format("iso-emu: ISO_CPU must be a percentage in (0, 100], got {}", iso_cpu_pct));
  }
  if (!(iso_period_s > 0) || !std::isfinite(iso_period_s)) {
    throw Error(ExitCode::kUsage,
                fmt::format("iso-emu: ISO_PERIOD must be a positive number of seconds, got {}",
                            iso_period_s));
  }
  if (ncpus < 1) {
    throw Error(ExitCode::kUsage,
                fmt::format("iso-emu: the CPU count must be >= 1, got {}", ncpus));
  }
}

IsoAccounting::Action IsoAccounting::update(uint64_t wall_ns, uint64_t cpu_ns) {
  if (wall_ns == 0) return Action::kNone;
  const double wall = static_cast<double>(wall_ns);
  const double instant_pct = 100.0 * static_cast<double>(cpu_ns) / (ncpus_ * wall);
  // keep = exp(-dt/tau); 1 - keep computed with expm1 so short samples lose no precision.
  const double x = -wall / tau_ns_;
  const double keep = std::exp(x);
  const double gain = -std::expm1(x);
  share_pct_ = share_pct_ * keep + instant_pct * gain;

  if (!demoted_ && share_pct_ > iso_cpu_pct_) {
    demoted_ = true;
    return Action::kDemote;
  }
  if (demoted_ && share_pct_ < promote_below_pct()) {
    demoted_ = false;
    return Action::kPromote;
  }
  return Action::kNone;
}

double IsoAccounting::share_pct() const {
  return share_pct_;
}

bool IsoAccounting::demoted() const {
  return demoted_;
}

// ---------------------------------------------------------------------------------------------
// IsoGovernor

IsoGovernor::IsoGovernor(double iso_cpu_pct, double iso_period_s, int ncpus,
                         std::chrono::microseconds interval)
    : acc_(iso_cpu_pct, iso_period_s, ncpus), ncpus_(ncpus), interval_(interval) {
  if (interval.count() <= 0) {
    throw Error(ExitCode::kUsage, fmt::format("iso-emu: the sampling interval must be positive, "
                                              "got {} us",
                                              interval.count()));
  }
}

IsoGovernor::~IsoGovernor() {
  if (thread_.joinable()) {
    stop_requested_.store(true);
    thread_.join();
  }
  close_all();
}

void IsoGovernor::close_all() {
  for (Watched& w : watched_) {
    if (w.fd >= 0) close(w.fd);
    w.fd = -1;
  }
}

void IsoGovernor::add_error(std::string message) {
  if (report_.errors.size() < kMaxErrors) {
    report_.errors.push_back(std::move(message));
  } else if (report_.errors.size() == kMaxErrors) {
    report_.errors.push_back("iso-emu: further errors not recorded");
  }
}

std::string IsoGovernor::start(const std::vector<std::pair<pid_t, pid_t>>& threads,
                               ThreadTarget promoted, ThreadTarget demoted, int governor_priority) {
  if (started_) return "iso-emu: the governor was already started";
  if (threads.empty()) return "iso-emu: no audio threads to govern";
  if (governor_priority < 1 || governor_priority > 99) {
    return fmt::format("iso-emu: governor priority must be 1..99, got {}", governor_priority);
  }
  for (const ThreadTarget* t : {&promoted, &demoted}) {
    if (is_rt(*t) && t->rt_priority >= governor_priority) {
      return fmt::format(
          "iso-emu: governor priority {} must be above the audio threads' {} (else the "
          "governor can be starved by the threads it governs)",
          governor_priority, describe_target(*t));
    }
  }
  started_ = true;
  promoted_ = promoted;
  demoted_ = demoted;

  for (const auto& [pid, tid] : threads) {
    const std::string path = fmt::format("/proc/{}/task/{}/schedstat", pid, tid);
    Watched w;
    w.pid = pid;
    w.tid = tid;
    w.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (w.fd < 0) {
      const int err = errno;
      close_all();
      return fmt::format("iso-emu: cannot read the CPU time of thread {} of process {} ({}: {})",
                         tid, pid, path, errno_text(err));
    }
    watched_.push_back(w);
  }
  for (Watched& w : watched_) {
    if (const int err = set_thread_sched(w.tid, promoted_); err != 0) {
      close_all();
      return fmt::format("iso-emu: cannot put thread {} of process {} under {}: {}", w.tid, w.pid,
                         describe_target(promoted_), errno_text(err));
    }
    if (const int err = read_schedstat_ns(w.fd, w.last_cpu_ns); err != 0) {
      close_all();
      return fmt::format("iso-emu: cannot read the CPU time of thread {} of process {}: {}", w.tid,
                         w.pid, errno_text(err));
    }
  }
  t0_ns_ = monotonic_ns();

  std::promise<std::string> setup_done;
  std::future<std::string> setup_result = setup_done.get_future();
  // The promise lives in the governor thread, so it outlives set_value() whatever start() does.
  thread_ = std::thread([this, governor_priority, done = std::move(setup_done)]() mutable {
    run(governor_priority, &done);
  });
  std::string error = setup_result.get();
  if (!error.empty()) {
    thread_.join();
    close_all();
  }
  return error;
}

uint64_t IsoGovernor::sample_cpu_ns() {
  uint64_t sum = 0;
  for (Watched& w : watched_) {
    if (w.gone) continue;
    uint64_t now_ns = 0;
    if (const int err = read_schedstat_ns(w.fd, now_ns); err != 0) {
      w.gone = true;
      close(w.fd);
      w.fd = -1;
      add_error(fmt::format(
          "iso-emu: thread {} of process {} vanished at {:.3f} s ({}); no longer "
          "governed",
          w.tid, w.pid, static_cast<double>(monotonic_ns() - t0_ns_) * 1e-9, errno_text(err)));
      continue;
    }
    if (now_ns > w.last_cpu_ns) sum += now_ns - w.last_cpu_ns;
    w.last_cpu_ns = now_ns;
  }
  return sum;
}

// Threads found gone by the sample just before are skipped, so a tid the kernel has reused since
// is not rescheduled (a thread exiting between that sample and this call remains a narrow race;
// sched_setattr has no pidfd form).
void IsoGovernor::apply_all(const ThreadTarget& target) {
  for (Watched& w : watched_) {
    if (w.gone) continue;
    const int err = set_thread_sched(w.tid, target);
    if (err == ESRCH) {
      w.gone = true;
      close(w.fd);
      w.fd = -1;
      add_error(fmt::format("iso-emu: thread {} of process {} vanished; no longer governed", w.tid,
                            w.pid));
    } else if (err != 0) {
      add_error(fmt::format("iso-emu: cannot put thread {} of process {} under {}: {}", w.tid,
                            w.pid, describe_target(target), errno_text(err)));
    }
  }
}

void IsoGovernor::run(int governor_priority, std::promise<std::string>* setup_done) {
  // Set-up on the governor thread itself: realtime priority above the audio threads, then pin.
  ThreadTarget self;
  self.policy = kSchedFifo;
  self.rt_priority = governor_priority;
  if (const int err = set_thread_sched(0, self); err != 0) {
    setup_done->set_value(
        fmt::format("iso-emu: cannot run the governor thread under SCHED_FIFO "
                    "{}: {}",
                    governor_priority, errno_text(err)));
    return;
  }
  if (ncpus_ > 1) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) > 1) {
      int last = -1;
      for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &allowed)) last = c;
      }
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(last, &one);
      if (sched_setaffinity(0, sizeof(one), &one) != 0) {
        add_error(fmt::format("iso-emu: cannot pin the governor thread to CPU {}: {}", last,
                              errno_text(errno)));
      }
    }
  }
  setup_done->set_value(std::string());

  const uint64_t interval_ns = static_cast<uint64_t>(interval_.count()) * 1000u;
  uint64_t prev_ns = t0_ns_;
  uint64_t next_ns = t0_ns_ + interval_ns;
  uint64_t demoted_since_ns = 0;
  uint64_t total_cpu_ns = 0, total_wall_ns = 0;
  while (!stop_requested_.load(std::memory_order_relaxed)) {
    const timespec next = to_timespec(next_ns);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);  // EINTR: sample early

    const uint64_t cpu_ns = sample_cpu_ns();
    const uint64_t now_ns = monotonic_ns();
    const uint64_t wall_ns = now_ns - prev_ns;
    prev_ns = now_ns;
    const IsoAccounting::Action action = acc_.update(wall_ns, cpu_ns);
    total_cpu_ns += cpu_ns;
    total_wall_ns += wall_ns;
    ++report_.samples;
    const double share = acc_.share_pct();
    report_.peak_share_pct = std::max(report_.peak_share_pct, share);
    share_snapshot_.store(share, std::memory_order_relaxed);

    const double t_s = static_cast<double>(now_ns - t0_ns_) * 1e-9;
    if (action == IsoAccounting::Action::kDemote) {
      apply_all(demoted_);
      report_.events.push_back({t_s, true, share});
      ++report_.demotions;
      demoted_since_ns = now_ns;
    } else if (action == IsoAccounting::Action::kPromote) {
      apply_all(promoted_);
      report_.events.push_back({t_s, false, share});
      ++report_.promotions;
      report_.time_demoted_s += static_cast<double>(now_ns - demoted_since_ns) * 1e-9;
    }

    // Next wake-up on the fixed grid; after an overrun (this thread was delayed) skip the missed
    // points rather than sampling in a burst: the accounting is exact for any sample length.
    next_ns += interval_ns;
    if (next_ns <= now_ns) next_ns = now_ns + interval_ns;
  }
  if (acc_.demoted()) {
    report_.time_demoted_s += static_cast<double>(prev_ns - demoted_since_ns) * 1e-9;
  }
  if (total_wall_ns > 0) {
    report_.mean_share_pct = 100.0 * static_cast<double>(total_cpu_ns) /
                             (static_cast<double>(ncpus_) * static_cast<double>(total_wall_ns));
  }
}

IsoReport IsoGovernor::stop() {
  if (!thread_.joinable()) return IsoReport{};
  stop_requested_.store(true);
  thread_.join();
  close_all();
  return std::move(report_);
}

double IsoGovernor::share_pct() const {
  return share_snapshot_.load(std::memory_order_relaxed);
}

}  // namespace xrunlab

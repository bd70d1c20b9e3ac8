// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/runaway_watchdog.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <charconv>

#include "engine/base/file.hpp"
#include "engine/run/audio_threads.hpp"
#include "engine/system/clock.hpp"
#include "engine/wire/sched_target.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

std::optional<uint64_t> leading_number(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

// "SCHED_FIFO 65", "SCHED_DEADLINE", as the kernel has `s`.
std::string policy_text(const ThreadSched& s) {
  const std::string name = policy_name(s.policy);
  return s.rt_priority > 0 ? fmt::format("{} {}", name, s.rt_priority) : name;
}

}  // namespace

bool realtime_class(int policy) {
  return policy == SCHED_FIFO || policy == SCHED_RR || policy == kSchedDeadline;
}

std::optional<uint64_t> parse_schedstat_exec_ns(std::string_view text) {
  return leading_number(text);
}

std::optional<uint64_t> parse_voluntary_switches(std::string_view status) {
  constexpr std::string_view key = "voluntary_ctxt_switches:";
  size_t at = 0;
  while ((at = status.find(key, at)) != std::string_view::npos) {
    if (at == 0 || status[at - 1] == '\n') return leading_number(status.substr(at + key.size()));
    at += key.size();  // "nonvoluntary_ctxt_switches:"
  }
  return std::nullopt;
}

std::optional<ThreadRun> read_thread_run(pid_t pid, pid_t tid, int64_t at_ns) {
  const std::string dir = fmt::format("/proc/{}/task/{}/", pid, tid);
  const std::optional<std::string> sched = read_file(dir + "schedstat");
  const std::optional<std::string> status = read_file(dir + "status");
  if (!sched || !status) return std::nullopt;
  const std::optional<uint64_t> exec = parse_schedstat_exec_ns(*sched);
  const std::optional<uint64_t> blocks = parse_voluntary_switches(*status);
  if (!exec || !blocks) return std::nullopt;
  return ThreadRun{*exec, *blocks, at_ns};
}

RunawayWatchdog::RunawayWatchdog(size_t threads, uint64_t threshold_ns)
    : threads_(threads), threshold_ns_(threshold_ns) {}

uint64_t RunawayWatchdog::observe(size_t k, pid_t tid, const ThreadRun& look) {
  Stretch& s = threads_.at(k);
  // A first look, another thread, or a block since the last look: a new stretch starts here.
  if (!s.seen || s.tid != tid || look.voluntary_switches != s.last.voluntary_switches ||
      look.exec_ns < s.last.exec_ns) {
    s.seen = true;
    s.tid = tid;
    s.first = look;
  }
  s.last = look;
  return ran_ns(k);
}

uint64_t RunawayWatchdog::ran_ns(size_t k) const {
  const Stretch& s = threads_.at(k);
  return s.seen ? s.last.exec_ns - s.first.exec_ns : 0;
}

int64_t RunawayWatchdog::running_since_ns(size_t k) const {
  const Stretch& s = threads_.at(k);
  return s.seen && ran_ns(k) > 0 ? s.first.at_ns : 0;
}

void RunawayGuard::start(const RtTimeLimit& limit, size_t clients) {
  limit_ = limit;
  watchdog_.emplace(clients, limit.watchdog_us * 1000);
  killed_.assign(clients, false);
  policy_.assign(clients, "");
  next_look_ns_ = 0;
  reason_.clear();
}

std::string RunawayGuard::check(ClientFleet& fleet, LiveResult& live) {
  if (!reason_.empty() || !watchdog_) return reason_;
  const int64_t now = mono_ns();
  const bool look = now >= next_look_ns_;
  if (look) next_look_ns_ = now + std::chrono::nanoseconds(every).count();
  const std::vector<ClientThread> threads = live.with([&](const RunResult& r) {
    std::vector<ClientThread> out;
    for (const ClientResult& c : r.client_results) {
      out.push_back({c.name, static_cast<pid_t>(c.pid), static_cast<pid_t>(c.rt_tid)});
    }
    return out;
  });
  for (size_t k = 0; k < threads.size() && k < fleet.size() && k < killed_.size(); ++k) {
    if (const std::optional<int> status = fleet.wait_status(k)) {
      const RunawayCause cause = runaway_cause(*status, killed_[k], watchdog_->ran_ns(k), limit_);
      if (cause != RunawayCause::kNone) return trip(k, cause, policy_[k], live);
      continue;  // an ordinary end: the run names it itself
    }
    const ClientThread& t = threads[k];
    if (!look || t.tid <= 0 || t.pid <= 0) continue;
    const std::optional<ThreadRun> run = read_thread_run(t.pid, t.tid, now);
    if (!run) continue;
    if (watchdog_->observe(k, t.tid, *run) == 0) continue;
    // Running a stretch: its policy now, for the reason should it end as a runaway, and whether
    // it can take the machine at all.
    const std::optional<ThreadSched> sched = read_thread_sched(t.pid, t.tid, nullptr);
    if (sched) policy_[k] = policy_text(*sched);
    if (sched && !realtime_class(sched->policy)) {
      watchdog_->restart(k);
      continue;
    }
    if (watchdog_->runaway(k)) {
      fleet.kill(k);
      killed_[k] = true;
      return trip(k, RunawayCause::kWatchdog, policy_[k], live);
    }
  }
  return "";
}

std::string RunawayGuard::trip(size_t k, RunawayCause cause, const std::string& policy,
                               LiveResult& live) {
  const uint64_t ran_ms = runaway_ran_ms(cause, watchdog_->ran_ns(k), limit_);
  const int64_t since = watchdog_->running_since_ns(k);
  const int64_t stopped = mono_ns();
  live.with([&](RunResult& r) {
    const ClientResult& c = r.client_results.at(k);
    std::string policy_text = policy;
    for (const AudioThread& t : r.threads_start) {  // not seen running: as it started
      if (policy_text.empty() && t.role == c.name) {
        policy_text = policy_name(t.sched.policy) +
                      (t.sched.rt_priority > 0 ? fmt::format(" {}", t.sched.rt_priority) : "");
      }
    }
    reason_ = runaway_reason(c.name, cause, ran_ms, policy_text, limit_);
    RunawayRecord a;
    a.client = c.name;
    a.index = c.index;
    a.pid = c.pid;
    a.tid = c.rt_tid;
    if (!policy_text.empty()) a.policy = policy_text;
    a.ran_ms = ran_ms;
    a.stopped_by = stopped_by(cause);
    a.signal = stop_signal(cause);
    if (since != 0) a.running_since_mono_ns = since;
    a.stopped_mono_ns = stopped;
    a.reason = reason_;
    r.runaway = std::move(a);
  });
  return reason_;
}

}  // namespace xrunlab

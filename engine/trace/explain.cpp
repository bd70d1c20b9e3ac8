// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/trace/explain.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/base/proc_pid_stat.hpp"

namespace xrunlab {

namespace {

int64_t median_ns(const std::vector<HopSeries>& hops, const std::string& key) {
  for (const HopSeries& h : hops) {
    if (h.key != key) continue;
    const auto p = h.us.percentile(50);
    if (p) return static_cast<int64_t>(p->value_us) * 1000;
  }
  return 0;
}

std::string us(int64_t ns) {
  return fmt::format("{}", static_cast<int64_t>(std::llround(static_cast<double>(ns) / 1000.0)));
}

}  // namespace

std::vector<HopWindow> select_late_hops(const CycleTableResult& table, size_t n,
                                        const ExplainThreads& threads, int64_t origin_ns,
                                        int64_t min_late_ns, size_t per_cycle) {
  std::vector<HopWindow> out;
  for (size_t r = 0; r < table.worst.size() && r < n; ++r) {
    const CycleRow& row = table.worst[r];
    const int64_t irq = origin_ns + static_cast<int64_t>(std::llround(row.t_s * 1e9));
    std::vector<HopWindow> hops;
    auto add = [&](std::string key, std::string text, std::string thread, pid_t tid, int64_t rel_a,
                   int64_t rel_b) {
      if (tid <= 0 || rel_b < rel_a) return;
      HopWindow h;
      h.cycle = row.id;
      h.t_s = row.t_s;
      h.slack_ns = row.slack_ns;
      h.late_ns = (rel_b - rel_a) - median_ns(table.hops, key);
      h.hop_key = std::move(key);
      h.hop_text = std::move(text);
      h.thread = std::move(thread);
      h.tid = tid;
      h.rel_start_ns = rel_a;
      h.rel_end_ns = rel_b;
      h.start_ns = irq + rel_a;
      h.end_ns = irq + rel_b;
      hops.push_back(std::move(h));
    };
    if (row.jackd_wake_ns) {
      add("jackd_wakeup", "jackd's wake-up", "jackd", threads.jackd_tid, 0, *row.jackd_wake_ns);
    }
    // The chain from the head, as long as each client ran (the hop decomposition's rule).
    std::optional<int64_t> upstream = row.jackd_wake_ns;
    for (size_t c = 0; c < row.clients.size(); ++c) {
      const CycleClient& cc = row.clients[c];
      if (!cc.ran) break;
      const std::string name =
          c < threads.client_names.size() ? threads.client_names[c] : fmt::format("c{:02d}", c + 1);
      const pid_t tid = c < threads.client_tids.size() ? threads.client_tids[c] : 0;
      if (upstream && cc.entry_ns >= *upstream) {
        add("wakeup." + name, name + "'s wake-up", name, tid, *upstream, cc.entry_ns);
      }
      add("dsp." + name, name + "'s DSP", name, tid, cc.entry_ns, cc.exit_ns);
      upstream = cc.exit_ns;
    }
    std::stable_sort(hops.begin(), hops.end(),
                     [](const HopWindow& a, const HopWindow& b) { return a.late_ns > b.late_ns; });
    for (size_t k = 0; k < hops.size() && k < per_cycle; ++k) {
      if (k > 0 && hops[k].late_ns < min_late_ns) break;
      out.push_back(hops[k]);
    }
  }
  return out;
}

std::optional<int> proc_policy(pid_t pid) {
  const auto st = read_proc_pid_stat(pid);
  if (!st || st->policy < 0) return std::nullopt;
  return st->policy;
}

std::string policy_text(int prio, std::optional<int> policy) {
  if (prio < 0) return "SCHED_DEADLINE";
  if (prio < 100) {
    const int rt = 99 - prio;
    if (policy && *policy == SCHED_FIFO) return fmt::format("SCHED_FIFO {}", rt);
    if (policy && *policy == SCHED_RR) return fmt::format("SCHED_RR {}", rt);
    return fmt::format("realtime {}", rt);  // gone, or changed class since: FIFO or RR unknown
  }
  const int nice = prio - 120;
  if (policy && *policy == SCHED_OTHER) return fmt::format("SCHED_OTHER nice {}", nice);
  if (policy && *policy == SCHED_BATCH) return fmt::format("SCHED_BATCH nice {}", nice);
  if (policy && *policy == SCHED_IDLE) return "SCHED_IDLE";
  return fmt::format("nice {}", nice);
}

HopExplanation explain_hop(const std::vector<TraceEvent>& events, const HopWindow& hop,
                           const TraceCoverage& coverage, const PolicyLookup& policy,
                           const std::vector<double>& steal_pct) {
  HopExplanation x;
  x.hop = hop;
  const int64_t a = hop.start_ns, b = hop.end_ns;
  const std::string head = fmt::format("{} {} us late", hop.hop_text, us(hop.late_ns));
  if (a < coverage.start_ns || b > coverage.end_ns || coverage.end_ns <= coverage.start_ns) {
    x.no_trace = a < coverage.start_ns ? "the window is before the trace started"
                                       : "the window is after the trace's last kept event";
    x.line = head + ": no trace (" + x.no_trace + ")";
    return x;
  }
  x.traced = true;
  auto by_time = [](const TraceEvent& e, int64_t t) { return e.t_ns < t; };
  const auto first_in = std::lower_bound(events.begin(), events.end(), a, by_time);
  const auto after = std::upper_bound(events.begin(), events.end(), b,
                                      [](int64_t t, const TraceEvent& e) { return t < e.t_ns; });
  // The thread's own timeline through the window: running (on a CPU) or waiting. Waiting
  // after a preemption is spent on the CPU it was preempted on (what ran there kept it off);
  // waiting after a wake-up on the CPU it next runs on.
  auto is_in = [&](const TraceEvent& e) {
    return e.kind == TraceKind::kSwitch && e.next_pid == hop.tid;
  };
  auto is_out = [&](const TraceEvent& e) {
    return e.kind == TraceKind::kSwitch && e.pid == hop.tid;
  };
  int running_cpu = -1;     // where it runs now; -1: waiting (or unknown)
  int queued_cpu = -1;      // where it was preempted and waits, -1: none known
  int last_cpu = -1;        // where it ran last
  int target_prio = -1000;  // the thread's kernel prio, from its switches (-1000: unknown)
  auto switched = [&](const TraceEvent& e) {
    target_prio = is_in(e) ? e.next_prio : e.prio;
    if (is_in(e)) {
      running_cpu = last_cpu = e.cpu;
      queued_cpu = -1;
    } else {
      running_cpu = -1;
      last_cpu = e.cpu;
      queued_cpu = e.prev_state == 'R' ? e.cpu : -1;
    }
  };
  for (auto it = first_in; it != events.begin();) {
    --it;
    if (is_in(*it) || is_out(*it)) {
      switched(*it);
      break;
    }
  }
  struct Stretch {
    int64_t from = 0, to = 0;
    int cpu = -1;
    bool running = false;
  };
  std::vector<Stretch> stretches;
  int64_t at = a;
  for (auto it = first_in; it != after; ++it) {
    if (it->kind == TraceKind::kWaking && it->pid == hop.tid) {
      x.woken_ns = it->t_ns - (a - hop.rel_start_ns);
    }
    if (!is_in(*it) && !is_out(*it)) continue;
    // A running stretch ends on its CPU; a waiting one where it waited or is switched in.
    stretches.push_back(
        {at, it->t_ns, is_in(*it) && queued_cpu >= 0 ? queued_cpu : it->cpu, is_out(*it)});
    at = it->t_ns;
    switched(*it);
    if (is_in(*it)) x.cpu = it->cpu;
  }
  if (at < b) {
    int cpu = running_cpu >= 0 ? running_cpu : queued_cpu;
    if (cpu < 0) {  // asleep or woken at the end: the CPU it runs on next, else where it ran last
      cpu = last_cpu;
      for (auto it = after; it != events.end(); ++it) {
        if (is_in(*it)) {
          cpu = it->cpu;
          break;
        }
      }
    }
    stretches.push_back({at, b, cpu, running_cpu >= 0});
  }
  if (x.cpu < 0) x.cpu = running_cpu >= 0 ? running_cpu : last_cpu;
  if (x.cpu < 0) {
    x.line = head + ": the trace has no switch of " + hop.thread + " (tid " +
             std::to_string(hop.tid) + ")";
    return x;
  }
  if (static_cast<size_t>(x.cpu) < steal_pct.size()) x.cpu_steal_pct = steal_pct[x.cpu];

  std::map<pid_t, TaskTime> tasks;
  std::map<int, IrqTime> irqs, softirqs;
  // Gives [from, to] on `cpu` to what the trace shows there.
  auto account = [&](int cpu, int64_t from, int64_t to) {
    if (to <= from) return;
    if (cpu < 0) {
      x.unknown_ns += to - from;
      return;
    }
    x.cpus.insert(cpu);
    const auto lo = std::lower_bound(events.begin(), events.end(), from, by_time);
    const auto hi = std::upper_bound(lo, events.end(), to,
                                     [](int64_t t, const TraceEvent& e) { return t < e.t_ns; });
    // Who ran there at `from`: the last switch there before it, else the first one after.
    struct Task {
      pid_t pid = -1;  // -1: unknown
      std::string comm;
      int prio = 0;
    } current;
    for (auto it = lo; it != events.begin();) {
      --it;
      if (it->cpu == cpu && it->kind == TraceKind::kSwitch) {
        current = {it->next_pid, comm_text(it->next_comm), it->next_prio};
        break;
      }
    }
    if (current.pid < 0) {
      for (auto it = lo; it != hi; ++it) {
        if (it->cpu == cpu && it->kind == TraceKind::kSwitch) {
          current = {it->pid, comm_text(it->comm), it->prio};
          break;
        }
      }
    }
    struct Open {
      bool soft = false;
      int num = 0;
      std::string name;
    };
    std::vector<Open> open;  // the handlers running, innermost last
    auto give = [&](int64_t f, int64_t t) {
      const int64_t d = t - f;
      if (d <= 0) return;
      if (!open.empty()) {
        IrqTime& it = (open.back().soft ? softirqs : irqs)[open.back().num];
        if (it.name.empty()) it.name = open.back().name;
        it.ns += d;
      } else if (current.pid < 0) {
        x.unknown_ns += d;
      } else if (current.pid == 0) {
        x.idle_ns += d;
      } else if (current.pid == hop.tid) {
        x.self_ns += d;
      } else {
        TaskTime& tt = tasks[current.pid];
        tt.pid = current.pid;
        tt.comm = current.comm;
        tt.prio = current.prio;
        tt.ns += d;
      }
    };
    int64_t cursor = from;
    auto silent = [&](int64_t f, int64_t t) {
      if (t - f > x.silent_ns) {
        x.silent_ns = t - f;
        x.silent_cpu = cpu;
      }
    };
    for (auto it = lo; it != hi; ++it) {
      const TraceEvent& e = *it;
      if (e.cpu != cpu) continue;
      silent(cursor, e.t_ns);
      give(cursor, e.t_ns);
      cursor = std::max(cursor, e.t_ns);
      switch (e.kind) {
        case TraceKind::kSwitch:
          current = {e.next_pid, comm_text(e.next_comm), e.next_prio};
          break;
        case TraceKind::kIrqEntry:
        case TraceKind::kSoftirqEntry: {
          const bool soft = e.kind == TraceKind::kSoftirqEntry;
          open.push_back({soft, e.num, comm_text(e.comm)});
          IrqTime& it_time = (soft ? softirqs : irqs)[e.num];
          it_time.count += 1;
          if (it_time.name.empty()) it_time.name = comm_text(e.comm);
          break;
        }
        case TraceKind::kIrqExit:
        case TraceKind::kSoftirqExit: {
          const bool soft = e.kind == TraceKind::kSoftirqExit;
          // An exit whose entry was before the stretch: nothing open to close.
          if (!open.empty() && open.back().soft == soft && open.back().num == e.num) {
            open.pop_back();
          }
          break;
        }
        case TraceKind::kWaking:
          break;
      }
    }
    silent(cursor, to);
    give(cursor, to);
  };
  // Before its last wake-up in the window the thread was not runnable: nothing held it, its
  // waker was late (a timer, its upstream). That part is counted as asleep, not given away.
  const int64_t woken_at = x.woken_ns ? *x.woken_ns + (a - hop.rel_start_ns) : a;
  for (const Stretch& st : stretches) {
    const int64_t split = st.running ? st.from : std::clamp(woken_at, st.from, st.to);
    x.asleep_ns += split - st.from;
    account(st.cpu, split, st.to);
  }
  for (auto& [pid, t] : tasks) {
    t.policy = policy_text(t.prio, policy ? policy(pid) : std::nullopt);
    t.lower_priority = target_prio != -1000 && t.prio > target_prio;
    x.blockers.push_back(t);
  }
  std::stable_sort(x.blockers.begin(), x.blockers.end(),
                   [](const TaskTime& l, const TaskTime& r) { return l.ns > r.ns; });
  for (auto& [n, t] : irqs) {
    t.num = n;
    x.irqs.push_back(t);
  }
  for (auto& [n, t] : softirqs) {
    t.num = n;
    x.softirqs.push_back(t);
  }
  auto by_ns = [](const IrqTime& l, const IrqTime& r) { return l.ns > r.ns; };
  std::stable_sort(x.irqs.begin(), x.irqs.end(), by_ns);
  std::stable_sort(x.softirqs.begin(), x.softirqs.end(), by_ns);

  std::string parts;
  auto part = [&](const std::string& s) { parts += (parts.empty() ? "" : ", ") + s; };
  for (size_t i = 0; i < x.blockers.size() && i < 3; ++i) {
    const TaskTime& t = x.blockers[i];
    // Below the thread's priority: not a preemption; the CPU did not act on the wake-up
    // (interrupts off, or the host did not run this virtual CPU).
    part(fmt::format("{} pid {} {} ran {} us{}", t.comm, t.pid, t.policy, us(t.ns),
                     t.lower_priority
                         ? " [below " + hop.thread + ": the CPU did not act on the wake-up]"
                         : std::string()));
  }
  for (size_t i = 0; i < x.irqs.size() && i < 2; ++i) {
    part(fmt::format("irq {} {} {} us", x.irqs[i].num, x.irqs[i].name, us(x.irqs[i].ns)));
  }
  for (size_t i = 0; i < x.softirqs.size() && i < 2; ++i) {
    part(fmt::format(
        "softirq {} {} us",
        x.softirqs[i].name.empty() ? std::to_string(x.softirqs[i].num) : x.softirqs[i].name,
        us(x.softirqs[i].ns)));
  }
  int64_t others = 0;
  for (const TaskTime& t : x.blockers) others += t.ns;
  const int64_t window = b - std::max(a, woken_at);  // the part in which it was runnable
  std::string cpus;
  for (const int c : x.cpus) cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
  std::string line = fmt::format("{} on CPU{} {}: ", head, x.cpus.size() > 1 ? "s" : "",
                                 cpus.empty() ? "?" : cpus);
  if (x.asleep_ns > 0) {
    line += fmt::format("woken {} us into it, then ", us(x.asleep_ns));
  }
  if (others * 2 < window) {
    // Nothing runnable took most of the window: the CPU was idle, or the thread itself ran (on
    // a VM the host may have held the virtual CPU meanwhile: steal).
    line += fmt::format("nothing runnable competed for most of it (idle {} us, {} itself {} us",
                        us(x.idle_ns), hop.thread, us(x.self_ns));
    if (x.unknown_ns > 0) line += fmt::format(", unknown {} us", us(x.unknown_ns));
    line += ")";
    if (x.cpu_steal_pct)
      line += fmt::format(", CPU {} steal {:.2f}% over the run", x.cpu, *x.cpu_steal_pct);
    if (!parts.empty()) line += "; also " + parts;
  } else {
    line += parts;
  }
  if (x.silent_ns >= kSilentNs) {
    line += fmt::format(
        "; CPU {} recorded no event for {} us of it (not even a timer tick: the "
        "host may not have run this virtual CPU)",
        x.silent_cpu, us(x.silent_ns));
  }
  x.line = line;
  return x;
}

std::vector<ExplainedCycle> explain_cycles(const std::vector<TraceEvent>& events,
                                           const CycleTableResult& table, size_t n,
                                           const ExplainThreads& threads, int64_t origin_ns,
                                           const TraceCoverage& coverage,
                                           const PolicyLookup& policy,
                                           const std::vector<double>& steal_pct) {
  std::vector<ExplainedCycle> cycles;
  const std::vector<HopWindow> hops = select_late_hops(table, n, threads, origin_ns);
  for (size_t i = 0; i < hops.size();) {
    ExplainedCycle& c = cycles.emplace_back();
    c.cycle = hops[i].cycle;
    c.t_s = hops[i].t_s;
    c.slack_ns = hops[i].slack_ns;
    c.line = hops[i].slack_ns ? fmt::format("slack {} us: ", us(*hops[i].slack_ns))
                              : std::string("a client did not run: ");
    for (bool first = true; i < hops.size() && hops[i].cycle == c.cycle; ++i, first = false) {
      HopExplanation x = explain_hop(events, hops[i], coverage, policy, steal_pct);
      c.line += (first ? "" : "; ") + x.line;
      c.hops.push_back(std::move(x));
    }
  }
  return cycles;
}

std::vector<double> steal_pct_per_cpu(const std::string& before, const std::string& after) {
  auto read = [](const std::string& text) {
    std::map<int, std::vector<uint64_t>> cpus;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
      std::istringstream f(line.substr(3));
      int cpu = 0;
      f >> cpu;
      std::vector<uint64_t> v;
      uint64_t x = 0;
      while (f >> x) v.push_back(x);
      cpus[cpu] = v;
    }
    return cpus;
  };
  const auto a = read(before), b = read(after);
  std::vector<double> out;
  for (int cpu = 0;; ++cpu) {
    const auto ia = a.find(cpu), ib = b.find(cpu);
    if (ia == a.end() || ib == b.end() || ia->second.size() < 8 || ib->second.size() < 8) break;
    uint64_t total = 0, steal = 0;
    // user nice system idle iowait irq softirq steal (guest is inside user)
    for (size_t k = 0; k < 8; ++k) {
      const uint64_t d = ib->second[k] >= ia->second[k] ? ib->second[k] - ia->second[k] : 0;
      total += d;
      if (k == 7) steal = d;
    }
    out.push_back(total > 0 ? 100.0 * static_cast<double>(steal) / static_cast<double>(total)
                            : 0.0);
  }
  return out;
}

}  // namespace xrunlab

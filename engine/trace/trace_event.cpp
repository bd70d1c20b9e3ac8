// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/trace/trace_event.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <utility>

namespace xrunlab {

namespace {

bool parse_int(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// The value of "key=" in fields, up to the next space (or to `until`, which may hold spaces:
// a comm). Empty when absent.
std::string_view field(std::string_view fields, std::string_view key,
                       std::string_view until = " ") {
  size_t pos = 0;
  while (true) {
    pos = fields.find(key, pos);
    if (pos == std::string_view::npos) return {};
    if (pos == 0 || fields[pos - 1] == ' ' || fields[pos - 1] == '[') break;
    pos += key.size();
  }
  const size_t start = pos + key.size();
  const size_t end = fields.find(until, start);
  return fields.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

int32_t field_int(std::string_view fields, std::string_view key, bool* ok) {
  int64_t v = 0;
  std::string_view s = field(fields, key);
  while (!s.empty() && (s.back() == ']' || s.back() == ',')) s.remove_suffix(1);
  if (!parse_int(s, &v)) *ok = false;
  return static_cast<int32_t>(v);
}

}  // namespace

std::string comm_text(const TraceComm& c) {
  return std::string(c.data(), strnlen(c.data(), c.size()));
}

void set_comm(TraceComm& c, std::string_view text) {
  c.fill('\0');
  std::memcpy(c.data(), text.data(), std::min(text.size(), c.size() - 1));
}

TraceLine parse_trace_line(std::string_view line) {
  TraceLine out;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (const size_t lost = line.find("[LOST "); lost != std::string_view::npos) {
    int64_t n = 0;
    const std::string_view rest = line.substr(lost + 6);
    if (parse_int(rest.substr(0, rest.find(' ')), &n) && n > 0) out.lost = static_cast<uint64_t>(n);
    return out;
  }
  // "<task>-<pid> [ccc] <flags> <secs>.<usecs>: <event>: <fields>". The task's comm may hold
  // anything, so the cpu field is found as the first " [digits]" after it.
  size_t open = line.find(" [");
  while (open != std::string_view::npos) {
    const size_t close = line.find(']', open);
    if (close != std::string_view::npos && close > open + 2) {
      int64_t cpu = 0;
      if (parse_int(line.substr(open + 2, close - open - 2), &cpu)) {
        std::string_view rest = line.substr(close + 1);
        // flags (optional in some option sets), then the time stamp ending with ':'
        const size_t colon = rest.find(": ");
        if (colon == std::string_view::npos) return out;
        std::string_view head = rest.substr(0, colon);
        const size_t last_space = head.rfind(' ');
        const std::string_view stamp =
            last_space == std::string_view::npos ? head : head.substr(last_space + 1);
        const size_t dot = stamp.find('.');
        int64_t secs = 0, usecs = 0;
        if (dot == std::string_view::npos || !parse_int(stamp.substr(0, dot), &secs) ||
            stamp.size() - dot - 1 != 6 || !parse_int(stamp.substr(dot + 1), &usecs)) {
          return out;
        }
        rest = rest.substr(colon + 2);
        const size_t name_end = rest.find(": ");
        if (name_end == std::string_view::npos) return out;
        const std::string_view name = rest.substr(0, name_end);
        const std::string_view f = rest.substr(name_end + 2);
        TraceEvent e;
        e.t_ns = secs * 1000000000 + usecs * 1000;
        e.cpu = static_cast<int32_t>(cpu);
        // "<comm>-<pid>" before the cpu: the task running then.
        std::string_view task = line.substr(0, open);
        while (!task.empty() && task.back() == ' ') task.remove_suffix(1);
        if (const size_t dash = task.rfind('-'); dash != std::string_view::npos) {
          int64_t cur = 0;
          if (parse_int(task.substr(dash + 1), &cur)) e.current = static_cast<int32_t>(cur);
        }
        bool ok = true;
        if (name == "sched_switch") {
          e.kind = TraceKind::kSwitch;
          set_comm(e.comm, field(f, "prev_comm=", " prev_pid="));
          e.pid = field_int(f, "prev_pid=", &ok);
          e.prio = field_int(f, "prev_prio=", &ok);
          const std::string_view st = field(f, "prev_state=");
          e.prev_state = st.empty() ? '?' : st[0];
          set_comm(e.next_comm, field(f, "next_comm=", " next_pid="));
          e.next_pid = field_int(f, "next_pid=", &ok);
          e.next_prio = field_int(f, "next_prio=", &ok);
        } else if (name == "sched_waking") {
          e.kind = TraceKind::kWaking;
          set_comm(e.comm, field(f, "comm=", " pid="));
          e.pid = field_int(f, "pid=", &ok);
          e.prio = field_int(f, "prio=", &ok);
          bool target_ok = true;
          e.num = field_int(f, "target_cpu=", &target_ok);
          if (!target_ok) e.num = -1;
        } else if (name == "irq_handler_entry") {
          e.kind = TraceKind::kIrqEntry;
          e.num = field_int(f, "irq=", &ok);
          set_comm(e.comm, field(f, "name=", "\n"));
        } else if (name == "irq_handler_exit") {
          e.kind = TraceKind::kIrqExit;
          e.num = field_int(f, "irq=", &ok);
        } else if (name == "softirq_entry" || name == "softirq_exit") {
          e.kind = name == "softirq_entry" ? TraceKind::kSoftirqEntry : TraceKind::kSoftirqExit;
          e.num = field_int(f, "vec=", &ok);
          set_comm(e.comm, field(f, "action=", "]"));
        } else {
          return out;
        }
        if (ok) out.event = e;
        return out;
      }
    }
    open = line.find(" [", open + 1);
  }
  return out;
}

uint64_t add_unseen_switches(std::vector<TraceEvent>& events) {
  struct Cpu {
    int32_t pid = -1;  // running, as the switches say (-1: none seen yet)
    TraceComm comm{};
    int32_t prio = 120;
    int64_t last_t = 0;                 // the previous event there
    const TraceEvent* woken = nullptr;  // a sched_waking there since (the latest)
  };
  std::vector<Cpu> cpus;
  std::vector<TraceEvent> added;
  // The priority and comm each pid was last seen with (for the inserted switch's next side).
  struct Seen {
    TraceComm comm{};
    int32_t prio = 120;
  };
  std::vector<std::pair<int32_t, Seen>> seen_list;
  auto remember = [&](int32_t pid, const TraceComm& comm, int32_t prio) {
    for (auto& [p, s] : seen_list) {
      if (p == pid) {
        s = {comm, prio};
        return;
      }
    }
    seen_list.push_back({pid, {comm, prio}});
  };
  auto seen = [&](int32_t pid) -> const Seen* {
    for (const auto& [p, s] : seen_list) {
      if (p == pid) return &s;
    }
    return nullptr;
  };
  for (const TraceEvent& e : events) {
    if (e.cpu < 0) continue;
    if (static_cast<size_t>(e.cpu) >= cpus.size()) cpus.resize(static_cast<size_t>(e.cpu) + 1);
    Cpu& c = cpus[static_cast<size_t>(e.cpu)];
    if (e.current >= 0 && c.pid < 0) {  // the first event there: who runs, without a gap
      c.pid = e.current;
      if (const Seen* s = seen(e.current)) {
        c.comm = s->comm;
        c.prio = s->prio;
      }
    }
    if (e.current >= 0 && e.current != c.pid) {
      TraceEvent sw;
      sw.kind = TraceKind::kSwitch;
      sw.cpu = e.cpu;
      sw.current = c.pid;
      sw.pid = c.pid;
      sw.comm = c.comm;
      sw.prio = c.prio;
      sw.prev_state = '?';
      sw.next_pid = e.current;
      if (c.woken != nullptr && c.woken->pid == e.current) {
        // Not before the CPU's previous event, which still showed the old task.
        sw.t_ns = std::max(c.woken->t_ns, c.last_t);
        sw.next_comm = c.woken->comm;
        sw.next_prio = c.woken->prio;
      } else {
        sw.t_ns = c.last_t;
        if (const Seen* s = seen(e.current)) {
          sw.next_comm = s->comm;
          sw.next_prio = s->prio;
        } else {
          set_comm(sw.next_comm, "?");
          sw.next_prio = 120;
        }
      }
      added.push_back(sw);
      c.pid = sw.next_pid;
      c.comm = sw.next_comm;
      c.prio = sw.next_prio;
    }
    c.last_t = e.t_ns;
    switch (e.kind) {
      case TraceKind::kSwitch:
        c.pid = e.next_pid;
        c.comm = e.next_comm;
        c.prio = e.next_prio;
        c.woken = nullptr;
        remember(e.pid, e.comm, e.prio);
        remember(e.next_pid, e.next_comm, e.next_prio);
        break;
      case TraceKind::kWaking: {
        // Recorded on the waker's CPU; the task goes to target_cpu.
        const size_t target = static_cast<size_t>(e.num >= 0 ? e.num : e.cpu);
        remember(e.pid, e.comm, e.prio);
        if (target >= cpus.size()) cpus.resize(target + 1);
        cpus[target].woken = &e;
        break;
      }
      default:
        break;
    }
  }
  if (added.empty()) return 0;
  // Found in the order of the events that revealed them; their times go back to a wake-up.
  std::stable_sort(added.begin(), added.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.t_ns < b.t_ns; });
  std::vector<TraceEvent> merged;
  merged.reserve(events.size() + added.size());
  std::merge(events.begin(), events.end(), added.begin(), added.end(), std::back_inserter(merged),
             [](const TraceEvent& a, const TraceEvent& b) { return a.t_ns < b.t_ns; });
  events = std::move(merged);
  return added.size();
}

}  // namespace xrunlab

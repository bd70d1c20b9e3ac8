// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/attached_server.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/base/file.hpp"
#include "engine/jack/jack_registry.hpp"

namespace xrunlab {

AttachedServer read_attached_server(const std::string& name, const std::string& registry_path) {
  AttachedServer s;
  s.name = name;
  const std::optional<std::string> image = read_file(registry_path);
  if (!image) {
    s.why = "no JACK2 server registry (" + registry_path + "), as under PipeWire's JACK";
    return s;
  }
  std::string why;
  const auto entries = parse_jack_registry(*image, &why);
  if (!entries) {
    s.why = "the server registry is unreadable: " + why;
    return s;
  }
  const std::string needle = ":" + name + ":";
  for (const RegistryEntry& e : *entries) {
    if (e.name.find(needle) != std::string::npos && e.pid > 0) s.pid = e.pid;
  }
  if (!s.pid) {
    s.why = "not in JACK2's server registry (PipeWire's JACK keeps none)";
    return s;
  }
  const std::vector<pid_t> tids = list_threads(*s.pid);
  if (tids.empty()) {
    s.why = fmt::format("its process {} is not readable in /proc", *s.pid);
    return s;
  }
  for (pid_t tid : tids) {
    const auto t = read_thread_sched(*s.pid, tid, nullptr);
    if (t && (t->policy == kSchedFifo || t->policy == kSchedRr)) s.rt_threads.push_back(*t);
  }
  std::stable_sort(
      s.rt_threads.begin(), s.rt_threads.end(),
      [](const ThreadSched& a, const ThreadSched& b) { return a.rt_priority > b.rt_priority; });
  return s;
}

std::string describe_attached_server(const AttachedServer& s) {
  if (!s.pid) return fmt::format("attached server '{}': threads unknown ({})", s.name, s.why);
  if (!s.why.empty()) {
    return fmt::format("attached server '{}' (pid {}): threads unknown ({})", s.name, *s.pid,
                       s.why);
  }
  if (s.rt_threads.empty()) {
    return fmt::format("attached server '{}' (pid {}): no realtime thread", s.name, *s.pid);
  }
  const ThreadSched& top = s.rt_threads.front();
  std::string out = fmt::format("attached server '{}' (pid {}): {} {}", s.name, *s.pid,
                                policy_name(top.policy), top.rt_priority);
  if (s.rt_threads.size() > 1) {
    out += fmt::format(" ({} realtime threads, highest shown)", s.rt_threads.size());
  }
  return out;
}

std::string attached_scheduling_label(const std::string& clients, const AttachedServer& s) {
  return fmt::format("{} (clients); {}", clients, describe_attached_server(s));
}

}  // namespace xrunlab

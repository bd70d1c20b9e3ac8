// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/proc_stat.hpp"

#include <time.h>

#include <charconv>
#include <string>
#include <system_error>

#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"

namespace xrunlab {
namespace {

void skip_blanks(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

// Parses the next blank-separated unsigned number; false at end of line or on junk.
bool next_u64(std::string_view& s, uint64_t& out) {
  skip_blanks(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc()) return false;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return s.empty() || s.front() == ' ' || s.front() == '\t' || s.front() == '\r';
}

bool parse_cpu_fields(std::string_view s, CpuTimes& cpu) {
  uint64_t* fields[] = {&cpu.user,   &cpu.nice, &cpu.system,  &cpu.idle,
                        &cpu.iowait, &cpu.irq,  &cpu.softirq, &cpu.steal};
  size_t parsed = 0;
  for (uint64_t* f : fields) {
    if (!next_u64(s, *f)) break;
    ++parsed;
  }
  return parsed >= 4;
}

uint64_t delta(uint64_t a, uint64_t b) {
  return b > a ? b - a : 0;
}

int64_t now_monotonic_raw_us() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

}  // namespace

uint64_t CpuTimes::total() const {
  return user + nice + system + idle + iowait + irq + softirq + steal;
}

std::optional<ProcStatSnapshot> parse_proc_stat(std::string_view text) {
  ProcStatSnapshot snap;
  bool have_cpu = false, have_intr = false, have_ctxt = false;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);

    if (!have_cpu && line.substr(0, 4) == "cpu ") {
      if (!parse_cpu_fields(line.substr(4), snap.cpu)) return std::nullopt;
      have_cpu = true;
    } else if (!have_intr && line.substr(0, 5) == "intr ") {
      line.remove_prefix(5);
      if (!next_u64(line, snap.intr)) return std::nullopt;
      have_intr = true;
    } else if (!have_ctxt && line.substr(0, 5) == "ctxt ") {
      line.remove_prefix(5);
      if (!next_u64(line, snap.ctxt)) return std::nullopt;
      have_ctxt = true;
    }
  }
  if (!have_cpu || !have_intr || !have_ctxt) return std::nullopt;
  return snap;
}

std::optional<ProcStatSnapshot> read_proc_stat(const std::string& path) {
  // The kernel renders /proc/stat at the first read, so the time is taken just before reading.
  const int64_t taken_us = now_monotonic_raw_us();
  const std::optional<std::string> text = read_file(path);
  if (!text) return std::nullopt;
  std::optional<ProcStatSnapshot> snap = parse_proc_stat(*text);
  if (snap) snap->taken_us = taken_us;
  return snap;
}

SystemSample diff_proc_stat(const ProcStatSnapshot& a, const ProcStatSnapshot& b, double t_s) {
  SystemSample s;
  s.t_s = t_s;
  const CpuTimes& x = a.cpu;
  const CpuTimes& y = b.cpu;
  const uint64_t d_user = delta(x.user, y.user), d_nice = delta(x.nice, y.nice),
                 d_system = delta(x.system, y.system), d_idle = delta(x.idle, y.idle),
                 d_iowait = delta(x.iowait, y.iowait), d_irq = delta(x.irq, y.irq),
                 d_softirq = delta(x.softirq, y.softirq), d_steal = delta(x.steal, y.steal);
  const uint64_t total =
      d_user + d_nice + d_system + d_idle + d_iowait + d_irq + d_softirq + d_steal;
  if (total > 0) {
    const double scale = 100.0 / static_cast<double>(total);
    s.user_pct = static_cast<double>(d_user) * scale;
    s.nice_pct = static_cast<double>(d_nice) * scale;
    s.system_pct = static_cast<double>(d_system) * scale;
    s.iowait_pct = static_cast<double>(d_iowait) * scale;
    s.irq_pct = static_cast<double>(d_irq) * scale;
    s.softirq_pct = static_cast<double>(d_softirq) * scale;
  }
  const int64_t elapsed_us = b.taken_us - a.taken_us;
  if (elapsed_us > 0) {
    const double per_s = 1e6 / static_cast<double>(elapsed_us);
    s.intr_per_s = static_cast<double>(delta(a.intr, b.intr)) * per_s;
    s.ctxt_per_s = static_cast<double>(delta(a.ctxt, b.ctxt)) * per_s;
  }
  return s;
}

std::optional<uint64_t> process_cpu_ticks(pid_t pid) {
  const auto stat = read_proc_pid_stat(pid);
  if (!stat) return std::nullopt;
  return stat->utime + stat->stime;
}

}  // namespace xrunlab

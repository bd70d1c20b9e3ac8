// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/trace/xrun_trace.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/system/clock.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

void XrunTrace::check_available(const std::string& root) {
  TraceSession::check_available(root, "--trace-on-xrun");
  if (!find_program("trace-cmd")) {
    throw Error(ExitCode::kMissingProgram,
                "--trace-on-xrun needs trace-cmd to write the trace file: install it (Debian "
                "package trace-cmd: apt-get install trace-cmd) or leave --trace-on-xrun out");
  }
}

XrunTrace::XrunTrace(SysJournal& journal, std::string root, int buffer_kb_per_cpu)
    : journal_(journal), root_(std::move(root)), buffer_kb_(buffer_kb_per_cpu) {}

void XrunTrace::start() {
  if (started_) return;
  started_ = true;
  instance_ =
      make_trace_instance(journal_, root_, "xrunlab-" + std::to_string(::getpid()) + "-xrun",
                          buffer_kb_, "--trace-on-xrun");
  journal_.write_setting(instance_ + "/tracing_on", "1");
}

void XrunTrace::freeze(int64_t xrun_mono_ns) noexcept {
  if (!started_ || stopped_ || xrun_mono_ns_) return;
  set_tracing_on(instance_, false);
  frozen_mono_ns_ = mono_ns();  // after the write: before it, events were still being recorded
  xrun_mono_ns_ = xrun_mono_ns;
}

void XrunTrace::stop() noexcept {
  if (!started_ || stopped_) return;
  stopped_ = true;
  set_tracing_on(instance_, false);
}

std::optional<int64_t> covered_from_ns(const std::vector<std::string>& per_cpu_stats) {
  std::optional<int64_t> from;
  for (const std::string& text : per_cpu_stats) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      const std::string key = "oldest event ts:";
      if (line.rfind(key, 0) != 0) continue;
      const double s = std::strtod(line.c_str() + key.size(), nullptr);
      const auto ns = static_cast<int64_t>(std::llround(s * 1e9));
      if (!from || ns > *from) from = ns;
    }
  }
  return from;
}

XrunTraceRecord XrunTrace::save(const std::string& path, const std::string& log_path) {
  XrunTraceRecord j;
  j.instance = instance_;
  j.buffer_kb_per_cpu = buffer_kb_;
  stop();
  if (!xrun_mono_ns_) {
    j.error = "no xrun during the window: nothing saved";
    return j;
  }
  j.xrun_mono_ns = *xrun_mono_ns_;
  j.frozen_mono_ns = frozen_mono_ns_;
  std::vector<std::string> stats;
  for (int cpu = 0;; ++cpu) {
    const auto text = read_file(instance_ + "/per_cpu/cpu" + std::to_string(cpu) + "/stats");
    if (!text) break;
    stats.push_back(*text);
  }
  if (const auto from = covered_from_ns(stats)) {
    j.oldest_mono_ns = *from;
    j.covered_before_xrun_ms = static_cast<double>(*xrun_mono_ns_ - *from) / 1e6;
  }
  const std::string name = instance_.substr(instance_.rfind('/') + 1);
  const std::vector<std::string> argv = {"trace-cmd", "extract", "-B", name, "-o", path};
  j.argv = argv;
  try {
    SpawnSpec spec;
    spec.argv = argv;
    spec.output_path = log_path;
    Child c = Child::spawn(spec);
    if (!c.wait_for(std::chrono::seconds(60))) {
      c.stop(std::chrono::milliseconds(500));
      j.error = "trace-cmd extract did not finish within 60 s (its output: " + log_path + ")";
      return j;
    }
    const std::optional<int> st = c.wait_status();
    if (!st || !WIFEXITED(*st) || WEXITSTATUS(*st) != 0) {
      j.error = "trace-cmd extract " + c.describe_exit() + " (its output: " + log_path + ")";
      return j;
    }
  } catch (const std::exception& e) {
    j.error = e.what();
    return j;
  }
  j.file = path.substr(path.rfind('/') + 1);
  return j;
}

}  // namespace xrunlab

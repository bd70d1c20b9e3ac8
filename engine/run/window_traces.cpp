// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/window_traces.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "engine/base/file.hpp"
#include "engine/system/clock.hpp"

namespace xrunlab {

ExplainRecord explain_section(int requested, const std::string& instance, const TraceStats& st,
                              const TraceCoverage& coverage, const std::vector<double>& steal,
                              std::vector<ExplainedCycle> cycles) {
  ExplainRecord e;
  e.requested = requested;
  e.trace.instance = instance;
  e.trace.events = st.events;
  e.trace.lost_kernel = st.lost_kernel;
  e.trace.dropped_store = st.dropped_store;
  e.trace.unparsed_lines = st.unparsed_lines;
  e.trace.unseen_switches = st.unseen_switches;
  e.trace.coverage_ns = {coverage.start_ns, coverage.end_ns};
  e.trace.cpu_steal_pct = steal;
  e.cycles = std::move(cycles);
  return e;
}

void WindowTraces::check_available() const {
  if (explain_ > 0) TraceSession::check_available();
  if (on_xrun_) XrunTrace::check_available();
}

std::vector<std::string> WindowTraces::start() {
  std::vector<std::string> said;
  if (on_xrun_) {
    xrun_ = std::make_unique<XrunTrace>(journal_);
    xrun_->start();
    said.push_back(
        fmt::format("keeping a trace ring in {} for --trace-on-xrun (frozen at the first xrun)",
                    xrun_->instance()));
  }
  if (explain_ > 0) {
    trace_ = std::make_unique<TraceSession>(journal_);
    trace_->start();
    start_ns_ = mono_ns();
    stat_before_ = read_file("/proc/stat").value_or("");
    said.push_back(fmt::format("tracing the scheduler and interrupts in {} for --explain",
                               trace_->instance()));
  }
  return said;
}

void WindowTraces::freeze(int64_t xrun_mono_ns) noexcept {
  if (waiting_for_xrun()) xrun_->freeze(xrun_mono_ns);
}

void WindowTraces::explain(LiveResult& live, int64_t t0_ns, const CycleRow* also) {
  if (!trace_) return;
  trace_->stop();
  const int64_t stop_ns = mono_ns();
  const std::vector<double> steal =
      steal_pct_per_cpu(stat_before_, read_file("/proc/stat").value_or(""));
  const TraceStats st = trace_->stats();
  // Complete up to tracing off, unless the store filled: then up to its last event.
  const TraceCoverage coverage{start_ns_, st.dropped_store > 0 ? st.last_ns : stop_ns};
  ExplainThreads threads;
  live.with([&](const RunResult& r) {
    for (const AudioThread& t : r.threads_start) {
      if (t.role == "server") threads.jackd_tid = t.sched.tid;
    }
    for (const ClientResult& c : r.client_results) {
      threads.client_tids.push_back(static_cast<pid_t>(c.rt_tid));
      threads.client_names.push_back(fmt::format("c{:02d}", c.index));
    }
  });
  live.with([&](RunResult& r) {
    size_t n = static_cast<size_t>(explain_);
    const CycleTableResult* table = &r.cycle_table;
    CycleTableResult with_also;
    if (also != nullptr) {
      with_also = r.cycle_table;
      auto& w = with_also.worst;
      w.erase(std::remove_if(w.begin(), w.end(),
                             [&](const CycleRow& row) { return row.id == also->id; }),
              w.end());
      w.insert(w.begin(), *also);
      table = &with_also;
      ++n;
    }
    std::vector<ExplainedCycle> cycles =
        explain_cycles(trace_->events(), *table, n, threads, t0_ns, coverage, proc_policy, steal);
    r.explain =
        explain_section(explain_, trace_->instance(), st, coverage, steal, std::move(cycles));
    if (st.lost_kernel > 0) {
      r.warnings.push_back(fmt::format(
          "--explain: the kernel lost {} trace events (its buffer overran); a window with lost "
          "events may miss a task or an interrupt",
          st.lost_kernel));
    }
  });
}

std::string WindowTraces::save_xrun_trace(LiveResult& live, const std::string& run_dir) {
  if (!xrun_) return "";
  XrunTraceRecord j = xrun_->save(run_dir + "/xrun-trace.dat", run_dir + "/trace-cmd.log");
  std::string said;
  if (j.file) {
    said = fmt::format(
        "--trace-on-xrun: the ring frozen at the first xrun is in {}/xrun-trace.dat{}", run_dir,
        j.covered_before_xrun_ms
            ? fmt::format(" (from {:.0f} ms before the xrun)", *j.covered_before_xrun_ms)
            : std::string());
  }
  const bool lost = !j.file && xrun_->frozen();
  live.with([&](RunResult& r) {
    if (lost) r.warnings.push_back("--trace-on-xrun: " + j.error.value_or("unknown"));
    r.trace_on_xrun = std::move(j);
  });
  return said;
}

void WindowTraces::stop() noexcept {
  if (trace_) trace_->stop();
  if (xrun_) xrun_->stop();
}

}  // namespace xrunlab

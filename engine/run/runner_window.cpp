// SPDX-License-Identifier: GPL-2.0-or-later
// The Runner's measurement window (engine/run/runner.hpp): the threads checked, the window
// planned and announced to the clients, the loop (engine/run/measurement_loop.hpp) with the
// Runner's steps for it, then what everything measured collected into the result.
#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "engine/base/file.hpp"
#include "engine/base/text.hpp"
#include "engine/run/runner.hpp"
#include "engine/run/stop_reason.hpp"
#include "engine/system/proc_stat.hpp"

namespace xrunlab::run_steps {
namespace {

using std::chrono::milliseconds;

// CLOCK_MONOTONIC minus JACK time (jack_get_time()), in ns, now: read back to back.
int64_t mono_minus_jack_ns(Monitor& monitor) {
  timespec a{}, b{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  const uint64_t jack_us = monitor.now_us();
  clock_gettime(CLOCK_MONOTONIC, &b);
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; };
  return (ns(a) + ns(b)) / 2 - static_cast<int64_t>(jack_us) * 1000;
}

// The engine's shared memory in its resident set (/proc/self/status RssShmem), in KiB.
std::optional<long> rss_shmem_kib() {
  const auto status = read_file("/proc/self/status");
  if (!status) return std::nullopt;
  const auto shmem = key_value(*status, "RssShmem");
  long kib = 0;
  if (!shmem || std::sscanf(std::string(*shmem).c_str(), "%ld", &kib) != 1) return std::nullopt;
  return kib;
}

}  // namespace

std::vector<ClientThread> Runner::client_threads() {
  std::vector<ClientThread> out;
  live_.with([&](const RunResult& r) {
    for (const ClientResult& c : r.client_results) {
      out.push_back({c.name, static_cast<pid_t>(c.pid), static_cast<pid_t>(c.rt_tid)});
    }
  });
  return out;
}

void Runner::measure() {
  // Every audio thread in its class before anything is measured: a thread that is not is a
  // failed run, not a footnote.
  policy_.start_governor(session_.jackd_pid(), client_threads());
  {
    std::vector<AudioThread> threads = policy_.read(session_.jackd_pid(), client_threads());
    const std::string bad = first_mismatch(threads);
    live_.with([&](RunResult& r) { r.threads_start = std::move(threads); });
    if (!bad.empty()) {
      // A thread that cannot be read because its process died: that death is what failed.
      if (std::string gone = server_end_within([&] { return session_.ended(); }); !gone.empty()) {
        throw Error(ExitCode::kServerFailed, gone);
      }
      if (std::string ended = fleet_.first_ended(); !ended.empty()) {
        throw Error(ExitCode::kClientsFailed, "client " + ended);
      }
      throw Error(ExitCode::kRunFailed, bad);
    }
  }
  for (const std::string& said : traces_.start()) say(said);
  const uint64_t planned_end = open_window();
  const auto jackd_ticks0 =
      session_.launched() ? process_cpu_ticks(session_.jackd_pid()) : std::nullopt;
  const WindowEnd end = run_window(window_.t0, planned_end, *this);
  // The window is over: nothing may print after the progress line (stdout's summary included).
  progress_.clear();
  if (jackd_ticks0 && end.end_us > window_.t0) {
    if (const auto ticks1 = process_cpu_ticks(session_.jackd_pid())) {
      const double cpu_s = static_cast<double>(*ticks1 - *jackd_ticks0) /
                           static_cast<double>(::sysconf(_SC_CLK_TCK));
      live_.with([&](RunResult& r) {
        r.jackd_cpu_pct = 100.0 * cpu_s / (static_cast<double>(end.end_us - window_.t0) / 1e6);
      });
    }
  }
  close_window(end);
}

uint64_t Runner::open_window() {
  Monitor& monitor = session_.monitor();
  // The window starts a little in the future so every client knows it before it begins.
  const uint64_t t0 = monitor.now_us() + 300000;
  window_.t0 = t0;
  window_start_us_ = t0;
  tap_.open_window(t0);
  // t_begin_us_ is CLOCK_MONOTONIC_RAW, t0 JACK time (not the same clock under PipeWire).
  const double startup_s = (static_cast<double>(mono_raw_us() - t_begin_us_) +
                            (static_cast<double>(t0) - static_cast<double>(monitor.now_us()))) /
                           1e6;
  live_.with([&](RunResult& r) { r.startup_s = startup_s; });
  mark("window planned");
  monitor.set_window_start(t0);
  xruns_.open_at(t0);
  const uint64_t planned_end = t0 + static_cast<uint64_t>(o_.duration_s * 1e6);
  // The clients know the planned end from the start: no cycle after it is ever counted, however
  // late the stop command arrives.
  fleet_.send(fmt::format("start {} {}\n", t0, planned_end));
  say(fmt::format("measuring for {} s (Ctrl-C stops early and keeps the results)", o_.duration_s));
  while (monitor.now_us() < t0) std::this_thread::sleep_for(milliseconds(1));
  window_.xrun_events0 = monitor.events_total();
  window_.sampler.emplace(t0, window_.xrun_events0);
  backend_->set_window(t0, 0);
  // The cycle table's clock (CLOCK_MONOTONIC) for the window's JACK times: JACK2's
  // jack_get_time() is CLOCK_MONOTONIC_RAW, PipeWire's CLOCK_MONOTONIC, so the offset is
  // measured against the libjack in use rather than assumed.
  window_.mono_offset_ns = mono_minus_jack_ns(monitor);
  if (cycle_reader_) cycle_reader_->set_window(window_.t0_ns(), INT64_MAX);
  return planned_end;
}

StopReason Runner::stop_reason() {
  if (!disk_full_.empty()) return {StopKind::kDiskFull, disk_full_};
  if (std::string ended = session_.ended(); !ended.empty()) {
    return {StopKind::kServerEnded, std::move(ended)};
  }
  if (std::string runaway = runaway_.check(fleet_, live_); !runaway.empty()) {
    return {StopKind::kRunaway, std::move(runaway)};
  }
  if (std::string ended = fleet_.first_ended(); !ended.empty()) {
    // A client ended by its server's death: the server is the cause.
    if (std::string gone = server_end_within([&] { return session_.ended(); }); !gone.empty()) {
      return {StopKind::kServerEnded, std::move(gone)};
    }
    return {StopKind::kClientEnded, std::move(ended)};
  }
  if (std::string load = loads_.check_running(); !load.empty()) {
    return {StopKind::kLoadEnded, std::move(load)};
  }
  if (cycle_reader_ != nullptr && cycle_reader_->joiner().ramp() != nullptr &&
      cycle_reader_->joiner().ramp()->has_first_xrun()) {
    return {StopKind::kRampEnded, "the DSP ramp reached its first xrun"};
  }
  return {};
}

void Runner::start_ramp() {
  if (!o_.ramp || ramp_sent_ || !cycle_reader_) return;
  const std::optional<uint64_t> newest = cycle_reader_->newest_id();
  if (!newest) return;
  const double cycles_per_s =
      static_cast<double>(session_.rate()) / std::max<uint32_t>(session_.frames(), 1);
  const auto lead = static_cast<uint64_t>(std::max(2.0, std::ceil(kRampLeadS * cycles_per_s)));
  const uint64_t from = *newest + lead;
  fleet_.send(fmt::format("ramp {}\n", from));
  cycle_reader_->joiner().set_ramp_from(from);
  ramp_sent_ = true;
}

void Runner::record_ramp(const WindowEnd& end) {
  if (!o_.ramp || !cycle_reader_ || cycle_reader_->joiner().ramp() == nullptr) return;
  const RampTracker& tracker = *cycle_reader_->joiner().ramp();
  RampRecord rec;
  rec.step_pct = o_.ramp->step_pct;
  rec.every = ramp_every_;
  rec.ns_per_stage = ramp_ns_per_stage_;
  rec.start_pct = o_.dsp_load_pct;
  rec.top_pct = kRampTopPct;
  rec.from_cycle = tracker.from();
  rec.reached_pct = tracker.reached_pct();
  rec.first_xrun = cycle_reader_->joiner().ramp_first_xrun();
  // The clients' stages are whole numbers: the top they reach is the largest whole number of
  // stages within it, a little below 100 %; one step below it is "reached".
  const bool reached_top = rec.reached_pct >= rec.top_pct - rec.step_pct;
  if (rec.first_xrun) {
    rec.ended = "first_xrun";
  } else if (reached_top && !end.reason.stopped()) {
    rec.ended = "full";
  } else {
    rec.ended = "stopped";
  }
  live_.with([&](RunResult& r) {
    // --explain: the kernel's reason for the breaking hop, when the first xrun cycle is one of
    // the cycles it explained.
    if (rec.first_xrun && rec.first_xrun->broke && r.explain) {
      rec.first_xrun->broke->cause =
          explained_cause(*r.explain, rec.first_xrun->cycle, rec.first_xrun->broke->key);
    }
    r.ramp = std::move(rec);
  });
}

void Runner::watch() {
  // --trace-on-xrun: the ring is frozen as soon as the first xrun of the window is seen.
  Monitor& monitor = session_.monitor();
  if (traces_.waiting_for_xrun() && monitor.events_total() > window_.xrun_events0) {
    const std::optional<uint64_t> last = monitor.last_callback_us();
    traces_.freeze(last ? window_.mono_ns_of(*last) : mono_ns());
  }
}

void Runner::sample(uint64_t until) {
  Monitor& monitor = session_.monitor();
  SystemSecond s = window_.sampler->sample(until, monitor.cpu_load(), monitor.events_total());
  live_.with([&](RunResult& r) { r.system.push_back(s); });
}

void Runner::poll(uint64_t now) {
  backend_->poll();
  if (!cycle_reader_) return;
  cycle_reader_->poll(window_.mono_ns_of(now));
  start_ramp();
  const double period_ms = 1e3 * session_.frames() / std::max<uint32_t>(session_.rate(), 1);
  xruns_.settle(cycle_reader_->joiner(), live_, static_cast<double>(now - window_.t0) / 1e6,
                period_ms);
}

void Runner::progress(uint64_t elapsed_us) {
  ProgressFigures f;
  f.elapsed_s = elapsed_us / 1000000;
  f.duration_s = o_.duration_s;
  f.monitor_xrun_events = session_.monitor().events_total();
  if (cycle_reader_) {
    // The events counted and forgotten so far and those still held: the result's count.
    f.xrun_events = xruns_.ledger().settled().events + cycle_reader_->joiner().xrun_runs().size() +
                    xruns_.ledger().settled_causes().outside_events;
    f.slack_min_ns = cycle_reader_->slack_min_ns();
  }
  if (progress_mode_ == ProgressMode::kTerminal) {
    // The width each time: the terminal may have been resized.
    progress_.show(progress_text(f, kProgressBarCells), terminal_columns(STDERR_FILENO));
    return;
  }
  if (next_plain_s_ == 0) next_plain_s_ = plain_line_every_s(o_.duration_s);  // none at 0 s
  if (f.elapsed_s >= next_plain_s_) {
    progress_.line(progress_text(f));
    next_plain_s_ = f.elapsed_s + plain_line_every_s(o_.duration_s);
  }
}

void Runner::checkpoint(uint64_t now) {
  // The cycles joined so far go into the checkpoint too (this thread is the reader's), so an
  // engine killed with SIGKILL keeps them; the end of the run replaces them with all of them.
  std::optional<CycleTableResult> table;
  std::optional<JackTestFields> jack_test;
  XrunReports reports;
  if (cycle_reader_) {
    table = cycle_reader_->table();
    jack_test = cycle_reader_->jack_test();
    reports = xruns_.pending(cycle_reader_->joiner(), /*horizon=*/true);
  }
  const CheckpointFiles files = live_.with([&](RunResult& r) {
    if (table) r.cycle_table = std::move(*table);
    if (jack_test) r.jack_test = std::move(*jack_test);
    if (table) xruns_.count(r, cycle_reader_->joiner(), reports);
    return checkpoints_.render(r, static_cast<double>(now - window_.t0) / 1e6);
  });
  const CheckpointWrite written = checkpoints_.write(files);
  if (written.disk_full) {
    // A full disk stops the run: the rest of the window could not be kept either.
    disk_full_ = written.message;
    say("stopping the run: " + disk_full_);
  } else if (!written.ok) {
    say("warning: checkpoint failed: " + written.message);
  }
  // A checkpoint builds run.json (megabytes once the bounded lists are full: about 20 MB of JSON
  // nodes) and frees it; glibc keeps freed pages inside its heap unless asked, so the engine's
  // RSS would otherwise keep the largest checkpoint for the rest of the run.
  ::malloc_trim(0);
}

void Runner::close_window(const WindowEnd& end) {
  const uint64_t t0 = window_.t0;
  // The audio threads once more, while everything still runs: before the clients hear the stop,
  // after which each closes its JACK client (and its process thread) once its last cycles are
  // counted. A client whose planned window ended waits for the stop before it closes, so this
  // read finds its thread however late a loaded machine lets it run (xrunlab-client's
  // control_window).
  std::vector<AudioThread> threads_end = policy_.read(session_.jackd_pid(), client_threads());
  std::string bad_end = first_mismatch(threads_end);
  // jackd gone at the very end: its death, not its unreadable thread, is what the run says.
  if (!bad_end.empty()) {
    if (std::string gone = server_end_within([&] { return session_.ended(); }); !gone.empty()) {
      bad_end = std::move(gone);
    }
  }
  // The window's end to every client at once (an early stop moves it before the planned end).
  fleet_.send(fmt::format("stop {}\n", end.end_us));
  // A stopped run keeps its last partial second of system data too.
  if (end.end_us > end.last_sample_us + 200000) sample(end.end_us);
  std::optional<IsoReport> iso = policy_.stop_governor();
  if (iso) live_.with([&](RunResult& r) { r.iso_emulation = std::move(iso); });
  // Collect the clients' last seconds.
  backend_->set_window(t0, end.end_us);
  mark("window ended");
  if (const std::optional<long> kib = rss_shmem_kib()) {
    live_.with([&](RunResult& r) { r.engine_rss_shmem_kib = *kib; });
  }
  stop_loads_into_result(t0);
  baseline_.stop();
  ping_.stop();
  tap_.close_window(end.end_us + 20000);  // late notifications of the last cycle still count
  xruns_.close_at(end.end_us + 20000);
  const double seconds_ran = static_cast<double>(end.end_us - t0) / 1e6;
  const WindowVerdict verdict =
      window_verdict(end.reason, bad_end, runaway_.tripped(), seconds_ran);
  failure_code_ = verdict.code;
  live_.with([&](RunResult& r) {
    r.seconds_ran = seconds_ran;
    r.threads_end = std::move(threads_end);
    r.status = verdict.status;
    r.status_detail = verdict.detail;
  });
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(1200);
  while (std::chrono::steady_clock::now() < deadline && !fleet_.all_done(live_)) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  std::this_thread::sleep_for(milliseconds(25));  // late xrun notifications of the last cycle
  XrunCounts x = session_.monitor().xrun_snapshot();
  tap_.fill(x);
  live_.with([&](RunResult& r) { r.xruns = std::move(x); });
  collect_cycles(window_.mono_ns_of(end.end_us));
  const CycleRow* ramp_row = cycle_reader_ && cycle_reader_->joiner().ramp() != nullptr
                                 ? cycle_reader_->joiner().ramp()->first_row()
                                 : nullptr;
  traces_.explain(live_, window_.t0_ns(), ramp_row);
  record_ramp(end);
  if (const std::string said = traces_.save_xrun_trace(live_, run_dir_); !said.empty()) say(said);
  mark("clients' results collected");
}

void Runner::collect_cycles(int64_t end_ns) {
  if (!cycle_reader_) return;
  cycle_reader_->set_window(window_.t0_ns(), end_ns);
  cycle_reader_->poll(0, /*final=*/true);
  CycleTableResult table = cycle_reader_->table();
  JackTestFields jt = cycle_reader_->jack_test();
  const XrunReports reports = xruns_.pending(cycle_reader_->joiner(), /*horizon=*/false);
  live_.with([&](RunResult& r) {
    // A real card's "xrun of at least N msecs" is JACK1's xrun delay too (ALSA's trigger time
    // stamp to now); on the vcard the card's record gives it exactly instead.
    if (backend_->card_record() == nullptr && r.xruns.log_driver_xruns > 0 &&
        backend_->name() == "alsa") {
      jt.delay_max_us = std::max(jt.delay_max_us.value_or(0.0), r.xruns.log_driver_max_delay_us);
    }
    r.cycle_table = std::move(table);
    r.jack_test = std::move(jt);
    xruns_.count(r, cycle_reader_->joiner(), reports);
  });
}

}  // namespace xrunlab::run_steps

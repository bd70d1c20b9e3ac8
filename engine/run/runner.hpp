// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The Runner: one run's steps (engine/run/run_sequence.hpp orders them) and the units it holds,
// one each: the programs (run_programs), the server (server_session), the clients
// (client_fleet), their wiring (wiring), their telemetry (line_hub, jackd_log_tap,
// client_telemetry), the window's timing (measurement_loop), the machine's seconds
// (system_sampler), the audio threads (audio_threads), the xrun reports (xrun_accounting), the
// checkpoints (checkpoint_writer), the timer baseline (cyclictest_baseline), the kernel traces
// (window_traces), the warnings (run_warnings) and the teardown (teardown). The Runner passes
// data between them; it is the one place that knows them all. Its steps are in four files:
//   run.cpp            construction, preflight and the run folder, the final files
//   runner_start.cpp   the server, the clients, the graph, the loads, the baseline
//   runner_window.cpp  the measurement window and what is collected at its end
//   runner_stop.cpp    the one exit path that stops everything and restores the system
// Internal to engine/run: the API is engine/run/run.hpp. Non-realtime.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/janitor/janitor_link.hpp"
#include "engine/loads/loads.hpp"
#include "engine/ping/ping_companion.hpp"
#include "engine/run/audio_threads.hpp"
#include "engine/run/checkpoint_writer.hpp"
#include "engine/run/client_fleet.hpp"
#include "engine/run/cycle_table_reader.hpp"
#include "engine/run/cyclictest_baseline.hpp"
#include "engine/run/jackd_log_tap.hpp"
#include "engine/run/line_hub.hpp"
#include "engine/run/live_result.hpp"
#include "engine/run/measurement_loop.hpp"
#include "engine/run/progress.hpp"
#include "engine/run/rt_time_limit.hpp"
#include "engine/run/run.hpp"
#include "engine/run/run_programs.hpp"
#include "engine/run/run_sequence.hpp"
#include "engine/run/runaway_watchdog.hpp"
#include "engine/run/server_session.hpp"
#include "engine/run/system_sampler.hpp"
#include "engine/run/window_traces.hpp"
#include "engine/run/xrun_accounting.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/system/clock.hpp"
#include "engine/system/dma_latency.hpp"
#include "engine/system/process.hpp"

namespace xrunlab::run_steps {

// The xrun reports of the run's own server: the monitor's callbacks and jackd's log lines.
class SessionXrunSource : public XrunReportSource {
 public:
  SessionXrunSource(ServerSession& session, JackdLogTap& tap) : session_(session), tap_(tap) {}
  void take_callbacks(std::vector<XrunCallback>& out, bool* cut) override {
    session_.monitor().take_callbacks(out, cut);
  }
  void take_log_lines(std::vector<XrunLogLine>& lines, bool* cut) override {
    tap_.take_xrun_lines(lines, cut);
  }
  std::vector<LogXrunEvent> log_events() override { return tap_.log_events(); }

 private:
  ServerSession& session_;
  JackdLogTap& tap_;
};

// The measurement window as the loop sees it (engine/run/measurement_loop.hpp).
struct Window {
  uint64_t t0 = 0;             // JACK time, µs
  int64_t mono_offset_ns = 0;  // CLOCK_MONOTONIC minus JACK time
  uint64_t xrun_events0 = 0;   // the monitor's xrun events before the window
  std::optional<SystemSampler> sampler;
  int64_t t0_ns() const { return static_cast<int64_t>(t0) * 1000 + mono_offset_ns; }
  int64_t mono_ns_of(uint64_t jack_us) const {
    return static_cast<int64_t>(jack_us) * 1000 + mono_offset_ns;
  }
};

class Runner : public RunSteps, private WindowSteps {
 public:
  Runner(const RunOptions& o, const std::vector<std::string>& command_line,
         const std::string& self_exe, const std::atomic<bool>& stop);
  ~Runner() override {
    stop_all();
    janitor_.finish();  // the run's files are written: nothing for it to do
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  RunOutcome run();

  // The steps, in the order of engine/run/run_sequence.hpp.
  void prepare() override;
  void start_server() override;
  void start_clients() override;
  void wire() override;
  void start_loads() override;
  void start_baseline() override;
  void measure() override;
  // The one exit path: stops the loads, the clients, the monitor, the governor, jackd, the
  // card, restores the system and frees what dead servers left. Every step runs even if an
  // earlier one fails; failures become warnings. Idempotent. Never throws.
  void stop_all() noexcept override;
  void finish(const std::exception* failure) override;
  void mark(const std::string& phase) override {
    const double t = static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6;
    live_.with([&](RunResult& r) { r.phases_s.emplace_back(phase, t); });
  }

 private:
  // The window's steps (engine/run/measurement_loop.hpp).
  uint64_t now_us() override { return session_.monitor().now_us(); }
  bool interrupted() override { return stop_.load(); }
  StopReason stop_reason() override;
  void watch() override;
  void sample(uint64_t until) override;
  void poll(uint64_t now) override;
  bool shows_progress() override { return progress_.enabled(); }
  void progress(uint64_t elapsed_us) override;
  void checkpoint(uint64_t now) override;
  void pause() override { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }

  void preflight();
  // Plans the window, tells the clients, waits for its start; returns its planned end.
  uint64_t open_window();
  // After the window: the threads' classes, the clients told its end, what everything measured.
  void close_window(const WindowEnd& end);
  void start_cycle_reader();
  // The cycle table read to the window's end, and the xrun reports counted against it.
  void collect_cycles(int64_t end_ns);
  // --ramp: once the clients write the window's cycles, names the ramp's first cycle to them
  // (kRampLeadS ahead of the newest), once.
  void start_ramp();
  // --ramp: run.json's ramp from the joined cycles, after the window (and its explanations).
  void record_ramp(const WindowEnd& end);
  // Stops the loads (once) and puts what each did into the result.
  void stop_loads_into_result(uint64_t t0_us);
  // The card's final record into the result; then its files go.
  void collect_backend();
  // Stale registry slots of dead runs; and, when this run's jackd is dead (killed in the window
  // or while stopping), what it left in /dev/shm.
  void reclaim_after_stop(pid_t jackd_pid);
  // The disk-full warnings into the result: jackd.log cut short, children's logs maybe too.
  void note_disk_full(RunResult& r) const;
  void fill_dma_latency(RunResult& r) const;
  std::vector<ClientThread> client_threads();
  // run.json "logs": what jackd.log and clients/*.log kept and dropped (after the hub stopped).
  LogsRecord log_counts() const { return {tap_.log_counts(), fleet_.log_counts().counts()}; }
  void warn(const std::string& w) {
    live_.with([&](RunResult& r) { r.warnings.push_back(w); });
  }
  void warn_all(const std::vector<std::string>& ws) {
    for (const std::string& w : ws) warn(w);
  }
  void say(const std::string& s) {
    if (o_.quiet) return;
    progress_.clear();  // a message never shares its line with the progress line
    std::fprintf(stderr, "xrunlab: %s\n", s.c_str());
  }

  RunOptions o_;
  // The progress during the window (engine/run/progress.hpp): the live line on a terminal,
  // plain lines now and then otherwise; say() clears the live line first.
  ProgressMode progress_mode_;
  ProgressLine progress_;
  uint64_t next_plain_s_ = 0;  // the plain mode's next line, seconds into the window
  static constexpr int kProgressBarCells = 20;
  std::string self_exe_;
  const std::atomic<bool>& stop_;
  std::unique_ptr<Backend> backend_;
  BackendSetup setup_;
  AudioThreadPolicy policy_;
  SysJournal journal_;
  RunPrograms programs_;
  std::string run_dir_;
  // Our JACK client names start with this: the run's private server name and a dash, on an
  // attached server too. libjack binds each client's notification socket at
  // /dev/shm/jack_<client name>_<uid>_0, with no server name in the path: two runs (or two
  // users' tools) with the same client names at once take each other's sockets.
  std::string name_prefix_;
  uint64_t t_begin_us_ = 0;
  ExitCode failure_code_ = ExitCode::kOk;
  bool loads_recorded_ = false;
  // Set when a checkpoint found the disk full: the window stops (exit kOutput) with this line.
  std::string disk_full_;
  bool stopped_ = false;
  CheckpointWriter checkpoints_;
  CyclictestBaseline baseline_;
  PingCompanion ping_;
  WindowTraces traces_;
  Window window_;
  // Every cycle joined across the clients (after backend_: the reader reads the card's record).
  std::unique_ptr<CycleTableShm> cycle_table_;
  std::unique_ptr<CycleTableReader> cycle_reader_;
  // --ramp: its cycles per step at the server's period, one stage's calibrated ns, and whether
  // its first cycle has been sent.
  uint32_t ramp_every_ = 0;
  double ramp_ns_per_stage_ = 0;
  bool ramp_sent_ = false;

  // Declared before the hub, so the hub (whose thread writes into them) stops first.
  LiveResult live_;
  JackdLogTap tap_;
  std::atomic<uint64_t> window_start_us_{0};
  LoadSet loads_;
  std::optional<DmaLatencyHold> dma_latency_;  // --dma-latency
  ServerSession session_;
  SessionXrunSource xrun_source_;
  XrunAccounting xruns_;
  ClientFleet fleet_;
  RtTimeLimit rt_limit_;  // RLIMIT_RTTIME on jackd and the clients
  RunawayGuard runaway_;  // the watchdog over the clients' audio threads
  LineHub hub_;
  // Outlives the engine: if it is killed, stops what the run started (engine/janitor).
  JanitorLink janitor_;
};

}  // namespace xrunlab::run_steps

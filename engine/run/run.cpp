// SPDX-License-Identifier: GPL-2.0-or-later
// One run, as a sequence: preflight -> run folder -> server -> clients -> graph -> loads ->
// measurement window -> stop -> results. Each step's work lives in its own unit (server_session,
// client_fleet, line_hub + jackd_log_tap + client_telemetry, system_sampler, audio_threads,
// graph, run_warnings); this file only orders them and keeps the one exit path.
#include "engine/run/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/backend.hpp"
#include "engine/base/file.hpp"
#include "engine/base/install_layout.hpp"
#include "engine/base/output_error.hpp"
#include "engine/base/text.hpp"
#include "engine/jack/jack_registry.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/janitor/janitor_link.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/loads/loads.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/report/seconds_file.hpp"
#include "engine/result/baseline.hpp"
#include "engine/result/run_json.hpp"
#include "engine/result/xrun_ledger.hpp"
#include "engine/run/attached_server.hpp"
#include "engine/run/audio_threads.hpp"
#include "engine/run/checkpoint_interval.hpp"
#include "engine/run/client_fleet.hpp"
#include "engine/run/cycle_table_reader.hpp"
#include "engine/run/graph.hpp"
#include "engine/run/jackd_log_tap.hpp"
#include "engine/run/line_hub.hpp"
#include "engine/run/live_result.hpp"
#include "engine/run/progress.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/run/run_warnings.hpp"
#include "engine/run/runaway_watchdog.hpp"
#include "engine/run/server_session.hpp"
#include "engine/run/stop_reason.hpp"
#include "engine/run/system_sampler.hpp"
#include "engine/run/teardown.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/system/clock.hpp"
#include "engine/system/dma_latency.hpp"
#include "engine/system/host_context.hpp"
#include "engine/system/proc_stat.hpp"
#include "engine/system/process.hpp"
#include "engine/trace/explain.hpp"
#include "engine/trace/trace_session.hpp"
#include "engine/trace/xrun_trace.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {
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

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

class Runner {
 public:
  Runner(const RunOptions& o, const std::vector<std::string>& command_line,
         const std::string& self_exe, const std::atomic<bool>& stop);
  ~Runner() {
    stop_all();
    janitor_.finish();  // the run's files are written: nothing for it to do
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  RunOutcome run();

 private:
  void preflight();
  void start_server();
  void start_clients();
  void wire();
  void start_loads();
  // --baseline cyclictest: started right before the window, stopped (SIGINT: it writes its
  // --json file) at the window's end or on any exit path; fill_baseline puts it in the result.
  void start_baseline();
  void stop_baseline() noexcept;
  void fill_baseline(RunResult& r) const;
  void measure();
  // What the measurement loop watches: "" while the run may go on, else why it stops.
  StopReason stop_reason();
  void checkpoint(uint64_t now_us);
  // Every per-second row back in the result for the files made at the end (timeseries.csv, the
  // plots): the rows since the last checkpoint appended to seconds.jsonl, then the whole file
  // read back. Problems become warnings.
  void collect_seconds(RunResult& r);
  // run.json and summary.txt marked "incomplete" as soon as the folder exists: a full disk is
  // found before anything starts.
  void starting_checkpoint();
  // Stops the loads (once) and puts what each did into the result.
  void stop_loads_into_result(uint64_t t0_us);
  // The card's final record into the result; then its files go.
  void collect_backend();
  // The one exit path: stops the loads, the clients, the monitor, the governor, jackd, the
  // card, restores the system and frees what dead servers left. Every step runs even if an
  // earlier one fails; failures become warnings. Idempotent. Never throws.
  void stop_all() noexcept;
  void finish_failed(const std::exception& e);
  void note_reclaimed(const ReclaimResult& rr);
  void warn(const std::string& w) {
    live_.with([&](RunResult& r) { r.warnings.push_back(w); });
  }
  void say(const std::string& s) {
    if (o_.quiet) return;
    progress_.clear();  // a message never shares its line with the progress line
    std::fprintf(stderr, "xrunlab: %s\n", s.c_str());
  }
  // The progress line's figures now, `elapsed_us` into the window: all cheap (no table copy).
  void show_progress(uint64_t elapsed_us);
  std::vector<ClientThread> client_threads();
  void start_cycle_reader();
  double calibrate_dsp(const FleetSpec& f);
  void collect_cycles(int64_t t0_ns, int64_t end_ns);
  // The monitor's callbacks and jackd's xrun lines, keyed for counting against the cycle table;
  // `horizon` (checkpoints) leaves out reports newer than the last row read.
  XrunReports xrun_reports(bool horizon);
  void count_xrun_reports(RunResult& r, const XrunReports& reports) const;
  // Hands the reports that arrived since the last take to the ledger.
  void take_xrun_reports();
  // Counts and forgets the xrun events whose reports have all arrived, `now_s` into the window
  // (taken before this takes the reports): a long run of sustained xruns stays small.
  void settle_xruns(double now_s);
  // The xrun reports not yet counted, and the counts of the events forgotten
  // (engine/result/xrun_ledger.hpp; with the audio check, only once the glitch list is full).
  XrunLedger xrun_ledger_;
  bool audio_check_ = false;

  RunOptions o_;
  // The live line during the window, on a terminal only (engine/run/progress.hpp); say()
  // clears it first.
  ProgressLine progress_;
  std::string self_exe_;
  const std::atomic<bool>& stop_;
  std::unique_ptr<Backend> backend_;
  BackendSetup setup_;
  AudioThreadPolicy policy_;
  SysJournal journal_;
  std::string run_dir_, client_binary_, jackd_path_, load_tool_;
  // Our JACK client names start with this: the run's private server name and a dash, on an
  // attached server too. libjack binds each client's notification socket at
  // /dev/shm/jack_<client name>_<uid>_0, with no server name in the path: two runs (or two
  // users' tools) with the same client names at once take each other's sockets.
  std::string name_prefix_;
  uint64_t t_begin_us_ = 0;
  // Records that the step `phase` ended now (run.json measurement.phases).
  void mark(const std::string& phase) {
    const double t = static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6;
    live_.with([&](RunResult& r) { r.phases_s.emplace_back(phase, t); });
  }
  ExitCode failure_code_ = ExitCode::kOk;
  bool loads_recorded_ = false;
  // Set when a checkpoint found the disk full: the window stops (exit kOutput) with this line.
  std::string disk_full_;
  // The run folder's seconds.jsonl: each checkpoint appends the rows since the last one and
  // drops them from memory (engine/report/seconds_file.hpp). Created by starting_checkpoint.
  std::optional<SecondsAppender> seconds_;
  // The disk-full warnings into the result: jackd.log cut short, children's logs maybe too.
  void note_disk_full(RunResult& r) const;
  bool stopped_ = false;
  // Every cycle joined across the clients (after backend_: the reader reads the card's record).
  std::unique_ptr<CycleTableShm> cycle_table_;
  std::unique_ptr<CycleTableReader> cycle_reader_;

  // Declared before the hub, so the hub (whose thread writes into them) stops first.
  LiveResult live_;
  JackdLogTap tap_;
  std::atomic<uint64_t> window_start_us_{0};
  uint64_t reports_until_us_ = UINT64_MAX;  // xrun reports after this (JACK time) are not counted
  LoadSet loads_;
  std::optional<DmaLatencyHold> dma_latency_;  // --dma-latency
  // --explain: the kernel trace through the window (its instance and mount are in journal_).
  std::unique_ptr<TraceSession> trace_;
  int64_t trace_start_ns_ = 0, trace_stop_ns_ = 0;
  std::string trace_stat_before_;
  void start_trace();
  void explain_worst(int64_t t0_ns);
  // --trace-on-xrun: a ring frozen at the first xrun (its instance is in journal_ too).
  std::unique_ptr<XrunTrace> xrun_trace_;
  void save_xrun_trace();
  void fill_dma_latency(RunResult& r) const;
  void fill_affinity(RunResult& r) const;  // --cpus / --load-cpus
  // run.json "logs": what jackd.log and clients/*.log kept and dropped (after the hub stopped).
  nlohmann::json log_counts() const {
    return {{"jackd", tap_.log_counts()}, {"clients", fleet_.log_counts().to_json()}};
  }
  Child baseline_;
  std::vector<std::string> baseline_argv_;
  std::string baseline_program_, baseline_json_path_, baseline_error_;
  int baseline_priority_ = 0, baseline_interval_us_ = 0;
  std::optional<CyclictestResult> baseline_result_;
  ServerSession session_;
  ClientFleet fleet_;
  RtTimeLimit rt_limit_;  // RLIMIT_RTTIME on jackd and the clients
  RunawayGuard runaway_;  // the watchdog over the clients' audio threads
  LineHub hub_;
  // Outlives the engine: if it is killed, stops what the run started (engine/janitor).
  JanitorLink janitor_;
};

Runner::Runner(const RunOptions& o, const std::vector<std::string>& command_line,
               const std::string& self_exe, const std::atomic<bool>& stop)
    : o_(o),
      progress_(stderr, ProgressLine::wanted(o.quiet, STDERR_FILENO)),
      self_exe_(self_exe),
      stop_(stop),
      backend_(make_backend(*o.backend)),
      policy_(o),
      session_(*backend_) {
  RunResult& r = live_.owned();
  r.schema_version = kSchemaVersion;
  r.xrunlab_version = kVersion;
  r.command_line = command_line;
  r.spec = to_json(o);
  r.clients = o.clients;
  r.ports = o.ports;
  r.frames = o.period;
  r.rate = o.rate;
  r.policy_spec = o.policy.text;
  r.scheduling = policy_.label();
}

void Runner::preflight() {
  // A backend that launches its own server program (pipewire) checks for it in check().
  if (backend_->launches_server() && backend_->server_program() == "jackd") {
    const auto jackd = find_program(o_.jackd);
    if (!jackd) {
      throw Error(ExitCode::kMissingProgram,
                  "jackd not found ('" + o_.jackd +
                      "'): install JACK2 (apt-get install --no-install-recommends jackd2) or pass "
                      "--jackd PATH");
    }
    jackd_path_ = *jackd;
  }
  client_binary_ = o_.client_binary.empty()
                       ? helper_program_path(dirname_of(self_exe_), "xrunlab-client")
                       : o_.client_binary;
  if (!find_program(client_binary_)) {
    throw Error(ExitCode::kMissingProgram,
                "xrunlab-client not found at '" + client_binary_ +
                    "': build it (cmake --build build), reinstall xrunlab or pass "
                    "--client-binary PATH");
  }
  // --cpus / --load-cpus on this machine's CPUs (and SCHED_DEADLINE's root domain).
  check_cpus(o_, read_cpu_facts());
  policy_.check_permitted(o_.clients);
  if (o_.explain > 0) TraceSession::check_available();
  if (o_.trace_on_xrun) XrunTrace::check_available();
  // Held from here to the Runner's end (every exit path; the kernel drops it on a crash).
  if (o_.dma_latency) dma_latency_.emplace(kDmaLatencyDevice, 0);
  if (o_.baseline == "cyclictest") {
    const auto cyclictest = find_program("cyclictest");
    if (!cyclictest) {
      throw Error(ExitCode::kMissingProgram,
                  "--baseline cyclictest: cyclictest not found: install rt-tests (apt-get "
                  "install --no-install-recommends rt-tests) or leave --baseline out");
    }
    // The clients' priority (JACK2 runs them 5 below the server), or SCHED_OTHER without one.
    baseline_priority_ = std::max(0, o_.server_priority() - 5);
    baseline_interval_us_ = static_cast<int>(
        std::lround(static_cast<double>(o_.period) * 1e6 / static_cast<double>(o_.rate)));
    baseline_program_ = *cyclictest;
  }
  if (!o_.loads.empty()) {
    load_tool_ = helper_program_path(dirname_of(self_exe_), "xrunlab-load");
    if (!find_program(load_tool_)) {
      throw Error(ExitCode::kMissingProgram, "xrunlab-load not found at '" + load_tool_ +
                                                 "': build it (cmake --build build) or "
                                                 "reinstall xrunlab");
    }
    // Every program a load needs is found before anything starts.
    for (const LoadSpec& spec : o_.loads) {
      const std::vector<std::string> args(spec.tool_args.begin() + 1, spec.tool_args.end());
      const std::string missing = missing_program_for(spec.tool_args.front(), args);
      if (!missing.empty()) {
        throw Error(ExitCode::kMissingProgram, "--load " + spec.text + ": " + missing);
      }
    }
  }
  setup_.exe_dir = dirname_of(self_exe_);
  setup_.rate = o_.rate;
  setup_.frames = o_.period;
  setup_.ports = o_.ports;
  setup_.nperiods = o_.nperiods;
  setup_.server_priority = policy_.realtime() ? policy_.server_priority() : 0;
  backend_->check(setup_);  // a missing or busy device fails before a run folder exists
  // Started before anything the run makes: every child spawned from here on announces itself.
  const std::string janitor = helper_program_path(dirname_of(self_exe_), "xrunlab-janitor");
  if (!find_program(janitor)) {
    throw Error(ExitCode::kMissingProgram, "xrunlab-janitor not found at '" + janitor +
                                               "': build it (cmake --build build) or reinstall "
                                               "xrunlab");
  }
  janitor_.start(janitor, journal_.journal_path());
  run_dir_ = create_run_dir(o_.output, o_.label);
  janitor_.tell("dir " + run_dir_);
  // A run that crashed earlier may have left system settings changed (rt-throttle's cgroup):
  // put them back first, and say so.
  for (const std::string& line : journal_.recover_stale()) {
    say(line);
    warn(line);
  }
  // Runs killed earlier may hold JACK registry slots (8 in all) and semaphore files: free them
  // before jackd needs a slot.
  note_reclaimed(reclaim_stale_xrunlab_servers());
  // Left by a JACK program killed inside it, JACK's metadata database would hang our first
  // jack_client_open for ever; removed when no process has it open (jackd removes it at exit).
  if (const std::string db = remove_unused_jack_metadata_db("/dev/shm", ::getuid()); !db.empty()) {
    say("removed JACK's metadata database " + db + ", which no process had open");
  }
  setup_.run_dir = run_dir_;
  setup_.server_name = private_server_name();
  name_prefix_ = setup_.server_name + "-";
  if (backend_->launches_server()) janitor_.tell("server " + setup_.server_name);
}

void Runner::start_server() {
  backend_->prepare(setup_);
  live_.with([&](RunResult& r) { r.backend = backend_->describe(); });
  ServerRequest req;
  req.jackd = jackd_path_;
  req.priority = policy_.realtime() ? policy_.server_priority() : 0;
  req.clients = o_.clients;
  req.ports = o_.ports;
  req.rate = o_.rate;
  req.frames = o_.period;
  req.rate_given = o_.rate_given;
  req.frames_given = o_.period_given;
  req.timeout = milliseconds(static_cast<int64_t>(o_.server_timeout_s * 1000));
  req.run_dir = run_dir_;
  req.cpus = o_.cpus;
  req.say = [this](const std::string& s) { say(s); };
  if (backend_->launches_server()) {
    // The clients' limit: the server's realtime threads block every period, so it costs nothing.
    rt_limit_ = rt_time_limit(static_cast<double>(o_.period) * 1e6 / std::max(o_.rate, 1u),
                              o_.inject ? o_.inject->usec : 0);
    req.limits = {rttime_child_limit(rt_limit_)};
    if (const std::string said = policy_.create_group(journal_); !said.empty()) say(said);
    req.cgroup_procs = policy_.cgroup_procs();
  }
  req.monitor_name = name_prefix_ + "monitor";
  hub_.start();
  tap_.set_full_log(o_.full_log);
  session_.start(setup_, req, hub_, tap_);
  tap_.end_startup();  // jackd -v's chatter from here on is counted, not all kept

  const double period_us = session_.period_us();
  tap_.set_event_gap(static_cast<int64_t>(period_us / 2));
  live_.with([&](RunResult& r) {
    r.server_name = session_.name();
    r.jackd_argv = session_.jackd_argv();
    r.rt_throttle = policy_.group_json();
    for (const std::string& w : session_.warnings()) r.warnings.push_back(w);
    if (!session_.launched()) {
      // The attached server's rate and period are the run's.
      r.frames = session_.frames();
      r.rate = session_.rate();
      r.spec["period_frames"] = session_.frames();
      r.spec["rate_hz"] = session_.rate();
      r.backend["server_settings"] = session_.server_settings();
      // Neither started nor scheduled by us: its threads as the kernel shows them, or unknown.
      r.scheduling = attached_scheduling_label(describe_target(policy_.targets().client),
                                               read_attached_server(session_.name()));
    }
    r.period_us = period_us;
    r.spare_us = period_us;
    r.delay_reference = backend_->reference_text();
    r.delay_resolution_us = backend_->reference_resolution_us(session_.rate());
    r.driver_xruns_reach_monitor = backend_->driver_xruns_reach_monitor();
  });
  o_.period = session_.frames();
  o_.rate = session_.rate();
  if (session_.launched()) {
    policy_.apply_to_server(session_.jackd_pid(), backend_->server_program());
    // The server's threads as the kernel has them now (pipewire: its data loop), and the
    // label from them rather than from the policy's targets.
    backend_->server_started(session_.jackd_pid());
    const std::string label = backend_->scheduling_label(describe_target(policy_.targets().client));
    live_.with([&](RunResult& r) {
      r.backend = backend_->describe();
      if (!label.empty()) r.scheduling = label;
    });
  }
}

void Runner::start_clients() {
  const bool audio_check = o_.audio_check && o_.clients >= 2;
  if (o_.audio_check && !audio_check) {
    warn("no audio check: the test signal needs at least 2 clients (a head and a tail)");
  }
  FleetSpec f;
  f.binary = client_binary_;
  f.common.server = session_.name();
  f.common.ports = o_.ports;
  if (policy_.realtime() || backend_->libjack_makes_clients_realtime()) {
    f.common.sched_target = policy_.targets().client;
  }
  f.common.reference = backend_->reference();
  backend_->add_client_args(f.common);
  f.name_prefix = name_prefix_;
  f.run_dir = run_dir_;
  f.clients = o_.clients;
  f.dsp_load_pct = o_.dsp_load_pct;
  f.audio_check = audio_check;
  // The glitches are matched against the xrun events: none is forgotten before they are.
  audio_check_ = audio_check;
  xrun_ledger_.set_audio(audio_check);
  if (audio_check) {
    live_.with([&](RunResult& r) {
      r.audio.emplace();
      r.audio->period_frames = o_.period;
    });
    if (o_.source_info) {
      // The file's rate was checked against --rate before anything started; an attached
      // server's rate is known only now.
      if (o_.source_info->rate != session_.rate()) {
        throw Error(ExitCode::kUsage,
                    source_rate_mismatch(o_.source, o_.source_info->rate, session_.rate()));
      }
      f.source_file = o_.source;
      const std::string what = describe_source(*o_.source_info);
      live_.with([&](RunResult& r) { r.audio->source = what; });
      if (o_.source_info->truncated()) {
        warn(
            fmt::format("--source: only the first {:.2f} s of the file are played and checked "
                        "(looped); the file is {:.2f} s long",
                        static_cast<double>(o_.source_info->used_frames) / o_.source_info->rate,
                        static_cast<double>(o_.source_info->frames) / o_.source_info->rate));
      }
    }
    if (o_.record) {
      f.record_dir = run_dir_ + "/audio";
      f.record_format = o_.record_format;
      make_dirs(f.record_dir);
    }
  }
  f.inject = o_.inject;
  f.inject_client = o_.inject_client;
  f.cgroup_procs = policy_.cgroup_procs();
  f.cpus = o_.cpus;
  f.common.dsp_ns_per_stage = calibrate_dsp(f);
  // The period the server runs (an attached one's own), for the clients' RLIMIT_RTTIME.
  rt_limit_ = rt_time_limit(session_.period_us(), o_.inject ? o_.inject->usec : 0);
  f.limits = {rttime_child_limit(rt_limit_)};
  live_.with([&](RunResult& r) {
    r.rt_time_limit = rt_time_limit_json(
        rt_limit_, session_.launched()
                       ? std::vector<std::string>{backend_->server_program(), "xrunlab-client"}
                       : std::vector<std::string>{"xrunlab-client"});
  });
  runaway_.start(rt_limit_, static_cast<size_t>(o_.clients));
  f.full_log = o_.full_log;
  const vcard::Shm* card = backend_->card_record();
  cycle_table_ = CycleTableShm::create(
      cycle_table_shm_name(setup_.server_name), static_cast<uint32_t>(o_.clients),
      cycle_table_rows(static_cast<uint32_t>(o_.clients), session_.rate(), session_.frames()),
      session_.rate(), session_.frames(),
      card != nullptr ? cycle_table::kKeyBoundary : cycle_table::kKeyFrameTime);
  f.common.cycle_table = cycle_table_->name();
  const size_t spawned = fleet_.spawn(f, hub_, live_, window_start_us_, stop_);
  if (stop_.load()) {
    throw Error(ExitCode::kInterrupted,
                fmt::format("interrupted while the clients started: {} of {} spawned", spawned,
                            o_.clients));
  }
  mark("clients spawned");
  say(fmt::format("started {} clients, waiting for them to activate", o_.clients));
  fleet_.wait_active(
      live_, [this] { return session_.ended_while_clients_started(run_dir_); }, stop_,
      [this] { return runaway_.check(fleet_, live_); });
  start_cycle_reader();
}

// The DSP stage's cost, measured once before the clients start, by xrunlab-client --calibrate in
// their cgroup and on their CPUs: every client then does the same work, and N clients do not
// calibrate at once on a few CPUs (each of them slowed by the others: 2x apart on 64 clients,
// and 3 s of CPU). 0 (each client calibrates itself) when there is no DSP work or it failed.
double Runner::calibrate_dsp(const FleetSpec& f) {
  if (f.dsp_load_pct <= 0) return 0;
  ClientArgs a;
  a.ports = f.common.ports;
  a.calibrate_rate = session_.rate();
  a.calibrate_frames = session_.frames();
  SpawnSpec spec;
  spec.argv = {f.binary};
  for (std::string& arg : to_argv(a)) spec.argv.push_back(std::move(arg));
  spec.cgroup_procs = f.cgroup_procs;
  spec.cpus = f.cpus;
  const std::string line = first_stdout_line(spec, milliseconds(10000));
  double ns = 0;
  try {
    ns = nlohmann::json::parse(line).at("ns_per_stage").get<double>();
  } catch (const std::exception&) {
    ns = 0;
  }
  if (!(ns > 0)) {
    warn("the DSP calibration (" + f.binary + " --calibrate) printed '" + line +
         "': every client calibrates itself instead");
    return 0;
  }
  return ns;
}

void Runner::start_cycle_reader() {
  const vcard::Shm* card = backend_->card_record();
  JoinConfig jc;
  jc.rate = session_.rate();
  jc.frames = session_.frames();
  jc.card = card != nullptr;
  const std::string server = backend_->server_program();
  jc.server_wake = server + " wake-up";
  jc.time_source =
      card != nullptr
          ? "the vcard's record: the interrupt is the period grid's exact boundary, jackd's "
            "wake-up its first poll at or after it (CLOCK_MONOTONIC, 1 ns)"
          : "no interrupt time on this backend; " + server +
                "'s wake-up as each cycle's first client saw it (jack_frames_since_cycle_start, "
                "one frame)";
  jc.resolution_us = card != nullptr ? 0.001 : 1e6 / std::max<uint32_t>(session_.rate(), 1);
  jc.worst_keep = std::max<size_t>(jc.worst_keep, static_cast<size_t>(o_.explain));
  live_.with([&](const RunResult& r) {
    for (const ClientResult& c : r.client_results) {
      jc.client_names.push_back(fmt::format("c{:02d}", c.index));
      jc.dsp_nominal_us.push_back(c.dsp_target_us);
    }
  });
  cycle_reader_ = std::make_unique<CycleTableReader>(*cycle_table_, card, std::move(jc));
}

void Runner::take_xrun_reports() {
  std::vector<Monitor::Callback> callbacks;
  bool cut = false;
  session_.monitor().take_callbacks(callbacks, &cut);
  xrun_ledger_.add_callbacks(std::move(callbacks), cut);
  std::vector<double> lines;
  tap_.take_xrun_line_times(lines, &cut);
  xrun_ledger_.add_log_lines(lines, cut);
}

void Runner::settle_xruns(double now_s) {
  if (!cycle_reader_) return;
  take_xrun_reports();
  // 2 s: the reports' clocks and the table's differ by microseconds, and a report is stamped a
  // moment before it is handed over (engine/result/xrun_ledger.hpp).
  const double before_s = now_s - 2.0;
  CycleJoiner& joiner = cycle_reader_->joiner();
  if (audio_check_ && !xrun_ledger_.audio_frozen()) {
    const bool full = live_.with(
        [&](const RunResult& r) { return r.audio && r.audio->glitches.size() >= kGlitchesKept; });
    if (!full) return;
    const std::vector<LogXrunEvent> log_events = tap_.log_events();
    const bool frozen = live_.with([&](RunResult& r) {
      return xrun_ledger_.freeze_audio(joiner, *r.audio, log_events, before_s, kGlitchesKept);
    });
    if (!frozen) return;
  }
  const double period_ms = 1e3 * session_.frames() / std::max<uint32_t>(session_.rate(), 1);
  xrun_ledger_.settle(joiner, before_s, period_ms);
}

XrunReports Runner::xrun_reports(bool horizon) {
  if (!cycle_reader_) return {};
  take_xrun_reports();
  xrun_ledger_.set_until_us(reports_until_us_);
  return xrun_ledger_.pending(cycle_reader_->joiner(), horizon);
}

void Runner::count_xrun_reports(RunResult& r, const XrunReports& reports) const {
  if (!cycle_reader_) return;
  const CycleJoiner& joiner = cycle_reader_->joiner();
  count_against_cycles(r, joiner.xrun_runs(), joiner.frames(), reports, &xrun_ledger_.settled());
}

void Runner::collect_cycles(int64_t t0_ns, int64_t end_ns) {
  if (!cycle_reader_) return;
  cycle_reader_->set_window(t0_ns, end_ns);
  cycle_reader_->poll(0, /*final=*/true);
  CycleTableResult table = cycle_reader_->table();
  JackTestFields jt = cycle_reader_->jack_test();
  const XrunReports reports = xrun_reports(/*horizon=*/false);
  live_.with([&](RunResult& r) {
    // A real card's "xrun of at least N msecs" is JACK1's xrun delay too (ALSA's trigger time
    // stamp to now); on the vcard the card's record gives it exactly instead.
    if (backend_->card_record() == nullptr && r.xruns.log_driver_xruns > 0 &&
        backend_->name() == "alsa") {
      jt.delay_max_us = std::max(jt.delay_max_us.value_or(0.0), r.xruns.log_driver_max_delay_us);
    }
    r.cycle_table = std::move(table);
    r.jack_test = std::move(jt);
    count_xrun_reports(r, reports);
  });
}

void Runner::wire() {
  GraphSpec g;
  live_.with([&](const RunResult& r) {
    for (const ClientResult& c : r.client_results) g.clients.push_back(c.name);
  });
  g.ports = o_.ports;
  // A real card may have fewer channels than --ports: those chains start or end unconnected.
  g.system_ports = backend_->wire_system_ports();
  // The card's period marker reaches every client directly, whatever its place in the chain.
  g.clock_port = backend_->clock_port(setup_);
  Monitor& monitor = session_.monitor();
  const std::vector<Connection> wanted =
      chain_connections(g, [&](const std::string& name) { return monitor.port_exists(name); });
  // Every client makes the connections into its own ports (the tail also those to the card's
  // playback), all clients at once: JACK2 reorders its graph (a notification round trip to
  // every client) once per cycle in which connections arrived, so one connection at a time from
  // the monitor cost a reorder each: 7.5 minutes for 253 clients x 4 ports on a 2-core VM.
  // Then each reads the connections of its own ports back and reports them: the monitor does not
  // look ports up by name, which scans the graph's every port (34 KB each) and so maps the
  // whole segment into the engine (libjack's mlock is kept from it: monitor.cpp).
  std::vector<std::string> commands(g.clients.size());
  for (const auto& [from, to] : wanted) {
    const size_t owner = connection_owner(g.clients, from, to);
    commands[owner] += "connect " + from + " " + to + "\n";
  }
  for (std::string& c : commands) c += "report-connections\n";
  fleet_.send_each(commands);
  const auto deadline = std::chrono::steady_clock::now() +
                        milliseconds(15000 + 20 * static_cast<int64_t>(wanted.size()));
  // A connection jack_connect has made reaches the graph clients read at the server's next cycle
  // (JACK2 switches its graph state there), so a report can miss one its client made a moment
  // before: when all clients reported and a wanted connection is missing, they are asked again
  // (each request gets one reply, so none is stale), until the deadline.
  std::vector<Connection> graph;
  int rounds = 0;
  while (true) {
    std::string failed, waiting;
    size_t reported = 0;
    std::vector<std::vector<Connection>> reports;
    live_.with([&](const RunResult& r) {
      for (const ClientResult& c : r.client_results) {
        if (!c.error.empty() && failed.empty()) failed = c.name + ": " + c.error;
        if (c.connections) {
          ++reported;
        } else if (waiting.empty()) {
          waiting = c.name;
        }
      }
      if (reported == r.client_results.size()) {
        for (const ClientResult& c : r.client_results) reports.push_back(*c.connections);
      }
    });
    if (!failed.empty()) throw Error(ExitCode::kClientsFailed, failed);
    const bool timed_out = std::chrono::steady_clock::now() >= deadline;
    if (waiting.empty()) {
      ++rounds;
      graph = graph_from_reports(g, reports);
      const std::set<Connection> have(graph.begin(), graph.end());
      const auto missing = std::find_if(wanted.begin(), wanted.end(),
                                        [&](const Connection& c) { return have.count(c) == 0; });
      if (missing == wanted.end()) break;
      if (timed_out || stop_.load()) {
        const auto made = std::count_if(wanted.begin(), wanted.end(),
                                        [&](const Connection& c) { return have.count(c) != 0; });
        throw Error(stop_.load() ? ExitCode::kInterrupted : ExitCode::kClientsFailed,
                    fmt::format("only {} of {} connections made (the first missing: {} -> {}): "
                                "the clients read their ports back without it {} time{}",
                                made, wanted.size(), missing->first, missing->second, rounds,
                                rounds == 1 ? "" : "s"));
      }
      live_.with([&](RunResult& r) {
        for (ClientResult& c : r.client_results) c.connections.reset();
      });
      fleet_.send_each(std::vector<std::string>(g.clients.size(), "report-connections\n"));
      std::this_thread::sleep_for(milliseconds(20));
      continue;
    }
    if (const std::string gone = session_.ended_while_clients_started(run_dir_); !gone.empty()) {
      throw Error(ExitCode::kServerFailed, gone);
    }
    if (stop_.load()) {
      throw Error(ExitCode::kInterrupted,
                  fmt::format("only {} of {} clients had made their connections before the "
                              "interrupt",
                              reported, g.clients.size()));
    }
    if (timed_out) {
      throw Error(ExitCode::kClientsFailed,
                  fmt::format("only {} of {} clients made their connections in time (the next: "
                              "{})",
                              reported, g.clients.size(), waiting));
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  live_.with([&](RunResult& r) { r.graph = std::move(graph); });
}

void Runner::start_loads() {
  if (o_.loads.empty()) return;
  loads_.start(o_.loads, load_tool_, run_dir_, o_.load_cpus);
  // --load-cpus, read back from every supervisor: a load elsewhere fails the run like an audio
  // thread out of its class.
  if (!o_.load_cpus.empty()) {
    for (const LoadResult& l : loads_.results()) {
      if (l.cpus == o_.load_cpus) continue;
      throw Error(ExitCode::kRunFailed,
                  fmt::format("load '{}' (pid {}) is not on the requested CPUs: {}, expected {} "
                              "(--load-cpus)",
                              l.spec.text, l.pid,
                              l.cpus.empty() ? "affinity unreadable (" + l.cpus_why + ")"
                                             : "CPU affinity " + format_cpu_list(l.cpus),
                              format_cpu_list(o_.load_cpus)));
    }
  }
  std::vector<std::string> texts;
  for (const LoadSpec& l : o_.loads) texts.push_back(l.text);
  say(fmt::format("started {} load(s): {}", o_.loads.size(), fmt::join(texts, ", ")));
  // A moment to get going (the compile load generates its source tree first).
  const auto until = std::chrono::steady_clock::now() + milliseconds(1000);
  while (std::chrono::steady_clock::now() < until && !stop_.load()) {
    const std::string ended = loads_.check_running();
    if (!ended.empty()) throw Error(ExitCode::kRunFailed, ended);
    std::this_thread::sleep_for(milliseconds(20));
  }
}

void Runner::start_baseline() {
  if (baseline_program_.empty()) return;
  baseline_json_path_ = run_dir_ + "/baseline-cyclictest.json";
  // -D is a safety stop only: the window's end stops it.
  baseline_argv_ =
      cyclictest_argv(baseline_program_, baseline_priority_, baseline_interval_us_,
                      static_cast<int>(std::ceil(o_.duration_s)) + 30, baseline_json_path_);
  SpawnSpec spec;
  spec.argv = baseline_argv_;
  spec.output_path = run_dir_ + "/baseline-cyclictest.log";
  spec.cpus = o_.cpus;  // --cpus: the timer baseline measures the audio threads' CPUs
  baseline_ = Child::spawn(spec);
  say(fmt::format("started the timer baseline: cyclictest at {} {}, every {} usecs",
                  baseline_priority_ > 0 ? "SCHED_FIFO" : "SCHED_OTHER", baseline_priority_,
                  baseline_interval_us_));
}

void Runner::stop_baseline() noexcept {
  if (baseline_program_.empty() || baseline_result_ || !baseline_error_.empty()) return;
  try {
    if (baseline_.pid() <= 0) {
      baseline_error_ = "cyclictest was not started (the run ended before its window)";
      return;
    }
    // SIGINT ends cyclictest's loop; it then writes the --json file and exits.
    if (baseline_.running()) {
      baseline_.signal(SIGINT);
      if (!baseline_.wait_for(milliseconds(3000))) baseline_.stop(milliseconds(1000));
    }
    std::string why;
    const std::optional<std::string> text = read_file(baseline_json_path_, &why);
    if (text) baseline_result_ = read_cyclictest_json(*text, &why);
    if (!baseline_result_) {
      baseline_error_ = fmt::format("cyclictest {}: {} (its log: {})", baseline_.describe_exit(),
                                    why, run_dir_ + "/baseline-cyclictest.log");
    }
  } catch (const std::exception& e) {
    baseline_error_ = e.what();
  }
}

void Runner::fill_baseline(RunResult& r) const {
  if (baseline_program_.empty()) return;
  if (!baseline_result_) {
    r.baseline = baseline_error_json(baseline_argv_, baseline_priority_, baseline_interval_us_,
                                     baseline_error_);
    r.warnings.push_back("--baseline cyclictest gave no figures: " + baseline_error_);
    return;
  }
  std::optional<double> wake, head;
  for (const HopSeries& h : r.cycle_table.hops) {
    const auto p = h.us.percentile(99);
    if (h.key == "jackd_wakeup" && p && p->exact) wake = static_cast<double>(p->value_us);
  }
  if (!r.client_results.empty()) {
    const auto p = r.client_results.front().delay.percentile(99);
    if (p && p->exact) head = static_cast<double>(p->value_us);
  }
  r.baseline = baseline_json(baseline_argv_, baseline_priority_, baseline_interval_us_,
                             *baseline_result_, wake, head);
}

void Runner::fill_dma_latency(RunResult& r) const {
  if (!dma_latency_) return;
  const std::optional<int32_t> back = dma_latency_->read_back_us();
  r.dma_latency = {{"device", dma_latency_->device()},
                   {"requested_us", dma_latency_->requested_us()},
                   {"read_back_us", back ? nlohmann::json(*back) : nlohmann::json()}};
  if (back && *back != dma_latency_->requested_us()) {
    r.warnings.push_back(fmt::format(
        "--dma-latency: {} read back {} us after writing {} (another holder asked for less)",
        dma_latency_->device(), *back, dma_latency_->requested_us()));
  }
}

void Runner::fill_affinity(RunResult& r) const {
  r.affinity = affinity_json(o_.cpus, o_.load_cpus, r.threads_start, r.threads_end, r.loads);
}

std::vector<ClientThread> Runner::client_threads() {
  std::vector<ClientThread> out;
  live_.with([&](const RunResult& r) {
    for (const ClientResult& c : r.client_results) {
      out.push_back({c.name, static_cast<pid_t>(c.pid), static_cast<pid_t>(c.rt_tid)});
    }
  });
  return out;
}

StopReason Runner::stop_reason() {
  if (stop_.load()) return {StopKind::kInterrupted, ""};
  if (!disk_full_.empty()) return {StopKind::kDiskFull, disk_full_};
  if (std::string ended = session_.ended(); !ended.empty()) {
    return {StopKind::kServerEnded, std::move(ended)};
  }
  if (std::string runaway = runaway_.check(fleet_, live_); !runaway.empty()) {
    return {StopKind::kRunaway, std::move(runaway)};
  }
  if (std::string ended = fleet_.first_ended(); !ended.empty()) {
    return {StopKind::kClientEnded, std::move(ended)};
  }
  if (std::string load = loads_.check_running(); !load.empty()) {
    return {StopKind::kLoadEnded, std::move(load)};
  }
  return {};
}

void Runner::checkpoint(uint64_t now_us) {
  // The cycles joined so far go into the checkpoint too (this thread is the reader's), so an
  // engine killed with SIGKILL keeps them; the end of the run replaces them with all of them.
  std::optional<CycleTableResult> table;
  std::optional<JackTestFields> jack_test;
  XrunReports reports;
  if (cycle_reader_) {
    table = cycle_reader_->table();
    jack_test = cycle_reader_->jack_test();
    reports = xrun_reports(/*horizon=*/true);
  }
  // The files are formatted under the result's lock (memory only) and written after it is
  // released, so telemetry never waits for a disk.
  std::string rows;
  const std::vector<RunFile> files = live_.with([&](RunResult& r) {
    rows = take_seconds_rows(r);
    if (table) r.cycle_table = std::move(*table);
    if (jack_test) r.jack_test = std::move(*jack_test);
    if (table) count_xrun_reports(r, reports);
    const std::string status = r.status, detail = r.status_detail, ended = r.ended_utc;
    const double seconds = r.seconds_ran;
    r.seconds_ran = static_cast<double>(now_us - window_start_us_.load()) / 1e6;
    r.ended_utc = utc_now_iso();
    r.status = "incomplete";
    r.status_detail =
        "checkpoint during the run; if it is still here, the run did not write its final "
        "results (the engine was killed, or the disk was full)";
    finalize(r);
    std::vector<RunFile> rendered = render_checkpoint_files(r);
    r.status = status;
    r.status_detail = detail;
    r.ended_utc = ended;
    r.seconds_ran = seconds;
    return rendered;
  });
  try {
    // The rows first: run.json, renamed into place last, says how many the file holds.
    if (seconds_) seconds_->append(rows);
    write_run_files(run_dir_, files);
  } catch (const Error& e) {
    // A full disk stops the run: the rest of the window could not be kept either.
    const auto* out = dynamic_cast<const OutputError*>(&e);
    if (out != nullptr && out->disk_full()) {
      disk_full_ = e.what();
      say("stopping the run: " + disk_full_);
    } else {
      say(std::string("warning: checkpoint failed: ") + e.what());
    }
  }
}

void Runner::collect_seconds(RunResult& r) {
  if (!seconds_) return;
  try {
    seconds_->append(take_seconds_rows(r));
  } catch (const Error& e) {
    r.warnings.push_back(std::string("per-second rows: ") + e.what() +
                         " (the last rows are missing from seconds.jsonl)");
  }
  std::string why;
  const std::optional<std::string> text = read_file(seconds_->path(), &why);
  try {
    if (!text) throw Error(ExitCode::kOutput, why);
    for (std::string& w :
         put_seconds_rows(r, parse_seconds_file(*text, seconds_->path()), seconds_->path())) {
      r.warnings.push_back(std::move(w));
    }
  } catch (const Error& e) {
    r.warnings.push_back(std::string("per-second rows not read back: ") + e.what() +
                         " (timeseries.csv and the plots lack them)");
  }
}

void Runner::starting_checkpoint() {
  RunResult& r = live_.owned();
  // A full disk (or any output error) here stops the run before anything is started.
  seconds_.emplace(run_dir_ + "/" + kSecondsFileName);
  r.seconds_appended = true;
  const std::string status = r.status, detail = r.status_detail;
  r.status = "incomplete";
  r.status_detail =
      "written as the run started; if it is still here, the run did not write its results "
      "(the engine was killed, or the disk was full)";
  r.ended_utc = utc_now_iso();
  finalize(r);
  write_run_files(run_dir_, render_checkpoint_files(r));
  r.status = status;
  r.status_detail = detail;
  r.ended_utc.clear();
}

void Runner::note_disk_full(RunResult& r) const {
  const std::string log = tap_.write_warning();
  if (!log.empty()) r.warnings.push_back(log);
  // The children write their logs themselves: what they could not write is not known here.
  const std::optional<uint64_t> free = free_bytes(run_dir_);
  if (!disk_full_.empty() || tap_.disk_full() || (free && *free < kDiskNearlyFullBytes)) {
    r.warnings.push_back(fmt::format(
        "the disk holding the run folder was full ({} KiB free at the end): the logs the "
        "clients, loads and tools write themselves (clients/*.log, loads/*.log, ...) may end "
        "early",
        free ? fmt::format("{}", *free / 1024) : std::string("?")));
  }
}

void Runner::show_progress(uint64_t elapsed_us) {
  ProgressFigures f;
  f.elapsed_s = elapsed_us / 1000000;
  f.duration_s = o_.duration_s;
  f.monitor_xrun_events = session_.monitor().events_total();
  if (cycle_reader_) {
    f.xrun_cycles = cycle_reader_->missed();
    f.slack_min_ns = cycle_reader_->slack_min_ns();
  }
  // The width each time: the terminal may have been resized.
  progress_.show(progress_text(f), terminal_columns(STDERR_FILENO));
}

void Runner::measure() {
  // Every audio thread in its class before anything is measured: a thread that is not is a
  // failed run, not a footnote.
  policy_.start_governor(session_.jackd_pid(), client_threads());
  {
    std::vector<AudioThread> threads = policy_.read(session_.jackd_pid(), client_threads());
    const std::string bad = first_mismatch(threads);
    live_.with([&](RunResult& r) { r.threads_start = std::move(threads); });
    if (!bad.empty()) throw Error(ExitCode::kRunFailed, bad);
  }
  start_trace();
  Monitor& monitor = session_.monitor();
  // The window starts a little in the future so every client knows it before it begins.
  const uint64_t t0 = monitor.now_us() + 300000;
  window_start_us_ = t0;
  tap_.open_window(t0);
  // t_begin_us_ is CLOCK_MONOTONIC_RAW, t0 JACK time (not the same clock under PipeWire).
  const double startup_s = (static_cast<double>(mono_raw_us() - t_begin_us_) +
                            (static_cast<double>(t0) - static_cast<double>(monitor.now_us()))) /
                           1e6;
  live_.with([&](RunResult& r) { r.startup_s = startup_s; });
  mark("window planned");
  monitor.set_window_start(t0);
  const uint64_t planned_end = t0 + static_cast<uint64_t>(o_.duration_s * 1e6);
  // The clients know the planned end from the start: no cycle after it is ever counted, however
  // late the stop command arrives.
  fleet_.send(fmt::format("start {} {}\n", t0, planned_end));
  say(fmt::format("measuring for {} s (Ctrl-C stops early and keeps the results)", o_.duration_s));

  while (monitor.now_us() < t0) std::this_thread::sleep_for(milliseconds(1));
  const auto jackd_ticks0 =
      session_.launched() ? process_cpu_ticks(session_.jackd_pid()) : std::nullopt;
  SystemSampler sampler(t0, monitor.events_total());
  auto take_sample = [&](uint64_t until) {
    SystemSecond s = sampler.sample(until, monitor.cpu_load(), monitor.events_total());
    live_.with([&](RunResult& r) { r.system.push_back(s); });
  };
  uint64_t next_sample = t0 + 1000000;
  // Checkpoints (run.json and summary.txt marked "incomplete") keep what was measured even if
  // the engine itself is killed with SIGKILL.
  // The first once the clients have sent their first second (held back CycleStats::kHoldUs).
  uint64_t next_checkpoint = t0 + 1500000;
  uint64_t next_backend_poll = t0;
  uint64_t next_progress = t0;  // at once (0 s), then each whole second of the window
  backend_->set_window(t0, 0);
  // The cycle table's clock (CLOCK_MONOTONIC) for the window's JACK times: JACK2's
  // jack_get_time() is CLOCK_MONOTONIC_RAW, PipeWire's CLOCK_MONOTONIC, so the offset is
  // measured against the libjack in use rather than assumed.
  const int64_t mono_offset_ns = mono_minus_jack_ns(monitor);
  const int64_t t0_ns = static_cast<int64_t>(t0) * 1000 + mono_offset_ns;
  if (cycle_reader_) cycle_reader_->set_window(t0_ns, INT64_MAX);
  uint64_t end = planned_end;
  uint64_t last_sample = t0;
  StopReason reason;
  const uint64_t xrun_events0 = monitor.events_total();
  while (true) {
    const uint64_t now = monitor.now_us();
    // --trace-on-xrun: the ring is frozen as soon as the first xrun of the window is seen.
    if (xrun_trace_ && !xrun_trace_->frozen() && monitor.events_total() > xrun_events0) {
      const std::optional<uint64_t> last = monitor.last_callback_us();
      const int64_t at = last ? static_cast<int64_t>(*last) * 1000 + mono_offset_ns : mono_ns();
      xrun_trace_->freeze(at);
    }
    if (now >= next_sample && next_sample <= planned_end) {
      take_sample(next_sample);
      last_sample = next_sample;
      next_sample += 1000000;
    }
    if (stop_.load()) {
      reason = {StopKind::kInterrupted, ""};
      end = now;
      break;
    }
    if (now >= planned_end) break;
    reason = stop_reason();
    if (reason.stopped()) {
      end = now;
      break;
    }
    if (now >= next_backend_poll) {
      backend_->poll();
      if (cycle_reader_) {
        cycle_reader_->poll(static_cast<int64_t>(now) * 1000 + mono_offset_ns);
        settle_xruns(static_cast<double>(now - t0) / 1e6);
      }
      next_backend_poll = now + 100000;
    }
    // After the poll, so the cycle table's figures are the newest read.
    if (progress_.enabled() && now >= next_progress) {
      show_progress(now - t0);
      next_progress = t0 + ((now - t0) / 1000000 + 1) * 1000000;
    }
    if (now >= next_checkpoint) {
      checkpoint(now);
      // A checkpoint builds run.json (megabytes once the bounded lists are full: about 20 MB of
      // JSON nodes) and frees it; glibc keeps freed pages inside its heap unless asked, so the
      // engine's RSS would otherwise keep the largest checkpoint for the rest of the run.
      ::malloc_trim(0);
      next_checkpoint += checkpoint_interval_us(now - t0);
    }
    std::this_thread::sleep_for(milliseconds(10));
  }

  // The window is over: nothing may print after the progress line (stdout's summary included).
  progress_.clear();
  // The audio threads once more, while everything still runs: before the clients hear the stop,
  // after which each closes its JACK client (and its process thread) once its last cycles are
  // counted. A client whose planned window ended waits for the stop before it closes, so this
  // read finds its thread however late a loaded machine lets it run (xrunlab-client's
  // control_window).
  std::vector<AudioThread> threads_end = policy_.read(session_.jackd_pid(), client_threads());
  const std::string bad_end = first_mismatch(threads_end);
  // The window's end to every client at once (an early stop moves it before the planned end).
  fleet_.send(fmt::format("stop {}\n", end));
  // A stopped run keeps its last partial second of system data too.
  if (end > last_sample + 200000) take_sample(end);
  if (jackd_ticks0 && end > t0) {
    if (const auto ticks1 = process_cpu_ticks(session_.jackd_pid())) {
      const double cpu_s = static_cast<double>(*ticks1 - *jackd_ticks0) /
                           static_cast<double>(::sysconf(_SC_CLK_TCK));
      live_.with([&](RunResult& r) {
        r.jackd_cpu_pct = 100.0 * cpu_s / (static_cast<double>(end - t0) / 1e6);
      });
    }
  }

  nlohmann::json iso = policy_.stop_governor();
  if (!iso.is_null()) live_.with([&](RunResult& r) { r.iso_emulation = std::move(iso); });

  // Collect the clients' last seconds.
  backend_->set_window(t0, end);
  mark("window ended");
  if (const auto status = read_file("/proc/self/status")) {
    if (const auto shmem = key_value(*status, "RssShmem")) {
      long kib = 0;
      if (std::sscanf(std::string(*shmem).c_str(), "%ld", &kib) == 1) {
        live_.with([&](RunResult& r) { r.engine_rss_shmem_kib = kib; });
      }
    }
  }
  stop_loads_into_result(t0);
  stop_baseline();
  tap_.close_window(end + 20000);  // late notifications of the last cycle still count
  reports_until_us_ = end + 20000;
  live_.with([&](RunResult& r) {
    r.seconds_ran = static_cast<double>(end - t0) / 1e6;
    r.threads_end = std::move(threads_end);
    if (reason.kind == StopKind::kInterrupted) {
      r.status = "interrupted";
      r.status_detail = "stopped by a signal after " + fmt::format("{:.1f}", r.seconds_ran) + " s";
      failure_code_ = exit_code_for(reason.kind, runaway_.tripped());
    } else if (reason.stopped()) {
      r.status = "failed";
      r.status_detail = reason.detail;
      failure_code_ = exit_code_for(reason.kind, runaway_.tripped());
    } else if (!bad_end.empty()) {
      r.status = "failed";
      r.status_detail = "at the end: " + bad_end;
      failure_code_ = ExitCode::kRunFailed;
    } else {
      r.status = "completed";
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(1200);
  while (std::chrono::steady_clock::now() < deadline && !fleet_.all_done(live_)) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  std::this_thread::sleep_for(milliseconds(25));  // late xrun notifications of the last cycle
  XrunCounts x = monitor.xrun_snapshot();
  tap_.fill(x);
  live_.with([&](RunResult& r) { r.xruns = std::move(x); });
  collect_cycles(t0_ns, static_cast<int64_t>(end) * 1000 + mono_offset_ns);
  explain_worst(t0_ns);
  save_xrun_trace();
  mark("clients' results collected");
}

void Runner::save_xrun_trace() {
  if (!xrun_trace_) return;
  nlohmann::json j = xrun_trace_->save(run_dir_ + "/xrun-trace.dat", run_dir_ + "/trace-cmd.log");
  if (j["file"].is_string()) {
    const nlohmann::json& back = j["covered_before_xrun_ms"];
    say(fmt::format(
        "--trace-on-xrun: the ring frozen at the first xrun is in {}/xrun-trace.dat{}", run_dir_,
        back.is_number() ? fmt::format(" (from {:.0f} ms before the xrun)", back.get<double>())
                         : std::string()));
  } else if (xrun_trace_->frozen()) {
    warn("--trace-on-xrun: " + j["error"].get<std::string>());
  }
  live_.with([&](RunResult& r) { r.trace_on_xrun = std::move(j); });
}

void Runner::start_trace() {
  if (o_.trace_on_xrun) {
    xrun_trace_ = std::make_unique<XrunTrace>(journal_);
    xrun_trace_->start();
    say(fmt::format("keeping a trace ring in {} for --trace-on-xrun (frozen at the first xrun)",
                    xrun_trace_->instance()));
  }
  if (o_.explain <= 0) return;
  trace_ = std::make_unique<TraceSession>(journal_);
  trace_->start();
  trace_start_ns_ = mono_ns();
  trace_stat_before_ = read_file("/proc/stat").value_or("");
  say(fmt::format("tracing the scheduler and interrupts in {} for --explain", trace_->instance()));
}

void Runner::explain_worst(int64_t t0_ns) {
  if (!trace_) return;
  trace_->stop();
  trace_stop_ns_ = mono_ns();
  const std::vector<double> steal =
      steal_pct_per_cpu(trace_stat_before_, read_file("/proc/stat").value_or(""));
  const TraceStats st = trace_->stats();
  // Complete up to tracing off, unless the store filled: then up to its last event.
  const TraceCoverage coverage{trace_start_ns_, st.dropped_store > 0 ? st.last_ns : trace_stop_ns_};
  ExplainThreads threads;
  live_.with([&](const RunResult& r) {
    for (const AudioThread& t : r.threads_start) {
      if (t.role == "server") threads.jackd_tid = t.sched.tid;
    }
    for (const ClientResult& c : r.client_results) {
      threads.client_tids.push_back(static_cast<pid_t>(c.rt_tid));
      threads.client_names.push_back(fmt::format("c{:02d}", c.index));
    }
  });
  live_.with([&](RunResult& r) {
    nlohmann::json cycles =
        explain_cycles(trace_->events(), r.cycle_table, static_cast<size_t>(o_.explain), threads,
                       t0_ns, coverage, proc_policy, steal);
    nlohmann::json steal_json = nlohmann::json::array();
    for (const double s : steal) steal_json.push_back(s);
    r.explain = {{"requested", o_.explain},
                 {"trace",
                  {{"instance", trace_->instance()},
                   {"clock", "mono"},
                   {"resolution_us", 1},
                   {"events", st.events},
                   {"lost_kernel", st.lost_kernel},
                   {"dropped_store", st.dropped_store},
                   {"unparsed_lines", st.unparsed_lines},
                   {"unseen_switches", st.unseen_switches},
                   {"coverage_ns", {coverage.start_ns, coverage.end_ns}},
                   {"cpu_steal_pct", steal_json}}},
                 {"cycles", std::move(cycles)}};
    if (st.lost_kernel > 0) {
      r.warnings.push_back(fmt::format(
          "--explain: the kernel lost {} trace events (its buffer overran); a window with lost "
          "events may miss a task or an interrupt",
          st.lost_kernel));
    }
  });
}

void Runner::stop_loads_into_result(uint64_t t0_us) {
  if (loads_.empty() || loads_recorded_) return;
  loads_recorded_ = true;
  loads_.stop();
  nlohmann::json out = nlohmann::json::array();
  std::vector<std::string> problems;
  for (const LoadResult& l : loads_.results()) {
    out.push_back(to_json(l, t0_us));
    if (!l.error.empty()) problems.push_back("load '" + l.spec.text + "': " + l.error);
  }
  live_.with([&](RunResult& r) {
    r.warnings.insert(r.warnings.end(), problems.begin(), problems.end());
    r.loads = std::move(out);
  });
}

void Runner::collect_backend() {
  backend_->poll();
  live_.with([&](RunResult& r) {
    const nlohmann::json settings =
        r.backend.is_object() ? r.backend.value("server_settings", nlohmann::json()) : nullptr;
    r.backend = backend_->describe();
    if (!settings.is_null()) r.backend["server_settings"] = settings;
    r.xruns.card_xruns = backend_->card_xruns_in_window();
    for (const std::string& w : backend_->warnings()) r.warnings.push_back(w);
  });
  backend_->cleanup();
}

void Runner::note_reclaimed(const ReclaimResult& rr) {
  if (!rr.reclaimed.empty()) {
    warn(fmt::format("freed {} JACK registry slot(s) held by dead xrunlab servers: {}",
                     rr.reclaimed.size(), fmt::join(rr.reclaimed, ", ")));
  }
  if (!rr.removed_files.empty()) {
    constexpr size_t kNamed = 4;
    const std::vector<std::string> named(
        rr.removed_files.begin(), rr.removed_files.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                 kNamed, rr.removed_files.size())));
    warn(fmt::format(
        "removed {} /dev/shm file(s) (semaphores, sockets, card records, cycle tables) of dead "
        "xrunlab servers: {}{}",
        rr.removed_files.size(), fmt::join(named, ", "),
        rr.removed_files.size() > kNamed ? ", ..." : ""));
  }
  if (!rr.warning.empty()) warn(rr.warning);
}

void Runner::stop_all() noexcept {
  if (stopped_) return;
  stopped_ = true;
  // A failed window ends here, before main() prints the error.
  progress_.clear();
  Teardown t;
  t.add("loads", [&] { stop_loads_into_result(window_start_us_.load()); });
  t.add("baseline", [&] { stop_baseline(); });
  // Our own server goes first: it closes its clients in one pass (JackEngine::Close), and each
  // client, its final report sent, then ends without a server to talk to. Clients leaving a
  // running server one by one cost it a graph change and a notification to every remaining
  // client each: O(N^2), 14 s for 64 clients on a 2-core VM. A server that is not ours (attach)
  // keeps running: our clients leave it cleanly first, then the monitor.
  const bool own_server = backend_->launches_server();
  const pid_t jackd_pid = session_.jackd_pid();
  bool jackd_died_stopping = false;
  // Stopped before the window (interrupted in its start-up, or it failed): nobody has measured
  // anything, and a run of 254 clients must still stop within 2 s.
  const bool before_window = window_start_us_.load() == 0;
  // jackd's clean exit is worth little then, and with hundreds of clients joining it takes over
  // a second: SIGKILL comes sooner, and this run removes what jackd leaves in /dev/shm anyway.
  const milliseconds jackd_grace = before_window ? milliseconds(300) : milliseconds(1000);
  auto stop_server = [&] {
    if (const std::string problem = session_.stop(jackd_grace); !problem.empty()) {
      jackd_died_stopping = true;
      say("warning: " + problem);
      warn(problem);
    }
  };
  // The clients have nothing to report then: they die at once, in parallel with jackd's exit
  // rather than after it (each one's teardown unmaps JACK's mlocked graph segment: about a
  // second for 253 of them on 2 cores, which after jackd's second made 2.5 s).
  if (before_window) t.add("clients killed", [&] { fleet_.kill_all(); });
  if (own_server) t.add("server", stop_server);
  t.add("clients", [&] { fleet_.stop(before_window ? milliseconds(0) : milliseconds(500)); });
  t.add("governor", [&] { policy_.stop_governor(); });
  if (!own_server) t.add("server", stop_server);
  t.add("card", [&] { collect_backend(); });
  // Our own cycle table, before the registry step: that step removes what dead runs left, and
  // would otherwise find this run's table still there and report it as left behind.
  t.add("cycle table", [&] {
    cycle_reader_.reset();
    cycle_table_.reset();
  });
  // The trace's reader closes its pipe first: the instance cannot be removed while it is open.
  t.add("trace", [&] {
    if (trace_) trace_->stop();
    if (xrun_trace_) xrun_trace_->stop();
  });
  t.add("system settings", [&] {
    for (const std::string& problem : journal_.restore_all()) {
      say("warning: " + problem);
      warn(problem);
    }
  });
  // A jackd that died uncleanly (or had to be killed) leaves its registry slot and semaphores.
  t.add("JACK registry", [&] {
    if (!session_.name().empty() && backend_->launches_server()) {
      ReclaimResult rr = reclaim_stale_xrunlab_servers("/dev/shm", session_.name());
      // This run's own files are no news: jackd's clean shutdown (JackEngine::Close) leaves
      // its clients' semaphores behind. Only what dead runs left is reported.
      const auto ours = [&](const std::string& file) {
        return xrunlab_server_of_file(file, ::getuid()) == session_.name();
      };
      rr.removed_files.erase(std::remove_if(rr.removed_files.begin(), rr.removed_files.end(), ours),
                             rr.removed_files.end());
      rr.reclaimed.erase(std::remove(rr.reclaimed.begin(), rr.reclaimed.end(), session_.name()),
                         rr.reclaimed.end());
      note_reclaimed(rr);
      // A jackd that died while stopping left its JACK segments and JACK's metadata database
      // (it removes both at its exit): freed here, as the janitor does after a killed run.
      if (jackd_died_stopping && jackd_pid > 0) {
        const ReclaimResult own = reclaim_dead_server("/dev/shm", session_.name(), {jackd_pid});
        if (!own.removed_files.empty()) {
          say(fmt::format("removed what the dead jackd left in /dev/shm: {}",
                          fmt::join(own.removed_files, ", ")));
        }
        if (!own.warning.empty()) warn(own.warning);
        if (const std::string db = remove_unused_jack_metadata_db("/dev/shm", ::getuid());
            !db.empty()) {
          say("removed JACK's metadata database " + db + ", which the dead jackd left");
        }
      }
    }
  });
  t.add("pipes", [&] { hub_.stop(); });
  t.add("jackd.log", [&] { tap_.close(); });
  // Each step's end goes into measurement.phases ("stop: server", ...): where the stop went.
  for (const std::string& failure :
       t.run([&](const std::string& what) { mark("stop: " + what); })) {
    say("warning: " + failure);
    try {
      warn(failure);
    } catch (...) {
    }
  }
}

void Runner::finish_failed(const std::exception& e) {
  // Nothing measured yet (or the setup broke): stop everything, keep the logs, report.
  stop_all();
  RunResult& r = live_.owned();
  const auto* err = dynamic_cast<const Error*>(&e);
  r.status = err != nullptr && err->code() == ExitCode::kInterrupted ? "interrupted" : "failed";
  r.status_detail = e.what();
  r.ended_utc = utc_now_iso();
  r.logs = log_counts();
  collect_seconds(r);
  finalize(r);
  fill_baseline(r);
  fill_dma_latency(r);
  fill_affinity(r);
  note_disk_full(r);
  try {
    write_run_files(run_dir_, render_run_files(r));
  } catch (const Error&) {
  }
}

RunOutcome Runner::run() {
  t_begin_us_ = mono_raw_us();
  live_.owned().started_utc = utc_now_iso();
  preflight();
  live_.owned().host = collect_host_context();
  starting_checkpoint();
  RunOutcome out;
  out.run_dir = run_dir_;
  mark("preflight");
  try {
    start_server();
    mark("server");
    start_clients();
    mark("clients active");
    wire();
    mark("wired");
    say(fmt::format("{} clients active and wired in {:.2f} s", o_.clients,
                    static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6));
    start_loads();
    start_baseline();
    measure();
  } catch (const std::exception& e) {
    finish_failed(e);
    throw;
  }
  stop_all();
  mark("stopped");
  // From here on no other thread touches the result.
  RunResult& r = live_.owned();
  fleet_.name_abnormal_ends(r);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  r.ended_utc = utc_now_iso();
  r.exit_code = static_cast<int>(failure_code_);
  r.engine_peak_rss_kib = ru.ru_maxrss;  // before the rows are read back for the last files
  r.logs = log_counts();
  collect_seconds(r);
  for (std::string& w : count_warnings(r)) r.warnings.push_back(std::move(w));
  finalize(r);
  fill_baseline(r);
  fill_dma_latency(r);
  fill_affinity(r);
  for (std::string& w : audio_match_warnings(r)) r.warnings.push_back(std::move(w));
  r.phases_s.emplace_back("results computed",
                          static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6);
  note_disk_full(r);
  // Plots first: a plot that fails is a warning in the files, which are written once.
  write_run_folder(r, run_dir_, o_.plots, find_script_dir(self_exe_), o_.plot_format);
  out.result = r;
  out.code = failure_code_;
  return out;
}

}  // namespace

RunOutcome run_measurement(const RunOptions& options, const std::vector<std::string>& command_line,
                           const std::string& self_exe, const std::atomic<bool>& stop_requested) {
  RunOptions o = options;
  if (!o.backend) o.backend = parse_backend(default_backend(has_sound_card()));
  Runner runner(o, command_line, self_exe, stop_requested);
  return runner.run();
}

}  // namespace xrunlab

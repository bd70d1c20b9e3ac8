// SPDX-License-Identifier: GPL-2.0-or-later
// The Runner's start-up steps (engine/run/runner.hpp): the server, the clients and their cycle
// table, the graph, the loads and the timer baseline, each handing what it learnt (the server's
// real rate and period, the clients' threads) to the next through the live result.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>

#include "engine/base/file.hpp"
#include "engine/run/attached_server.hpp"
#include "engine/run/graph.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/run/runner.hpp"
#include "engine/run/wiring.hpp"

namespace xrunlab::run_steps {

using std::chrono::milliseconds;

void Runner::start_server() {
  backend_->prepare(setup_);
  live_.with([&](RunResult& r) { r.backend = backend_->describe(); });
  ServerRequest req;
  req.jackd = programs_.jackd;
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
    r.rt_throttle = policy_.group_record();
    for (const std::string& w : session_.warnings()) r.warnings.push_back(w);
    if (!session_.launched()) {
      // The attached server's rate and period are the run's.
      r.frames = session_.frames();
      r.rate = session_.rate();
      if (r.spec) {
        r.spec->period_frames = session_.frames();
        r.spec->rate_hz = session_.rate();
      }
      r.backend.server_settings = session_.server_settings();
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
  f.binary = programs_.client;
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
  xruns_.set_audio(audio_check);
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
  if (o_.ramp) {
    ramp_every_ = o_.ramp->every != 0 ? o_.ramp->every
                                      : ramp_every_cycles(session_.frames(), session_.rate());
    f.ramp = DspRampSpec{o_.ramp->step_pct, ramp_every_, kRampTopPct};
  }
  f.cgroup_procs = policy_.cgroup_procs();
  f.cpus = o_.cpus;
  std::string calibration_problem;
  f.common.dsp_ns_per_stage =
      calibrate_dsp(f, session_.rate(), session_.frames(), &calibration_problem);
  if (!calibration_problem.empty()) {
    // A ramp's load is counted in the engine's stage: without it there is no exact load.
    if (o_.ramp) throw Error(ExitCode::kRunFailed, "--ramp: " + calibration_problem);
    warn(calibration_problem);
  }
  ramp_ns_per_stage_ = f.common.dsp_ns_per_stage;
  // The period the server runs (an attached one's own), for the clients' RLIMIT_RTTIME.
  rt_limit_ = rt_time_limit(session_.period_us(), o_.inject ? o_.inject->usec : 0);
  f.limits = {rttime_child_limit(rt_limit_)};
  live_.with([&](RunResult& r) {
    r.rt_time_limit = rt_time_limit_record(
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

void Runner::start_cycle_reader() {
  const vcard::Shm* card = backend_->card_record();
  JoinConfig jc = live_.with([&](const RunResult& r) {
    return cycle_join_config(card != nullptr, backend_->server_program(), session_.rate(),
                             session_.frames(), static_cast<size_t>(std::max(o_.explain, 0)),
                             r.client_results);
  });
  if (o_.ramp) {
    jc.ramp = JoinConfig::Ramp{ramp_ns_per_stage_, ramp_every_, {}};
    live_.with([&](const RunResult& r) {
      for (const ClientResult& c : r.client_results) jc.ramp->clients.push_back(c.ramp);
    });
    // A ramp's DSP time has no one nominal: its figures against --dsp-load would mislead.
    std::fill(jc.dsp_nominal_us.begin(), jc.dsp_nominal_us.end(), 0.0);
  }
  cycle_reader_ = std::make_unique<CycleTableReader>(*cycle_table_, card, std::move(jc));
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
  std::vector<Connection> graph = wire_chain(
      g, [&](const std::string& name) { return monitor.port_exists(name); }, fleet_, live_,
      [this] { return session_.ended_while_clients_started(run_dir_); }, stop_);
  live_.with([&](RunResult& r) { r.graph = std::move(graph); });
  say(fmt::format("{} clients active and wired in {:.2f} s", o_.clients,
                  static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6));
}

void Runner::start_loads() {
  if (o_.loads.empty()) return;
  loads_.start(o_.loads, programs_.load_tool, run_dir_, o_.load_cpus);
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
  const std::string said = baseline_.start(run_dir_, o_.duration_s, o_.cpus);
  if (!said.empty()) say(said);
  if (ping_.configured()) {
    ping_.make_network(journal_, run_dir_, ::getpid());
    say(ping_.start(o_.duration_s));
  }
}

}  // namespace xrunlab::run_steps

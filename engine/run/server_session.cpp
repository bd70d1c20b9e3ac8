// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/server_session.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "engine/base/errors.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/system/clock.hpp"

namespace xrunlab {

using std::chrono::milliseconds;

ServerSession::~ServerSession() {
  stop();
}

void ServerSession::start(const BackendSetup& setup, const ServerRequest& req, LineHub& hub,
                          JackdLogTap& tap) {
  if (backend_.launches_server()) {
    launch(setup, req, hub, tap);
  } else {
    attach(setup, req);
  }
  rate_ = monitor_.rate();
  frames_ = monitor_.frames();
  const std::string act = monitor_.activate(period_us());
  if (!act.empty()) throw Error(ExitCode::kServerFailed, act);
}

void ServerSession::launch(const BackendSetup& setup, const ServerRequest& req, LineHub& hub,
                           JackdLogTap& tap) {
  const std::string program = backend_.server_program();
  name_ = setup.server_name;
  argv_ = backend_.server_argv(setup);
  if (argv_.empty()) {
    ServerSpec s;
    s.jackd = req.jackd;
    s.name = setup.server_name;
    s.priority = req.priority;
    s.clients = req.clients;
    s.ports = req.ports;
    s.verbose = backend_.server_verbose();
    s.driver = backend_.driver_argv(setup);
    argv_ = xrunlab::jackd_argv(s);
  }
  const std::string log = req.run_dir + "/" + program + ".log";
  tap.open(log);
  SpawnSpec spec;
  spec.argv = argv_;
  spec.capture_output = true;
  // JACK2 looks up servers by name only; keep the user's default server out of reach anyway.
  spec.env = {{"JACK_NO_AUDIO_RESERVATION", "1"}};
  for (const auto& kv : backend_.server_env()) spec.env.push_back(kv);
  spec.cgroup_procs = req.cgroup_procs;
  spec.cpus = req.cpus;
  spec.limits = req.limits;
  jackd_ = Child::spawn(spec);
  hub.add(jackd_.output_fd(), [&tap](std::string_view line) { tap.on_line(line); });
  if (req.say) {
    req.say(fmt::format("started {} (server '{}', pid {})", program, name_, jackd_.pid()));
  }

  const std::string err = monitor_.connect(
      name_, req.timeout, [this] { return jackd_.running(); }, req.monitor_name);
  if (!err.empty()) {
    throw Error(ExitCode::kServerFailed,
                err + " (" + program + " " + jackd_.describe_exit() + "); see " + log);
  }
  // What the server runs, read back through the JACK API (jack_get_sample_rate,
  // jack_get_buffer_size): it must be what was asked for.
  if (monitor_.rate() != req.rate || monitor_.frames() != req.frames) {
    throw Error(ExitCode::kServerFailed,
                fmt::format("{} runs at {} Hz with {} frames, not the requested {} Hz and {} "
                            "frames; choose values the server supports",
                            program, monitor_.rate(), monitor_.frames(), req.rate, req.frames));
  }
  // jackd's log lines are stamped on CLOCK_MONOTONIC_RAW, JACK2's clock. Another server
  // (PipeWire: CLOCK_MONOTONIC) writes no such lines, and the engine measures its offset itself.
  const int64_t skew =
      static_cast<int64_t>(monitor_.now_us()) - static_cast<int64_t>(mono_raw_us());
  if (program == "jackd" && std::llabs(skew) > 1000) {
    warnings_.push_back(fmt::format(
        "jack_get_time() differs from CLOCK_MONOTONIC_RAW by {} us; log-line arrival times are "
        "approximate",
        skew));
  }
}

// --backend attach: the user's server. Its settings are recorded, not chosen; nothing of it is
// changed (the policy applies to our clients only).
void ServerSession::attach(const BackendSetup& setup, const ServerRequest& req) {
  name_ = backend_.server_name(setup);
  const std::string err = monitor_.connect(
      name_, req.timeout, [] { return true; }, req.monitor_name);
  if (!err.empty()) {
    throw Error(ExitCode::kServerFailed,
                err + "; is a JACK (or PipeWire-JACK) server named '" + name_ +
                    "' running for this user? (--backend attach:NAME picks another)");
  }
  const uint32_t rate = monitor_.rate(), frames = monitor_.frames();
  if ((req.frames_given && frames != req.frames) || (req.rate_given && rate != req.rate)) {
    throw Error(ExitCode::kUsage,
                fmt::format("--backend attach: the server '{}' runs {} frames at {} Hz, not the "
                            "{} frames at {} Hz asked for; leave --period and --rate out to "
                            "take the server's",
                            name_, frames, rate, req.frames, req.rate));
  }
  settings_ = monitor_.server_settings();
  if (req.say) {
    req.say(
        fmt::format("attached to the running server '{}' ({} Hz, {} frames)", name_, rate, frames));
  }
}

std::string ServerSession::ended() {
  if (!backend_.launches_server()) {
    return monitor_.server_gone() ? "the attached server '" + name_ + "' shut the monitor down"
                                  : std::string();
  }
  if (!monitor_.server_gone() && jackd_.running()) return "";
  // JACK's shutdown notice can come before the process has ended: give it a moment.
  return jackd_.wait_for(milliseconds(300))
             ? backend_.server_program() + " " + jackd_.describe_exit()
             : backend_.server_program() +
                   " shut the monitor client down (the server is still running)";
}

std::string ServerSession::ended_while_clients_started(const std::string& run_dir) {
  const bool alive = backend_.launches_server() ? jackd_.running() : !monitor_.server_gone();
  if (alive) return "";
  const std::string program = backend_.server_program();
  return program + " " + jackd_.describe_exit() + " while clients started; see " + run_dir + "/" +
         program + ".log";
}

std::string ServerSession::stop(milliseconds grace) noexcept {
  if (!backend_.launches_server()) {
    monitor_.close();
    return "";
  }
  const bool was_running = jackd_.running();  // a jackd that died earlier is reported there
  Monitor::server_stopping();
  jackd_.stop(grace);
  const std::optional<int> status = jackd_.wait_status();
  // The server is gone (whether or not JACK's shutdown callback has run yet): no deactivation.
  monitor_.close(/*server_stopped=*/true);
  return was_running && status ? jackd_stop_problem(*status, static_cast<int>(grace.count())) : "";
}

}  // namespace xrunlab

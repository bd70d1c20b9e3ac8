// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The JACK server of a run and the engine's monitor client on it: either a private jackd that
// the run launches (its output to jackd.log through the hub), or the user's running server
// (--backend attach), which is only connected to. Either way the monitor is connected,
// checked against the requested rate and period, and activated.
// Non-realtime: the run's thread.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/jack/monitor.hpp"
#include "engine/run/jackd_log_tap.hpp"
#include "engine/run/line_hub.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

struct ServerRequest {
  std::string jackd;                              // the jackd program, resolved
  int priority = 70;                              // jackd -P; 0 = no realtime (-r)
  int clients = 0, ports = 0;                     // for jackd's port maximum
  uint32_t rate = 0, frames = 0;                  // what the run asks for
  bool rate_given = false, frames_given = false;  // attach: asked for explicitly
  std::chrono::milliseconds timeout{10000};       // for the server to accept clients
  std::string cgroup_procs;        // start jackd inside this cgroup ("" = where we are)
  std::vector<int> cpus;           // --cpus: jackd's CPU affinity, set before exec (empty = ours)
  std::vector<ChildLimit> limits;  // jackd's resource limits (RLIMIT_RTTIME), set before exec
  std::string run_dir;             // jackd.log goes here
  std::string monitor_name;        // unique on the machine: "<private server name>-monitor"
  std::function<void(const std::string&)> say;  // progress lines for the user
};

class ServerSession {
 public:
  explicit ServerSession(Backend& backend) : backend_(backend) {}
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;
  ~ServerSession();  // stop()

  // Launches jackd with the backend's driver (its output to `tap` through `hub`) or attaches
  // to the user's server, connects and activates the monitor. Throws Error(kServerFailed)
  // saying why (with jackd's exit and where its log is), Error(kUsage) when an attached
  // server runs another rate or period than the one asked for explicitly.
  void start(const BackendSetup& setup, const ServerRequest& req, LineHub& hub, JackdLogTap& tap);

  bool launched() const { return backend_.launches_server(); }
  const std::string& name() const { return name_; }
  const std::vector<std::string>& jackd_argv() const { return argv_; }
  pid_t jackd_pid() const { return jackd_.pid(); }
  uint32_t rate() const { return rate_; }  // what the server runs
  uint32_t frames() const { return frames_; }
  double period_us() const { return static_cast<double>(frames_) * 1e6 / rate_; }
  Monitor& monitor() { return monitor_; }
  // attach: what the server says about itself (run.json backend.server_settings); else nullopt.
  const std::optional<ServerSettings>& server_settings() const { return settings_; }
  // Problems worth a warning in the results (a clock skew between JACK and the engine).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // "" while the server runs; else one line saying what happened (jackd's exit status, or the
  // server's shutdown of the monitor), for the run's status.
  std::string ended();
  // jackd's exit while the clients were starting, for an Error message ("" while it runs).
  std::string ended_while_clients_started(const std::string& run_dir);

  // Stops our jackd (SIGTERM, SIGKILL after `grace`), then closes the monitor; a server that
  // is not ours (attach) only loses the monitor. Never throws. Returns "" or what went wrong
  // with our jackd's stop (jackd_stop_problem).
  //
  // Our jackd goes first: JackEngine::Close closes every client in one pass, where the
  // monitor's own deactivation and close before it were a graph change and a notification
  // round to every client of a server still running them: 0.2 s at 253 clients on a quiet
  // machine, and 6-8 s when the clients' DSP load kept their notification threads waiting.
  std::string stop(std::chrono::milliseconds grace = std::chrono::milliseconds(1000)) noexcept;

 private:
  void launch(const BackendSetup& setup, const ServerRequest& req, LineHub& hub, JackdLogTap& tap);
  void attach(const BackendSetup& setup, const ServerRequest& req);

  Backend& backend_;
  std::string name_;
  std::vector<std::string> argv_;
  Child jackd_;
  Monitor monitor_;
  uint32_t rate_ = 0, frames_ = 0;
  std::optional<ServerSettings> settings_;
  std::vector<std::string> warnings_;
};

}  // namespace xrunlab

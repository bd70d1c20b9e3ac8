// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/client_fleet.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/run/client_telemetry.hpp"

namespace xrunlab {

using std::chrono::milliseconds;

std::string client_name(const std::string& prefix, int index) {
  return fmt::format("{}c{:02d}", prefix, index);
}

ClientArgs client_args(const FleetSpec& f, int i) {
  ClientArgs a = f.common;
  a.name = client_name(f.name_prefix, i);
  a.index = i;
  a.dsp_load_pct = f.dsp_load_pct / f.clients;
  a.telemetry_fd = 3;
  a.wait_start = true;
  if (f.audio_check) {
    // The audible chain: port 1 carries the test signal from the head to the tail.
    a.check_port = true;
    a.source = i == 1;
    a.sink = i == f.clients;
    if (a.sink) {
      a.record_dir = f.record_dir;
      if (!f.record_dir.empty()) a.record_format = f.record_format;
    }
    if (a.source || a.sink) a.source_file = f.source_file;
  }
  if (f.inject && i == f.inject_client) a.inject = f.inject;
  if (f.ramp) {
    const double n = f.clients;
    a.dsp_ramp = DspRampSpec{f.ramp->step_pct / n, f.ramp->every, f.ramp->max_pct / n};
  }
  return a;
}

std::vector<std::string> client_argv(const FleetSpec& f, int i) {
  std::vector<std::string> argv = {f.binary};
  for (std::string& arg : to_argv(client_args(f, i))) argv.push_back(std::move(arg));
  return argv;
}

size_t ClientFleet::spawn(const FleetSpec& f, LineHub& hub, LiveResult& live,
                          const std::atomic<uint64_t>& window_start_us,
                          const std::atomic<bool>& stop) {
  run_dir_ = f.run_dir;
  live.with([&](RunResult& r) {
    r.client_results.resize(static_cast<size_t>(f.clients));
    for (int i = 1; i <= f.clients; ++i) {
      r.client_results[static_cast<size_t>(i - 1)].index = i;
      r.client_results[static_cast<size_t>(i - 1)].name = client_name(f.name_prefix, i);
    }
  });
  children_.reserve(static_cast<size_t>(f.clients));
  full_log_ = f.full_log;
  for (int i = 1; i <= f.clients && !stop.load(); ++i) {
    SpawnSpec spec;
    spec.argv = client_argv(f, i);
    spec.cgroup_procs = f.cgroup_procs;
    spec.cpus = f.cpus;
    spec.limits = f.limits;
    spec.capture_output = true;
    spec.stdin_pipe = true;
    spec.fd3_pipe = true;
    auto log = std::make_unique<FilteredLog>();
    log->open(fmt::format("{}/clients/c{:02d}.log", f.run_dir, i), f.full_log);
    Child child = Child::spawn(spec);
    const size_t k = static_cast<size_t>(i - 1);
    hub.add(child.output_fd(), [l = log.get()](std::string_view line) { l->on_line(line); });
    logs_.push_back(std::move(log));
    live.with([&](RunResult& r) { r.client_results[k].pid = child.pid(); });
    hub.add(child.fd3_fd(), [&live, k, &window_start_us](std::string_view line) {
      live.with([&](RunResult& r) { apply_client_line(r, k, line, window_start_us.load()); });
    });
    names_.push_back(client_name(f.name_prefix, i));
    children_.push_back(std::move(child));
  }
  return children_.size();
}

std::string server_end_within(const std::function<std::string()>& server_ended,
                              milliseconds grace) {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (true) {
    if (std::string gone = server_ended(); !gone.empty()) return gone;
    if (std::chrono::steady_clock::now() >= deadline) return "";
    std::this_thread::sleep_for(milliseconds(5));
  }
}

void ClientFleet::wait_active(LiveResult& live, const std::function<std::string()>& server_ended,
                              const std::atomic<bool>& stop,
                              const std::function<std::string()>& runaway) {
  const size_t n = children_.size();
  const auto deadline =
      std::chrono::steady_clock::now() + milliseconds(15000 + 500 * static_cast<int64_t>(n));
  while (true) {
    if (runaway) {
      if (const std::string why = runaway(); !why.empty()) {
        throw Error(ExitCode::kClientsFailed, why);
      }
    }
    size_t ready = 0;
    std::string failed;
    live.with([&](const RunResult& r) {
      for (const ClientResult& c : r.client_results) {
        if (c.hello) ++ready;
        if (!c.error.empty()) failed = c.name + ": " + c.error;
      }
    });
    for (size_t i = 0; i < n && failed.empty(); ++i) {
      if (!children_[i].running()) failed = names_[i] + " " + children_[i].describe_exit();
    }
    if (!failed.empty()) {
      // A client that failed because its server died: the server's end is what to say.
      if (const std::string gone = server_end_within(server_ended); !gone.empty()) {
        throw Error(ExitCode::kServerFailed, gone);
      }
      throw Error(ExitCode::kClientsFailed,
                  "client failed to start: " + failed + "; see " + run_dir_ + "/clients/");
    }
    if (const std::string gone = server_ended(); !gone.empty()) {
      throw Error(ExitCode::kServerFailed, gone);
    }
    if (ready == n) break;
    if (std::chrono::steady_clock::now() >= deadline || stop.load()) {
      throw Error(stop.load() ? ExitCode::kInterrupted : ExitCode::kClientsFailed,
                  fmt::format("only {} of {} clients activated{}", ready, n,
                              stop.load() ? " before the interrupt" : " in time"));
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  live.with([&](const RunResult& r) {
    for (const ClientResult& c : r.client_results) {
      if (!c.sched_error.empty()) throw Error(ExitCode::kPermission, c.name + ": " + c.sched_error);
    }
  });
}

void ClientFleet::send(const std::string& line) {
  for (Child& c : children_) write_all(c.stdin_fd(), line);
}

void ClientFleet::send_each(const std::vector<std::string>& text) {
  for (size_t i = 0; i < children_.size() && i < text.size(); ++i) {
    if (!text[i].empty()) write_all(children_[i].stdin_fd(), text[i]);
  }
}

std::string ClientFleet::first_ended() {
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i].running()) return names_[i] + " " + children_[i].describe_exit();
  }
  return "";
}

std::optional<int> ClientFleet::wait_status(size_t k) {
  Child& c = children_.at(k);
  c.running();
  return c.wait_status();
}

void ClientFleet::kill(size_t k) noexcept {
  if (k < children_.size()) children_[k].signal(SIGKILL);
}

bool ClientFleet::all_done(LiveResult& live) {
  bool all = true;
  live.with([&](const RunResult& r) {
    for (size_t i = 0; i < children_.size(); ++i) {
      all = all && (r.client_results[i].final || !children_[i].running());
    }
  });
  return all;
}

void ClientFleet::name_abnormal_ends(RunResult& r) const {
  for (size_t i = 0; i < children_.size() && i < r.client_results.size(); ++i) {
    ClientResult& c = r.client_results[i];
    if (!c.final && c.error.empty()) {
      c.error = "no final report (" + children_[i].describe_exit() + ")";
    }
  }
}

LogFilter ClientFleet::log_counts() const {
  LogFilter all(full_log_);
  for (const auto& l : logs_) all.merge(l->counts());
  return all;
}

void ClientFleet::stop(milliseconds clean) noexcept {
  // One deadline for all of them at each step, not one per client: 254 clients stop in about
  // the time one does.
  const auto wait_all = [this](milliseconds grace) {
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (true) {
      bool any = false;
      for (Child& c : children_) any = c.running() || any;
      if (!any || std::chrono::steady_clock::now() >= deadline) return;
      std::this_thread::sleep_for(milliseconds(5));
    }
  };
  for (Child& c : children_) c.close_stdin();
  wait_all(clean);
  for (Child& c : children_) c.signal(SIGTERM);
  wait_all(milliseconds(400));
  for (Child& c : children_) c.stop(milliseconds(0));
}

void ClientFleet::kill_all() noexcept {
  for (Child& c : children_) c.signal(SIGKILL);
}

double calibrate_dsp(const FleetSpec& f, uint32_t rate, uint32_t frames, std::string* problem) {
  if (f.dsp_load_pct <= 0 && !f.ramp) return 0;
  ClientArgs a;
  a.ports = f.common.ports;
  a.calibrate_rate = rate;
  a.calibrate_frames = frames;
  SpawnSpec spec;
  spec.argv = {f.binary};
  for (std::string& arg : to_argv(a)) spec.argv.push_back(std::move(arg));
  spec.cgroup_procs = f.cgroup_procs;
  spec.cpus = f.cpus;
  const std::string line = first_stdout_line(spec, std::chrono::milliseconds(10000));
  double ns = 0;
  try {
    ns = nlohmann::json::parse(line).at("ns_per_stage").get<double>();
  } catch (const std::exception&) {
    ns = 0;
  }
  if (!(ns > 0)) {
    *problem = "the DSP calibration (" + f.binary + " --calibrate) printed '" + line +
               "': every client calibrates itself instead";
    return 0;
  }
  return ns;
}

}  // namespace xrunlab

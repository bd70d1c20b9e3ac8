// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_supervisor.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/loads/compile_tree.hpp"
#include "engine/loads/process_tree.hpp"
#include "engine/loads/x_display.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"

namespace xrunlab::load_tool {
namespace {

using namespace std::chrono_literals;

constexpr auto kStopGrace = 1s;              // SIGTERM -> SIGKILL
constexpr auto kKillGiveUp = 10s;            // after SIGKILL: report processes stuck in the kernel
constexpr auto kFailureBackoff = 1s;         // a run that failed within a second restarts after 1 s
constexpr auto kMinRestartInterval = 100ms;  // between two starts of a program (daemonizers!)
constexpr size_t kMaxErrors = 20;            // in the report; every error also goes to stderr
constexpr size_t kMaxExitStatuses = 10;      // the last ones
constexpr auto kXServerStart = 10s;          // Xvfb names its display in well under a second

// Shell convention: the exit status, or 128 + the signal that killed the process.
int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

std::vector<int> stop_signals() {
  return {SIGTERM, SIGINT, SIGHUP};
}

timespec to_timespec(Clock::duration d) {
  if (d < Clock::duration::zero()) d = Clock::duration::zero();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return ts;
}

// Forks a built-in worker (no exec: programs start through spawn_process): own process group,
// SIGTERM when the supervisor dies, default signal handling. `body` runs in the child and must
// not return normally (it is followed by _exit(0)).
template <typename Body>
pid_t fork_worker(Body&& body) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) {
    if (pid > 0) ::setpgid(pid, pid);  // also done by the child: whoever is first
    return pid;
  }
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(0);  // the supervisor is already gone
  ::signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  body();
  ::_exit(0);
}

const char* role_name(Role r) {
  switch (r) {
    case Role::kMakeLoop:
      return "make";
    case Role::kProgram:
      return "program";
    case Role::kXServer:
      return "X server";
    case Role::kCountedProgram:
      return "counted program";
    case Role::kCpu:
      return "cpu";
    case Role::kBench:
      return "bench";
    case Role::kIoWrite:
      return "io-write";
    case Role::kIoRead:
      return "io-read";
    case Role::kIoCopy:
      return "io-copy";
    case Role::kNetReceiver:
      return "net receiver";
    case Role::kNetSender:
      return "net sender";
  }
  return "worker";
}

// x11: the drawers' environment: the supervisor's, on the private display, with no X
// authority file (the private server has no access control beyond its unix socket) and no
// Wayland display that Mesa could prefer.
std::vector<std::string> x_client_env(int display) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (name != "DISPLAY" && name != "XAUTHORITY" && name != "WAYLAND_DISPLAY") {
      env.push_back(entry);
    }
  }
  env.push_back(fmt::format("DISPLAY=:{}", display));
  env.emplace_back("XAUTHORITY=/dev/null");
  return env;
}

}  // namespace

sigset_t supervisor_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : stop_signals()) sigaddset(&set, s);
  sigaddset(&set, SIGCHLD);
  return set;
}

Supervisor::Supervisor(Config cfg, Shared* shared) : cfg_(std::move(cfg)), shared_(shared) {}

Supervisor::~Supervisor() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void Supervisor::add_error(const std::string& e) {
  std::fprintf(stderr, "xrunlab-load: error: %s\n", e.c_str());
  std::fflush(stderr);
  if (errors_.size() < kMaxErrors) {
    errors_.push_back(e);
  } else {
    ++errors_dropped_;
  }
}

std::vector<std::string> Supervisor::errors() const {
  auto e = errors_;
  if (errors_dropped_ > 0) e.push_back(fmt::format("... and {} more errors", errors_dropped_));
  return e;
}

void Supervisor::record_status(int code) {
  exit_statuses_.push_back(code);
  if (exit_statuses_.size() > kMaxExitStatuses) exit_statuses_.pop_front();
}

std::string Supervisor::take_message(Slot& slot) {
  std::string m(slot.message, strnlen(slot.message, sizeof slot.message));
  slot.message[0] = '\0';
  return m;
}

bool Supervisor::setup() {
  auto add = [this](Role role, int count) {
    for (int i = 0; i < count; ++i) {
      Worker w;
      w.role = role;
      w.slot = static_cast<int>(workers_.size());
      workers_.push_back(w);
    }
  };
  switch (cfg_.kind) {
    case Kind::kCompile: {
      const std::string src = cfg_.scratch + "/src";
      const std::string e = generate_source_tree(src);
      if (!e.empty()) {
        add_error("compile: " + e);
        return false;
      }
      const std::string make = find_program("make").value_or("make");
      make_clean_ = {make, {"make", "-C", src, "clean"}, true};
      make_build_ = {make, {"make", "-C", src, fmt::format("-j{}", cfg_.value)}, true};
      // A jobserver inherited from an outer make must not reach this one.
      for (char** env = environ; *env != nullptr; ++env) {
        const std::string entry = *env;
        const std::string name = entry.substr(0, entry.find('='));
        if (name != "MAKEFLAGS" && name != "MFLAGS" && name != "MAKELEVEL" && name != "MAKEFILES" &&
            name != "GNUMAKEFLAGS" && name != "MAKEOVERRIDES") {
          make_env_.push_back(entry);
        }
      }
      add(Role::kMakeLoop, 1);
      break;
    }
    case Kind::kHackbench:
      program_ = {find_program("hackbench").value_or("hackbench"),
                  {"hackbench", "-g", std::to_string(cfg_.value), "-l", "2000"},
                  true};
      add(Role::kProgram, 1);
      break;
    case Kind::kExec:
      program_ = {find_program(cfg_.args.front()).value_or(cfg_.args.front()), cfg_.args, false};
      add(Role::kProgram, 1);
      break;
    case Kind::kX11:
      // A private, headless X server on a display it picks itself (-displayfd: the first one
      // free, so neither the user's X nor another run's is touched), on unix sockets only.
      x_server_ = {find_program("Xvfb").value_or("Xvfb"),
                   {"Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "640x480x24"},
                   true};
      counted_ = {find_program("glxgears").value_or("glxgears"),
                  {"glxgears"},
                  std::nullopt,
                  OutputKind::kGlxgearsFrames};
      add(Role::kXServer, 1);  // first: start_due_workers starts it before the drawers
      add(Role::kCountedProgram, static_cast<int>(cfg_.value));
      break;
    case Kind::kTop:
      counted_ = {find_program("top").value_or("top"),
                  {"top", "-b", "-d", "0"},
                  std::nullopt,
                  OutputKind::kTopRefreshes};
      add(Role::kCountedProgram, 1);
      break;
    case Kind::kCpu:
      add(Role::kCpu, static_cast<int>(cfg_.value));
      break;
    case Kind::kBench:
      add(Role::kBench, static_cast<int>(cfg_.value));
      break;
    case Kind::kIoWrite:
      add(Role::kIoWrite, 1);
      break;
    case Kind::kIoRead:
      add(Role::kIoRead, 1);
      break;
    case Kind::kIoCopy:
      add(Role::kIoCopy, 1);
      break;
    case Kind::kNet: {
      listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = 0;  // chosen by the kernel
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof addr;
      if (listen_fd_ < 0 ||
          ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
          ::listen(listen_fd_, 4) != 0 ||
          ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        add_error("net: cannot listen on 127.0.0.1: " + errno_text(errno));
        return false;
      }
      port_ = ntohs(addr.sin_port);
      add(Role::kNetReceiver, 1);
      add(Role::kNetSender, 1);
      break;
    }
  }
  return true;
}

int Supervisor::run() {
  const sigset_t set = supervisor_signal_set();
  Clock::duration wait = Clock::duration::zero();  // first look for a stop that came early
  for (;;) {
    timespec ts = to_timespec(wait);
    siginfo_t info{};
    const int sig = ::sigtimedwait(&set, &info, &ts);
    for (int s : stop_signals()) {
      if (sig == s) return sig;
    }
    reap(nullptr);
    start_due_workers();
    const auto now = Clock::now();
    Clock::time_point next = now + 1s;
    for (const auto& w : workers_) {
      if (w.pid < 0 && !waits_for_display(w)) next = std::min(next, w.next_start);
    }
    wait = next - now;
  }
}

bool Supervisor::waits_for_display(const Worker& w) const {
  return w.role == Role::kCountedProgram && cfg_.kind == Kind::kX11 && display_ < 0;
}

void Supervisor::start_due_workers() {
  const auto now = Clock::now();
  for (auto& w : workers_) {
    if (w.pid < 0 && w.next_start <= now && !waits_for_display(w)) start(w);
  }
}

pid_t Supervisor::start_x_server() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    add_error("cannot start the X server: pipe: " + errno_text(errno));
    return -1;
  }
  pid_t pid = -1;
  try {
    pid = spawn_program(x_server_, fds[1]);
  } catch (const Error& e) {
    ::close(fds[0]);
    ::close(fds[1]);
    add_error(fmt::format("cannot start the X server: {}", e.what()));
    return -1;
  }
  ::close(fds[1]);
  std::string why;
  display_ = read_display_number(fds[0], kXServerStart, &why);
  ::close(fds[0]);
  if (display_ < 0) {
    add_error(
        fmt::format("the X server '{}' (pid {}): {}", fmt::join(x_server_.argv, " "), pid, why));
    ::kill(-pid, SIGTERM);  // reaped by reap(), started again after a back-off
  } else {
    // In the log: which display was this load's (the tests check that its files are gone).
    std::printf("xrunlab-load: X server (pid %d) on display :%d\n", static_cast<int>(pid),
                display_);
    std::fflush(stdout);
    // For the run's janitor, should the engine die and the janitor kill the server.
    try {
      write_file_atomic(cfg_.scratch + "/" + kXDisplayFile, x_display_record(display_, pid));
    } catch (const std::exception& e) {
      add_error(fmt::format("cannot record the X display for the janitor: {}", e.what()));
    }
  }
  return pid;
}

pid_t Supervisor::spawn_program(const Program& p, int fd3) {
  SpawnOptions o;
  o.program = p.path;
  o.argv = p.argv;
  if (!make_env_.empty() && (&p == &make_clean_ || &p == &make_build_)) o.env = make_env_;
  o.stdin_fd = kDevNullFd;
  o.stdout_fd = p.quiet ? kDevNullFd : kInheritFd;
  o.stderr_fd = kInheritFd;  // the supervisor's log
  o.fd3 = fd3;
  o.death_signal = SIGTERM;
  return spawn_process(o);
}

void Supervisor::start(Worker& w) {
  Slot& slot = shared_->slots[w.slot];
  slot.message[0] = '\0';
  pid_t pid = -1;
  switch (w.role) {
    case Role::kMakeLoop:
    case Role::kProgram: {
      const Program& p = w.role == Role::kProgram ? program_
                         : w.make_build           ? make_build_
                                                  : make_clean_;
      try {
        pid = spawn_program(p);
      } catch (const Error& e) {
        if (e.code() != ExitCode::kMissingProgram) {
          add_error(fmt::format("cannot start the {} worker: {}", role_name(w.role), e.what()));
          w.next_start = Clock::now() + kFailureBackoff;
          return;
        }
        // The program could not be executed: a start whose program ended at once with 127,
        // as a shell reports it, and the reason.
        std::snprintf(slot.message, sizeof slot.message, "%s", e.what());
        if (w.role == Role::kProgram) ++exec_starts_;
        w.pid = 0;
        w.started = Clock::now();
        ++workers_started_;
        on_exit(w, W_EXITCODE(127, 0));
        return;
      }
      if (w.role == Role::kProgram) ++exec_starts_;
      break;
    }
    case Role::kXServer:
      pid = start_x_server();
      if (pid < 0) {
        w.next_start = Clock::now() + kFailureBackoff;
        return;
      }
      break;
    case Role::kCountedProgram:
      if (cfg_.kind == Kind::kX11) counted_.env = x_client_env(display_);
      pid = fork_worker([&] { counted_program_worker(slot, counted_); });
      break;
    case Role::kCpu: {
      const unsigned seed = static_cast<unsigned>(w.slot) * 2654435761u + 1u;
      pid = fork_worker([seed] { cpu_worker(seed); });
      break;
    }
    case Role::kBench:
      pid = fork_worker([&] { bench_worker(slot); });
      break;
    case Role::kIoWrite:
      pid = fork_worker([&] { io_write_worker(slot, cfg_.scratch, cfg_.value); });
      break;
    case Role::kIoRead:
      pid = fork_worker([&] { io_read_worker(slot, cfg_.scratch, cfg_.value); });
      break;
    case Role::kIoCopy:
      pid = fork_worker([&] { io_copy_worker(slot, cfg_.scratch, cfg_.value); });
      break;
    case Role::kNetReceiver:
      pid = fork_worker([&] { net_receiver(slot, listen_fd_); });
      break;
    case Role::kNetSender:
      pid = fork_worker([&] {
        ::close(listen_fd_);
        net_sender(slot, port_);
      });
      break;
  }
  const auto now = Clock::now();
  if (pid < 0) {
    add_error(
        fmt::format("cannot start the {} worker: fork: {}", role_name(w.role), errno_text(errno)));
    w.next_start = now + kFailureBackoff;
    return;
  }
  w.pid = pid;
  w.started = now;
  ++workers_started_;
}

void Supervisor::reap(bool* none_left) {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      // Orphaned grandchildren (reparented to this subreaper) are reaped here too.
      for (auto& w : workers_) {
        if (w.pid == pid) on_exit(w, status);
      }
      continue;
    }
    if (pid < 0 && errno == EINTR) continue;
    if (none_left != nullptr) *none_left = (pid < 0 && errno == ECHILD);
    return;
  }
}

void Supervisor::on_exit(Worker& w, int status) {
  const pid_t pid = w.pid;
  w.pid = -1;
  if (w.role == Role::kXServer && display_ >= 0) {
    // Killed with SIGKILL, it could not remove its socket (and lock): only its own are removed.
    const std::string e = remove_stale_x_files("/tmp", display_, pid);
    if (!e.empty()) add_error(e);
    ::unlink((cfg_.scratch + "/" + kXDisplayFile).c_str());
    display_ = -1;
  }
  if (stopping_) return;  // the stop's own SIGTERM/SIGKILL: not a result
  const auto now = Clock::now();
  const bool quick = now - w.started < 1s;
  const int code = exit_code_of(status);
  const std::string message = take_message(shared_->slots[w.slot]);
  bool failed = code != 0;
  switch (w.role) {
    case Role::kMakeLoop: {
      record_status(code);
      const Program& p = w.make_build ? make_build_ : make_clean_;
      if (!failed && w.make_build) ++builds_;
      if (failed) {
        add_error(fmt::format("'make {}' {}", fmt::join(p.argv.begin() + 1, p.argv.end(), " "),
                              describe_wait_status(status)));
      }
      w.make_build = !w.make_build;
      break;
    }
    case Role::kProgram:
      record_status(code);
      if (!message.empty()) {
        add_error(message);
      } else if (cfg_.kind == Kind::kHackbench) {
        if (failed) {
          add_error(
              fmt::format("'{}' {}", fmt::join(program_.argv, " "), describe_wait_status(status)));
        } else {
          ++hackbench_runs_;
        }
      }
      break;
    case Role::kXServer:  // runs until it is stopped; its drawers end with it
      record_status(code);
      failed = true;
      add_error(
          fmt::format("the X server '{}' (pid {}) {}; the drawers start again on its next "
                      "display",
                      fmt::join(x_server_.argv, " "), pid, describe_wait_status(status)));
      break;
    case Role::kCountedProgram:
      record_status(code);
      if (failed) {
        add_error(message.empty() ? fmt::format("{} worker (pid {}) {}", role_name(w.role), pid,
                                                describe_wait_status(status))
                                  : message);
      }
      break;
    default:  // the built-in workers loop until they are stopped
      failed = true;
      add_error(fmt::format("{} worker (pid {}) {}{}", role_name(w.role), pid,
                            describe_wait_status(status), message.empty() ? "" : ": " + message));
      break;
  }
  // A program that forks into the background and exits at once must not be restarted in a
  // tight loop: its orphans stay with this subreaper until the stop, so bound how many there are.
  w.next_start =
      failed && quick ? now + kFailureBackoff : std::max(now, w.started + kMinRestartInterval);
}

uint64_t Supervisor::iterations() const {
  switch (cfg_.kind) {
    case Kind::kCompile:
      return builds_;
    case Kind::kHackbench:
      return hackbench_runs_;
    case Kind::kExec:
      return exec_starts_;
    case Kind::kIoWrite:
    case Kind::kIoRead:
    case Kind::kIoCopy:
      return shared_->slots[0].passes.load();
    case Kind::kCpu:
    case Kind::kNet:
    case Kind::kX11:    // units(): frames drawn
    case Kind::kTop:    // units(): refreshes
    case Kind::kBench:  // units(): benchmark jobs
      return 0;
  }
  return 0;
}

BenchReport Supervisor::bench_totals() const {
  std::vector<BenchWorkerFigures> figures;
  for (const auto& w : workers_) {
    if (w.role != Role::kBench) continue;
    const Slot& s = shared_->slots[w.slot];
    BenchWorkerFigures f;
    f.jobs = s.bench_jobs.load(std::memory_order_acquire);
    f.wall_ns_sum = s.bench_wall_ns.load();
    f.wall_ns_min = s.bench_wall_ns_min.load();
    f.cpu_ns_sum = s.bench_cpu_ns.load();
    figures.push_back(f);
  }
  return bench_report(figures);
}

std::optional<BenchFigures> Supervisor::bench() const {
  if (cfg_.kind != Kind::kBench) return std::nullopt;
  return bench_totals().figures;
}

uint64_t Supervisor::units() const {
  if (cfg_.kind == Kind::kBench) return bench_totals().units;
  uint64_t n = 0;
  for (const auto& w : workers_) {
    if (w.role == Role::kCountedProgram) n += shared_->slots[w.slot].units.load();
  }
  return n;
}

double Supervisor::units_s() const {
  if (cfg_.kind == Kind::kBench) return bench_totals().units_s;
  uint64_t ms = 0;  // the longest span one program's count covers
  for (const auto& w : workers_) {
    if (w.role == Role::kCountedProgram) ms = std::max(ms, shared_->slots[w.slot].units_ms.load());
  }
  return static_cast<double>(ms) / 1000.0;
}

const char* Supervisor::unit_name() const {
  switch (cfg_.kind) {
    case Kind::kX11:
      return "frames drawn";
    case Kind::kTop:
      return "refreshes";
    case Kind::kBench:
      return "benchmark jobs";
    default:
      return "";
  }
}

uint64_t Supervisor::bytes() const {
  switch (cfg_.kind) {
    case Kind::kIoWrite:
    case Kind::kIoRead:
    case Kind::kIoCopy:
    case Kind::kNet:  // slot 0 is the receiver
      return shared_->slots[0].bytes.load();
    default:
      return 0;
  }
}

size_t Supervisor::signal_all(int sig, std::set<pid_t>* seen) {
  if (seen == nullptr) {
    for (const auto& w : workers_) {
      if (w.pid > 0) ::kill(-w.pid, sig);  // its process group: make's compilers, ...
    }
  }
  const auto pids = descendant_pids(::getpid());
  for (pid_t p : pids) {
    if (seen == nullptr || seen->insert(p).second) ::kill(p, sig);
  }
  return pids.size();
}

void Supervisor::wait_for_child(Clock::duration timeout) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  const timespec ts = to_timespec(timeout);
  siginfo_t info{};
  ::sigtimedwait(&set, &info, &ts);
}

bool Supervisor::stop() {
  stopping_ = true;
  const auto t0 = Clock::now();
  std::set<pid_t> termed;
  for (pid_t p : descendant_pids(::getpid())) termed.insert(p);
  signal_all(SIGTERM, nullptr);
  bool none_left = false;
  reap(&none_left);
  while (!none_left && Clock::now() - t0 < kStopGrace) {
    wait_for_child(10ms);
    reap(&none_left);
    if (!none_left) signal_all(SIGTERM, &termed);  // children forked meanwhile
  }
  size_t left = 0;
  while (!none_left) {
    left = signal_all(SIGKILL, nullptr);
    wait_for_child(10ms);
    reap(&none_left);
    if (!none_left && Clock::now() - t0 > kStopGrace + kKillGiveUp) {
      add_error(fmt::format("{} processes did not end {} s after SIGKILL", left,
                            std::chrono::duration_cast<std::chrono::seconds>(kKillGiveUp).count()));
      return false;
    }
  }
  return true;
}

}  // namespace xrunlab::load_tool

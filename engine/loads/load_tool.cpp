#include "engine/loads/load_tool.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/loads/compile_tree.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/loads/load_workers.hpp"
#include "engine/loads/process_tree.hpp"
#include "engine/loads/scratch_folder.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {
namespace {

using load_tool::canonical;
using load_tool::check_scratch;
using load_tool::cpu_worker;
using load_tool::exec_argv;
using load_tool::generate_source_tree;
using load_tool::io_copy_worker;
using load_tool::io_read_worker;
using load_tool::io_write_worker;
using load_tool::Kind;
using load_tool::LoadArgs;
using load_tool::mkdir_p;
using load_tool::net_receiver;
using load_tool::net_sender;
using load_tool::parse_load_args;
using load_tool::Shared;
using load_tool::Slot;

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kStopGrace = 1s;              // SIGTERM -> SIGKILL
constexpr auto kKillGiveUp = 10s;            // after SIGKILL: report processes stuck in the kernel
constexpr auto kFailureBackoff = 1s;         // a run that failed within a second restarts after 1 s
constexpr auto kMinRestartInterval = 100ms;  // between two starts of a program (daemonizers!)
constexpr size_t kMaxErrors = 20;            // in the report; every error also goes to stderr
constexpr size_t kMaxExitStatuses = 10;      // the last ones

// ---------------------------------------------------------------------------------------------
// Small system helpers

// Shell convention: the exit status, or 128 + the signal that killed the process.
int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "error";
  }
}

// ---------------------------------------------------------------------------------------------
// The supervisor

std::vector<int> stop_signals() {
  return {SIGTERM, SIGINT, SIGHUP};
}

sigset_t supervisor_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : stop_signals()) sigaddset(&set, s);
  sigaddset(&set, SIGCHLD);
  return set;
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

// A program the supervisor runs, prepared (resolved path, argv) before it is needed.
struct Program {
  std::string path;               // resolved with find_program at start
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  bool quiet = false;             // stdout to /dev/null (stderr stays on the log)
};

struct Config {
  Kind kind = Kind::kCpu;
  std::string kind_name;
  std::vector<std::string> args;  // as reported (exec: the command line)
  long value = 0;                 // JOBS, GROUPS, N or MIB
  std::string scratch;            // canonical
};

enum class Role { kMakeLoop, kProgram, kCpu, kIoWrite, kIoRead, kIoCopy, kNetReceiver, kNetSender };

const char* role_name(Role r) {
  switch (r) {
    case Role::kMakeLoop:
      return "make";
    case Role::kProgram:
      return "program";
    case Role::kCpu:
      return "cpu";
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

struct Worker {
  Role role = Role::kCpu;
  int slot = 0;
  pid_t pid = -1;
  Clock::time_point started{};
  Clock::time_point next_start{};
  bool make_build = false;  // compile: the current (or next) make run is the build, else clean
};

class Supervisor {
 public:
  Supervisor(Config cfg, Shared* shared) : cfg_(std::move(cfg)), shared_(shared) {}
  ~Supervisor() {
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Prepares the load (source tree, listening socket, programs). False when it cannot run.
  bool setup();
  // Runs the workers until a stop signal; returns it.
  int run();
  // Stops and reaps every descendant. True when none is left.
  bool stop();

  void add_error(const std::string& e) {
    std::fprintf(stderr, "xrunlab-load: error: %s\n", e.c_str());
    std::fflush(stderr);
    if (errors_.size() < kMaxErrors) {
      errors_.push_back(e);
    } else {
      ++errors_dropped_;
    }
  }

  uint64_t iterations() const;
  uint64_t bytes() const;
  uint64_t workers_started() const { return workers_started_; }
  const std::deque<int>& exit_statuses() const { return exit_statuses_; }
  std::vector<std::string> errors() const {
    auto e = errors_;
    if (errors_dropped_ > 0) e.push_back(fmt::format("... and {} more errors", errors_dropped_));
    return e;
  }

 private:
  void start_due_workers();
  void start(Worker& w);
  // Starts `p` (see Program); throws xrunlab::Error as spawn_process does.
  pid_t spawn_program(const Program& p);
  void reap(bool* none_left);
  void on_exit(Worker& w, int status);
  void record_status(int code) {
    exit_statuses_.push_back(code);
    if (exit_statuses_.size() > kMaxExitStatuses) exit_statuses_.pop_front();
  }
  std::string take_message(Slot& slot) {
    std::string m(slot.message, strnlen(slot.message, sizeof slot.message));
    slot.message[0] = '\0';
    return m;
  }
  // Sends `sig` to the workers' process groups and to every descendant (or only to those not
  // signalled before when `seen` is given). Returns how many descendants were found.
  size_t signal_all(int sig, std::set<pid_t>* seen);
  void wait_for_child(Clock::duration timeout);

  Config cfg_;
  Shared* shared_;
  std::vector<Worker> workers_;
  Program make_clean_, make_build_, program_;
  std::vector<std::string> make_env_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  bool stopping_ = false;
  uint64_t hackbench_runs_ = 0, builds_ = 0, exec_starts_ = 0, workers_started_ = 0;
  std::deque<int> exit_statuses_;
  std::vector<std::string> errors_;
  size_t errors_dropped_ = 0;
};

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
    case Kind::kCpu:
      add(Role::kCpu, static_cast<int>(cfg_.value));
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
      if (w.pid < 0) next = std::min(next, w.next_start);
    }
    wait = next - now;
  }
}

void Supervisor::start_due_workers() {
  const auto now = Clock::now();
  for (auto& w : workers_) {
    if (w.pid < 0 && w.next_start <= now) start(w);
  }
}

pid_t Supervisor::spawn_program(const Program& p) {
  SpawnOptions o;
  o.program = p.path;
  o.argv = p.argv;
  if (!make_env_.empty() && (&p == &make_clean_ || &p == &make_build_)) o.env = make_env_;
  o.stdin_fd = kDevNullFd;
  o.stdout_fd = p.quiet ? kDevNullFd : kInheritFd;
  o.stderr_fd = kInheritFd;  // the supervisor's log
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
    case Role::kCpu: {
      const unsigned seed = static_cast<unsigned>(w.slot) * 2654435761u + 1u;
      pid = fork_worker([seed] { cpu_worker(seed); });
      break;
    }
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
      return 0;
  }
  return 0;
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

// ---------------------------------------------------------------------------------------------
// The program

struct Options {
  std::string report;
  std::string scratch;
  int nice = 0;
  bool nice_given = false;
  std::string kind;
  std::vector<std::string> args;
};

constexpr const char* kFooter =
    "Kinds:\n"
    "  compile JOBS     generate a C source tree (300 files) in DIR/src, then loop "
    "'make -C DIR/src clean' and 'make -C DIR/src -jJOBS' (1..64); iterations = builds.\n"
    "  hackbench GROUPS loop 'hackbench -g GROUPS -l 2000' (1..64); iterations = runs.\n"
    "  cpu N            N busy-loop processes (1..256).\n"
    "  io-write MIB     loop: write DIR/io-write.dat (MIB MiB, 1..4096), fsync, remove; "
    "bytes = written.\n"
    "  io-read MIB      create DIR/io-read.dat once, then read it again and again, dropping it "
    "from the page cache after each pass; bytes = read.\n"
    "  io-copy MIB      create a source once, then loop: copy it to DIR/io-copy.dst, fsync, "
    "remove; bytes = copied.\n"
    "  net              a sender streams 64 KiB writes to a receiver over TCP on 127.0.0.1; "
    "bytes = received.\n"
    "  exec -- ARGV...  run ARGV (no shell), start it again whenever it ends; iterations = "
    "starts.\n"
    "Runs until SIGTERM, SIGINT or SIGHUP; then stops every process it started (SIGTERM, 1 s, "
    "SIGKILL), removes DIR and writes FILE.\n"
    "Exit status: 0 stopped and cleaned up, 1 setup or clean-up failed, 2 bad usage, 3 a "
    "program is missing.";

// Returns the exit status for a usage error or --help, or nullopt when the options are fine.
std::optional<int> parse_options(int argc, char** argv, Options* o) {
  CLI::App app{
      "xrunlab-load: runs one background load for xrunlab until it is told to stop, then stops "
      "every process of the load, removes its scratch folder and writes a JSON report."};
  app.add_option("--report", o->report, "Write the JSON report to FILE when stopping.")
      ->required()
      ->type_name("FILE");
  app.add_option("--scratch", o->scratch,
                 "Scratch folder DIR (created; must be empty or absent): removed when stopping.")
      ->required()
      ->type_name("DIR");
  CLI::Option* nice =
      app.add_option("--nice", o->nice, "Nice value N of the load and all its processes.")
          ->check(CLI::Range(-20, 19))
          ->capture_default_str()
          ->type_name("N");
  app.add_option("kind", o->kind,
                 "compile, hackbench, cpu, io-write, io-read, io-copy, net or exec.")
      ->required()
      ->type_name("KIND");
  app.add_option("args", o->args, "Arguments of the kind (see below).")->type_name("ARGS");
  app.footer(kFooter);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "xrunlab-load: error: %s (see xrunlab-load --help)\n", e.what());
    return static_cast<int>(ExitCode::kUsage);
  }
  o->nice_given = nice->count() > 0;
  return std::nullopt;
}

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

struct Outcome {
  std::string stopped_by = "error";
  bool scratch_removed = false;
  double duration_s = 0;
};

std::string report_json(const Options& o, const std::vector<std::string>& args,
                        const Supervisor* sup, const std::vector<std::string>& errors,
                        const Outcome& out) {
  rusage self{}, children{};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &children);
  nlohmann::ordered_json j;
  j["kind"] = o.kind;
  j["args"] = args;
  j["iterations"] = sup != nullptr ? sup->iterations() : 0;
  j["bytes"] = sup != nullptr ? sup->bytes() : 0;
  j["cpu_user_s"] = seconds(self.ru_utime) + seconds(children.ru_utime);
  j["cpu_system_s"] = seconds(self.ru_stime) + seconds(children.ru_stime);
  j["workers_started"] = sup != nullptr ? sup->workers_started() : 0;
  j["exit_statuses"] =
      sup != nullptr ? std::vector<int>(sup->exit_statuses().begin(), sup->exit_statuses().end())
                     : std::vector<int>{};
  j["errors"] = errors;
  j["scratch_removed"] = out.scratch_removed;
  j["stopped_by"] = out.stopped_by;
  j["duration_s"] = out.duration_s;
  j["nice"] = o.nice;
  return j.dump(2) + "\n";
}

}  // namespace

int load_tool_main(int argc, char** argv) {
  // Stop signals and SIGCHLD are taken with sigtimedwait, from the very start: a SIGTERM that
  // comes early still leads to a clean stop and a report. SIGPIPE must not end the supervisor
  // half-way through a stop when the log reader is gone.
  const sigset_t set = supervisor_signal_set();
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  Options o;
  if (const auto code = parse_options(argc, argv, &o)) return *code;
  auto usage = [](const std::string& line) {
    std::fprintf(stderr, "xrunlab-load: error: %s\n", line.c_str());
    return static_cast<int>(ExitCode::kUsage);
  };
  std::string bad_args;
  const std::optional<LoadArgs> load_args = parse_load_args(o.kind, o.args, &bad_args);
  if (!load_args) return usage(bad_args);
  if (const std::string e = missing_program_for(o.kind, o.args); !e.empty()) {
    std::fprintf(stderr, "xrunlab-load: error: %s\n", e.c_str());
    return static_cast<int>(ExitCode::kMissingProgram);
  }
  bool scratch_existed = false;
  if (const std::string e = check_scratch(o.scratch, &scratch_existed); !e.empty()) {
    return usage(e);
  }
  std::string report_dir = o.report.substr(0, o.report.rfind('/') + 1);
  if (report_dir.empty()) report_dir = ".";
  const auto report_dir_real = canonical(report_dir);
  if (!report_dir_real) return usage("--report '" + o.report + "': its folder does not exist");

  Config cfg;
  cfg.kind = load_args->kind->kind;
  cfg.kind_name = o.kind;
  cfg.args = cfg.kind == Kind::kExec ? exec_argv(o.args) : o.args;
  cfg.value = load_args->value;

  std::vector<std::string> early_errors;
  Outcome out;
  out.scratch_removed = !scratch_existed;
  auto write_report = [&](const Supervisor* sup, const std::vector<std::string>& errors) {
    try {
      write_file_atomic(o.report, report_json(o, cfg.args, sup, errors, out));
      return true;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xrunlab-load: error: %s\n", e.what());
      return false;
    }
  };
  auto fail_early = [&](const std::string& e) {
    std::fprintf(stderr, "xrunlab-load: error: %s\n", e.c_str());
    early_errors.push_back(e);
    write_report(nullptr, early_errors);
    return static_cast<int>(ExitCode::kRunFailed);
  };

  // SCHED_OTHER at the requested nice value, inherited by every process of the load.
  if (::sched_getscheduler(0) != SCHED_OTHER) {
    sched_param param{};
    if (::sched_setscheduler(0, SCHED_OTHER, &param) != 0) {
      return fail_early("cannot switch to SCHED_OTHER: " + errno_text(errno));
    }
  }
  errno = 0;
  const int current_nice = ::getpriority(PRIO_PROCESS, 0);
  if (current_nice != o.nice && ::setpriority(PRIO_PROCESS, 0, o.nice) != 0) {
    const std::string e =
        fmt::format("cannot set nice {} (now {}): {}", o.nice, current_nice, errno_text(errno));
    if (o.nice_given) return fail_early(e + " (a lower nice value needs CAP_SYS_NICE)");
    early_errors.push_back(e);  // the default: run at the inherited nice value (printed below)
  }
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return fail_early("cannot become a child subreaper: " + errno_text(errno));
  }

  if (const std::string e = mkdir_p(o.scratch); !e.empty()) return fail_early("--scratch: " + e);
  out.scratch_removed = false;
  const auto scratch_real = canonical(o.scratch);
  if (!scratch_real || *scratch_real == "/") {
    return fail_early("--scratch '" + o.scratch + "' cannot be resolved");
  }
  cfg.scratch = *scratch_real;
  if ((*report_dir_real + "/").rfind(cfg.scratch + "/", 0) == 0) {
    ::rmdir(cfg.scratch.c_str());  // empty: just created or checked empty
    return usage("--report '" + o.report + "' is inside the scratch folder, which is removed");
  }

  void* mem =
      ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    out.scratch_removed = remove_tree(cfg.scratch).empty();
    return fail_early("cannot map shared memory: " + errno_text(errno));
  }
  Shared* shared = new (mem) Shared();

  const std::string label =
      fmt::format("{}{}{}", o.kind, cfg.args.empty() ? "" : " ", fmt::join(cfg.args, " "));
  std::printf("xrunlab-load: %s: started (pid %d, nice %d, scratch %s)\n", label.c_str(),
              static_cast<int>(::getpid()), ::getpriority(PRIO_PROCESS, 0), cfg.scratch.c_str());
  std::fflush(stdout);

  const auto t0 = Clock::now();
  Supervisor sup(cfg, shared);
  for (const auto& e : early_errors) sup.add_error(e);
  bool ok = true;
  if (sup.setup()) {
    const int sig = sup.run();
    out.stopped_by = signal_name(sig);
  } else {
    ok = false;
  }
  out.duration_s =
      std::chrono::duration_cast<std::chrono::duration<double>>(Clock::now() - t0).count();
  if (!sup.stop()) ok = false;
  const std::string removed = remove_tree(cfg.scratch);
  out.scratch_removed = removed.empty();
  if (!removed.empty()) {
    sup.add_error(removed);
    ok = false;
  }
  if (!write_report(&sup, sup.errors())) ok = false;
  std::printf("xrunlab-load: %s: stopped by %s after %.2f s: %" PRIu64 " iterations, %" PRIu64
              " bytes, %" PRIu64 " workers started, scratch %s\n",
              label.c_str(), out.stopped_by.c_str(), out.duration_s, sup.iterations(), sup.bytes(),
              sup.workers_started(), out.scratch_removed ? "removed" : "NOT removed");
  std::fflush(stdout);
  ::munmap(mem, sizeof(Shared));
  return ok ? 0 : static_cast<int>(ExitCode::kRunFailed);
}

}  // namespace xrunlab

#include "engine/run/run.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/backend/alsa_card.hpp"
#include "engine/backend/backend.hpp"
#include "engine/jack/jack_registry.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/jack/jackd_log.hpp"
#include "engine/jack/monitor.hpp"
#include "engine/loads/load_spec.hpp"
#include "engine/loads/load_tool.hpp"
#include "engine/loads/loads.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/sched/iso_governor.hpp"
#include "engine/sched/policy.hpp"
#include "engine/sched/preflight.hpp"
#include "engine/sched/rt_throttle.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/clock.hpp"
#include "engine/system/host_context.hpp"
#include "engine/system/proc_stat.hpp"
#include "engine/system/process.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/telemetry.hpp"
#include "engine/wire/thread_sched.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {
namespace {

using std::chrono::milliseconds;

constexpr size_t kMaxGlitchesKept = 10000;  // run.json keeps the first ones; the total is exact

std::string utc_now(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

void make_dirs(const std::string& path) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      throw Error(ExitCode::kOutput, "cannot create folder '" + partial +
                                         "': " + std::strerror(errno) +
                                         " (choose a writable folder with --output)");
    }
  }
  if (::access(path.c_str(), W_OK) != 0) {
    throw Error(ExitCode::kOutput, "cannot write to folder '" + path +
                                       "': " + std::strerror(errno) +
                                       " (choose a writable folder with --output)");
  }
}

std::string create_run_dir(const RunOptions& o) {
  const std::string base = o.output + "/" + o.label + "/" + utc_now("%Y%m%dT%H%M%SZ");
  make_dirs(o.output + "/" + o.label);
  std::string dir = base;
  for (int n = 2; ::mkdir(dir.c_str(), 0755) != 0; ++n) {
    if (errno != EEXIST) {
      throw Error(ExitCode::kOutput, "cannot create folder '" + dir + "': " + std::strerror(errno) +
                                         " (choose a writable folder with --output)");
    }
    dir = base + "-" + std::to_string(n);
  }
  make_dirs(dir + "/clients");
  return dir;
}

// Is SCHED_FIFO at `priority` permitted here? Tried on a short-lived thread.
std::string check_realtime_permission(int priority) {
  std::string why;
  std::thread probe([&] {
    sched_param sp{};
    sp.sched_priority = priority;
    const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (rc != 0) why = std::strerror(rc);
  });
  probe.join();
  if (why.empty()) return "";
  rlimit rl{};
  getrlimit(RLIMIT_RTPRIO, &rl);
  return fmt::format(
      "SCHED_FIFO priority {} is not permitted ({}; RLIMIT_RTPRIO is {}): add your user to the "
      "'audio' group with '@audio - rtprio 95' in /etc/security/limits.d/, log in again, or "
      "run with --priority 0 (no realtime)",
      priority, why, rl.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(rl.rlim_cur));
}

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Line-splitting reader for one descriptor.
struct LineReader {
  int fd = -1;
  std::string buffer;
  bool eof = false;
  template <typename Fn>
  void pump(Fn&& on_line) {
    char chunk[65536];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) {
      eof = true;
      if (!buffer.empty()) on_line(buffer);
      buffer.clear();
      return;
    }
    if (n < 0) {
      if (errno != EINTR && errno != EAGAIN) eof = true;
      return;
    }
    buffer.append(chunk, static_cast<size_t>(n));
    size_t start = 0, nl;
    while ((nl = buffer.find('\n', start)) != std::string::npos) {
      on_line(std::string_view(buffer).substr(start, nl - start));
      start = nl + 1;
    }
    buffer.erase(0, start);
  }
};

void write_line(int fd, const std::string& s) {
  if (fd < 0) return;
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Is process `pid` in the cgroup-v1 group at `group_path` (…/cpu/<group>)?
bool in_cgroup(pid_t pid, const std::string& group_path) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  const auto cpu = group_path.find("/cpu/");
  const std::string group = cpu == std::string::npos ? group_path : group_path.substr(cpu + 4);
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    if (controllers.find(",cpu,") != std::string::npos) return line.substr(b + 1) == group;
  }
  return false;
}

// Where the iso-emu governor puts the audio threads while they are over their share.
ThreadTarget iso_demoted() {
  return ThreadTarget{};
}  // SCHED_OTHER nice 0

class Runner {
 public:
  Runner(const RunOptions& o, const std::vector<std::string>& command_line,
         const std::string& self_exe, const std::atomic<bool>& stop)
      : o_(o), self_exe_(self_exe), stop_(stop), log_counter_(0) {
    r_.schema_version = kSchemaVersion;
    r_.xrunlab_version = kVersion;
    r_.command_line = command_line;
    r_.spec = to_json(o);
    r_.clients = o.clients;
    r_.ports = o.ports;
    r_.frames = o.period;
    r_.rate = o.rate;
    backend_ = make_backend(parse_backend(o.backend));
  }

  RunOutcome run();

 private:
  void preflight();
  void prepare_policy();
  void prepare_loads();
  void start_loads();
  void stop_loads();
  void note_reclaimed(const ReclaimResult& rr);
  void apply_server_policy();
  std::vector<AudioThread> read_audio_threads();
  std::string check_audio_threads(const std::vector<AudioThread>& threads) const;
  void start_governor();
  void restore_system();
  void start_server();
  void attach_server();
  void set_reference();
  void start_clients();
  void wire();
  void measure();
  void stop_all();
  void io_loop();
  void on_client_line(size_t i, std::string_view line);
  void on_jackd_line(std::string_view line);
  void checkpoint(uint64_t now_us);
  void say(const std::string& s) const {
    if (!o_.quiet) std::fprintf(stderr, "xrunlab: %s\n", s.c_str());
  }
  std::string scripts_dir() const;
  bool server_alive() {
    return backend_->launches_server() ? jackd_.running() : !monitor_.server_gone();
  }
  void collect_backend();

  RunOptions o_;
  std::unique_ptr<Backend> backend_;
  BackendSetup setup_;
  // Our JACK client names start with this: "xrunlab-" on our own server; "xrunlab-<pid>-" on an
  // attached one, which other runs (or the user's xrunlab) may share.
  std::string name_prefix_ = "xrunlab-";
  bool audio_check_ = false;
  std::string self_exe_;
  const std::atomic<bool>& stop_;
  std::string run_dir_;
  std::string client_binary_;
  std::string jackd_path_;

  std::mutex mu_;  // guards r_, log_counter_, window_ and the client flags below
  RunResult r_;
  JackdXrunCounter log_counter_;
  uint64_t window_start_us_ = 0, window_end_us_ = UINT64_MAX;
  bool window_open_ = false;

  PolicySpec policy_;
  PolicyTargets targets_;
  bool realtime_ = true;  // jackd -R (false only with --priority 0)
  int server_priority_ = 70;
  SysJournal journal_;
  RtThrottleGroup throttle_;
  bool throttled_ = false;
  std::unique_ptr<IsoGovernor> governor_;
  pid_t server_tid_ = 0;
  std::vector<LoadSpec> load_specs_;
  std::string load_tool_;
  LoadSet loads_;

  Child jackd_;
  std::vector<Child> clients_;
  Monitor monitor_;
  std::thread io_thread_;
  std::atomic<bool> io_stop_{false};
  int jackd_log_fd_ = -1;
  uint64_t t_begin_us_ = 0;
  ExitCode failure_code_ = ExitCode::kOk;
};

std::string Runner::scripts_dir() const {
  return find_script_dir(self_exe_);
}

void Runner::preflight() {
  if (backend_->launches_server()) {
    auto jackd = find_program(o_.jackd);
    if (!jackd) {
      throw Error(ExitCode::kMissingProgram,
                  "jackd not found ('" + o_.jackd +
                      "'): install JACK2 (apt-get install --no-install-recommends jackd2) or pass "
                      "--jackd PATH");
    }
    jackd_path_ = *jackd;
  }
  client_binary_ =
      o_.client_binary.empty() ? dirname_of(self_exe_) + "/xrunlab-client" : o_.client_binary;
  if (!find_program(client_binary_)) {
    throw Error(ExitCode::kMissingProgram,
                "xrunlab-client not found at '" + client_binary_ +
                    "': build it (cmake --build build) or pass --client-binary PATH");
  }
  prepare_policy();
  prepare_loads();
  setup_.exe_dir = dirname_of(self_exe_);
  setup_.rate = o_.rate;
  setup_.frames = o_.period;
  setup_.ports = o_.ports;
  setup_.nperiods = o_.nperiods;
  backend_->check(setup_);  // a missing or busy device fails before a run folder exists
  run_dir_ = create_run_dir(o_);
  // A run that crashed earlier may have left system settings changed (rt-throttle's cgroup):
  // put them back first, and say so.
  for (const std::string& line : journal_.recover_stale()) {
    say(line);
    r_.warnings.push_back(line);
  }
  // Runs killed earlier may hold JACK registry slots (8 in all) and semaphore files: free them
  // before jackd needs a slot.
  note_reclaimed(reclaim_stale_xrunlab_servers());
  setup_.run_dir = run_dir_;
  setup_.server_name = private_server_name();
}

void Runner::prepare_policy() {
  std::string why;
  policy_ = *parse_policy(o_.policy, &why);  // validated with the options
  realtime_ = o_.priority > 0;
  const bool explicit_prio =
      (policy_.kind == PolicyKind::kFifo || policy_.kind == PolicyKind::kRr) &&
      o_.policy.find(':') != std::string::npos;
  server_priority_ = explicit_prio ? policy_.priority : o_.priority;
  policy_.priority = server_priority_;
  const double period_ns = static_cast<double>(o_.period) * 1e9 / o_.rate;
  const auto client_dsp_ns =
      static_cast<uint64_t>(period_ns * o_.dsp_load_pct / 100.0 / o_.clients);
  targets_ = targets_for(policy_, o_.period, o_.rate, client_dsp_ns);
  if (policy_.kind == PolicyKind::kIsoEmu) {
    // The governor switches every audio thread between one promoted and one demoted class,
    // as SCHED_ISO has no priorities among ISO tasks: the server shares the clients' class.
    targets_.server = targets_.client;
  }
  r_.policy_spec = o_.policy;
  if (!realtime_) {
    // jackd without -R: JACK makes nothing realtime; the threads stay SCHED_OTHER nice 0.
    targets_.server = ThreadTarget{};
    targets_.client = ThreadTarget{};
    r_.scheduling = "SCHED_OTHER nice 0 (--priority 0: jackd without -R, nothing realtime)";
    return;
  }
  r_.scheduling = describe(policy_);
  // jackd always starts in realtime mode (-R -P) so that JACK behaves alike under every policy;
  // the iso-emu governor runs at FIFO 90. Both need the permission, whatever the policy.
  const int highest_rt = policy_.kind == PolicyKind::kIsoEmu ? 90 : server_priority_;
  if (const std::string denied = check_realtime_permission(highest_rt); !denied.empty()) {
    throw Error(ExitCode::kPermission, denied);
  }
  const std::string problem = check_policy(policy_, targets_, o_.clients, collect_sched_facts());
  if (!problem.empty()) {
    const bool unsupported =
        policy_.kind == PolicyKind::kIso || policy_.kind == PolicyKind::kRtThrottle;
    throw Error(unsupported ? ExitCode::kUnsupported : ExitCode::kPermission,
                "--policy " + o_.policy + ": " + problem);
  }
}

void Runner::prepare_loads() {
  if (o_.loads.empty()) return;
  load_tool_ = dirname_of(self_exe_) + "/xrunlab-load";
  if (!find_program(load_tool_)) {
    throw Error(ExitCode::kMissingProgram,
                "xrunlab-load not found at '" + load_tool_ + "': build it (cmake --build build)");
  }
  const int ncpus = static_cast<int>(std::thread::hardware_concurrency());
  for (const std::string& text : o_.loads) {
    std::string why;
    LoadSpec spec = *parse_load(text, ncpus, &why);  // validated with the options
    // Every program a load needs is found before anything starts.
    const std::vector<std::string> args(spec.tool_args.begin() + 1, spec.tool_args.end());
    const std::string missing = missing_program_for(spec.tool_args.front(), args);
    if (!missing.empty()) throw Error(ExitCode::kMissingProgram, "--load " + text + ": " + missing);
    load_specs_.push_back(std::move(spec));
  }
}

void Runner::start_loads() {
  if (load_specs_.empty()) return;
  loads_.start(load_specs_, load_tool_, run_dir_);
  say(fmt::format("started {} load(s): {}", load_specs_.size(), fmt::join(o_.loads, ", ")));
  // A moment to get going (the compile load generates its source tree first).
  const auto until = std::chrono::steady_clock::now() + milliseconds(1000);
  while (std::chrono::steady_clock::now() < until && !stop_.load()) {
    const std::string ended = loads_.check_running();
    if (!ended.empty()) throw Error(ExitCode::kRunFailed, ended);
    std::this_thread::sleep_for(milliseconds(20));
  }
}

void Runner::stop_loads() {
  if (loads_.empty()) return;
  loads_.stop();
  nlohmann::json out = nlohmann::json::array();
  for (const LoadResult& l : loads_.results()) {
    out.push_back(to_json(l, window_start_us_));
    if (!l.error.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      r_.warnings.push_back("load '" + l.spec.text + "': " + l.error);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  r_.loads = std::move(out);
}

void Runner::apply_server_policy() {
  if (!realtime_) return;
  std::string why;
  const auto tid = find_rt_thread(jackd_.pid(), server_priority_, &why);
  if (!tid) {
    throw Error(ExitCode::kServerFailed, "cannot find jackd's realtime thread (SCHED_FIFO " +
                                             std::to_string(server_priority_) + "): " + why);
  }
  server_tid_ = *tid;
  const std::string err = apply_thread_sched(server_tid_, targets_.server);
  if (!err.empty()) throw Error(ExitCode::kPermission, "jackd's realtime thread: " + err);
}

std::vector<AudioThread> Runner::read_audio_threads() {
  std::vector<AudioThread> out;
  auto add = [&](const std::string& role, pid_t pid, pid_t tid, const ThreadTarget& want) {
    AudioThread a;
    a.role = role;
    a.expected = describe_target(want);
    std::string why;
    if (auto s = read_thread_sched(pid, tid, &why)) {
      a.sched = *s;
      a.mismatch = check_thread_sched(*s, want);
      if (a.mismatch.empty() && throttled_ && !in_cgroup(pid, throttle_.path())) {
        a.mismatch = "not in the rt-throttle group " + throttle_.path();
      }
      // Under iso-emu a demoted thread is where the governor put it: that is the policy too.
      if (!a.mismatch.empty() && governor_ && check_thread_sched(*s, iso_demoted()).empty()) {
        a.mismatch.clear();
      }
    } else {
      a.sched.pid = pid;
      a.sched.tid = tid;
      a.mismatch = "cannot read: " + why;
    }
    out.push_back(a);
  };
  if (server_tid_ != 0) add("server", jackd_.pid(), server_tid_, targets_.server);
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < clients_.size(); ++i) {
    const ClientResult& c = r_.client_results[i];
    add(c.name, static_cast<pid_t>(c.pid), static_cast<pid_t>(c.rt_tid), targets_.client);
  }
  return out;
}

std::string Runner::check_audio_threads(const std::vector<AudioThread>& threads) const {
  for (const AudioThread& a : threads) {
    if (!a.mismatch.empty()) {
      return fmt::format("{} thread {} is not in the requested class: {}", a.role, a.sched.tid,
                         a.mismatch);
    }
  }
  return "";
}

void Runner::start_governor() {
  if (policy_.kind != PolicyKind::kIsoEmu || !realtime_) return;
  std::vector<std::pair<pid_t, pid_t>> threads = {{jackd_.pid(), server_tid_}};
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const ClientResult& c : r_.client_results) {
      threads.emplace_back(static_cast<pid_t>(c.pid), static_cast<pid_t>(c.rt_tid));
    }
  }
  governor_ = std::make_unique<IsoGovernor>(policy_.iso_cpu_pct, policy_.iso_period_s,
                                            static_cast<int>(std::thread::hardware_concurrency()));
  // Above every audio thread and above jackd's own priority, so it is never starved.
  const std::string err = governor_->start(threads, targets_.client, iso_demoted(), 90);
  if (!err.empty()) throw Error(ExitCode::kPermission, "iso-emu governor: " + err);
}

void Runner::restore_system() {
  for (const std::string& problem : journal_.restore_all()) {
    say("warning: " + problem);
    std::lock_guard<std::mutex> lock(mu_);
    r_.warnings.push_back(problem);
  }
}

void Runner::note_reclaimed(const ReclaimResult& rr) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!rr.reclaimed.empty()) {
    r_.warnings.push_back(
        fmt::format("freed {} JACK registry slot(s) held by dead xrunlab servers: {}",
                    rr.reclaimed.size(), fmt::join(rr.reclaimed, ", ")));
  }
  if (!rr.removed_files.empty()) {
    r_.warnings.push_back(fmt::format(
        "removed {} /dev/shm file(s) (semaphores, sockets, card records) of dead xrunlab servers",
        rr.removed_files.size()));
  }
  if (!rr.warning.empty()) r_.warnings.push_back(rr.warning);
}

void Runner::start_server() {
  backend_->prepare(setup_);
  r_.backend = backend_->describe();
  if (!backend_->launches_server()) {
    attach_server();
    return;
  }
  ServerSpec s;
  s.jackd = jackd_path_;
  s.name = setup_.server_name;
  s.priority = realtime_ ? server_priority_ : 0;
  s.clients = o_.clients;
  s.ports = o_.ports;
  s.verbose = backend_->server_verbose();
  s.driver = backend_->driver_argv(setup_);
  r_.server_name = s.name;
  r_.jackd_argv = jackd_argv(s);
  jackd_log_fd_ =
      ::open((run_dir_ + "/jackd.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (jackd_log_fd_ < 0) {
    throw Error(ExitCode::kOutput,
                "cannot create '" + run_dir_ + "/jackd.log': " + std::strerror(errno));
  }
  SpawnSpec spec;
  spec.argv = r_.jackd_argv;
  spec.capture_output = true;
  // JACK2 looks up servers by name only; keep the user's default server out of reach anyway.
  spec.env = {{"JACK_NO_AUDIO_RESERVATION", "1"}};
  for (const auto& kv : backend_->server_env()) spec.env.push_back(kv);
  if (policy_.kind == PolicyKind::kRtThrottle && realtime_) {
    const RtThrottleSupport support = detect_rt_throttle();
    if (!support.available) {
      throw Error(ExitCode::kUnsupported, "--policy " + o_.policy + ": " + support.why);
    }
    try {
      say(throttle_.create(journal_, support, policy_.throttle_pct, policy_.throttle_period_us));
    } catch (const Error& e) {
      throw Error(e.code(), "--policy " + o_.policy + ": " + e.what());
    }
    throttled_ = true;
    r_.rt_throttle = {{"cgroup", throttle_.path()},
                      {"rt_runtime_pct", policy_.throttle_pct},
                      {"rt_period_us", policy_.throttle_period_us}};
  }
  if (throttled_) spec.cgroup_procs = throttle_.path() + "/cgroup.procs";
  jackd_ = Child::spawn(spec);
  say("started jackd (server '" + s.name + "', pid " + std::to_string(jackd_.pid()) + ")");
  io_thread_ = std::thread([this] { io_loop(); });

  const std::string err =
      monitor_.connect(s.name, milliseconds(static_cast<int>(o_.server_timeout_s * 1000)),
                       [this] { return jackd_.running(); });
  if (!err.empty()) {
    throw Error(ExitCode::kServerFailed,
                err + " (" + jackd_.describe_exit() + "); see " + run_dir_ + "/jackd.log");
  }
  if (monitor_.rate() != o_.rate || monitor_.frames() != o_.period) {
    throw Error(ExitCode::kServerFailed,
                fmt::format("jackd runs at {} Hz with {} frames, not the requested {} Hz and {} "
                            "frames; choose values JACK supports",
                            monitor_.rate(), monitor_.frames(), o_.rate, o_.period));
  }
  const int64_t skew =
      static_cast<int64_t>(monitor_.now_us()) - static_cast<int64_t>(mono_raw_us());
  if (std::llabs(skew) > 1000) {
    r_.warnings.push_back(fmt::format(
        "jack_get_time() differs from CLOCK_MONOTONIC_RAW by {} us; log-line arrival times are "
        "approximate",
        skew));
  }
  set_reference();
  const std::string act = monitor_.activate(r_.period_us);
  if (!act.empty()) throw Error(ExitCode::kServerFailed, act);
  apply_server_policy();
}

void Runner::set_reference() {
  r_.period_us = static_cast<double>(o_.period) * 1e6 / o_.rate;
  r_.spare_us = r_.period_us;
  r_.delay_reference = backend_->reference_text();
  r_.delay_resolution_us = backend_->reference_resolution_us(o_.rate);
  r_.driver_xruns_reach_monitor = backend_->driver_xruns_reach_monitor();
  std::lock_guard<std::mutex> lock(mu_);
  log_counter_ = JackdXrunCounter(static_cast<int64_t>(r_.period_us / 2));
}

// --backend attach: the user's server. Its settings are recorded, not chosen; nothing of it is
// changed (the policy applies to our clients only).
void Runner::attach_server() {
  r_.server_name = backend_->server_name(setup_);
  name_prefix_ = fmt::format("xrunlab-{}-", ::getpid());
  const std::string err = monitor_.connect(
      r_.server_name, milliseconds(static_cast<int>(o_.server_timeout_s * 1000)),
      [] { return true; }, name_prefix_ + "monitor");
  if (!err.empty()) {
    throw Error(ExitCode::kServerFailed,
                err + "; is a JACK (or PipeWire-JACK) server named '" + r_.server_name +
                    "' running for this user? (--backend attach:NAME picks another)");
  }
  const uint32_t rate = monitor_.rate(), frames = monitor_.frames();
  if ((o_.period_given && frames != o_.period) || (o_.rate_given && rate != o_.rate)) {
    throw Error(ExitCode::kUsage,
                fmt::format("--backend attach: the server '{}' runs {} frames at {} Hz, not the "
                            "{} frames at {} Hz asked for; leave --period and --rate out to "
                            "take the server's",
                            r_.server_name, frames, rate, o_.period, o_.rate));
  }
  o_.period = frames;
  o_.rate = rate;
  r_.frames = frames;
  r_.rate = rate;
  r_.spec["period_frames"] = frames;
  r_.spec["rate_hz"] = rate;
  r_.backend["server_settings"] = monitor_.server_settings();
  io_thread_ = std::thread([this] { io_loop(); });  // the clients' telemetry (no jackd output)
  say(fmt::format("attached to the running server '{}' ({} Hz, {} frames)", r_.server_name, rate,
                  frames));
  set_reference();
  const std::string act = monitor_.activate(r_.period_us);
  if (!act.empty()) throw Error(ExitCode::kServerFailed, act);
}

void Runner::start_clients() {
  const double per_client = o_.dsp_load_pct / o_.clients;
  audio_check_ = o_.audio_check && o_.clients >= 2;
  if (o_.audio_check && !audio_check_) {
    r_.warnings.push_back(
        "no audio check: the test signal needs at least 2 clients (a head and a tail)");
  }
  if (audio_check_) {
    r_.audio.emplace();
    r_.audio->period_frames = o_.period;
    if (o_.record) make_dirs(run_dir_ + "/audio");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    r_.client_results.resize(static_cast<size_t>(o_.clients));
  }
  clients_.reserve(static_cast<size_t>(o_.clients));
  for (int i = 1; i <= o_.clients; ++i) {
    const std::string name = fmt::format("{}c{:02d}", name_prefix_, i);
    {
      std::lock_guard<std::mutex> lock(mu_);
      r_.client_results[static_cast<size_t>(i - 1)].index = i;
      r_.client_results[static_cast<size_t>(i - 1)].name = name;
    }
    SpawnSpec spec;
    spec.argv = {client_binary_,
                 "--server",
                 r_.server_name,
                 "--name",
                 name,
                 "--index",
                 std::to_string(i),
                 "--ports",
                 std::to_string(o_.ports),
                 "--dsp-load",
                 fmt::format("{:.6f}", per_client),
                 "--telemetry-fd",
                 "3",
                 "--wait-start"};
    if (realtime_)
      spec.argv.insert(spec.argv.end(), {"--sched-target", format_target(targets_.client)});
    spec.argv.insert(spec.argv.end(), {"--reference", reference_flag(backend_->reference())});
    if (audio_check_) {
      // The audible chain: port 1 carries the test signal from the head to the tail.
      spec.argv.push_back("--check-port");
      if (i == 1) spec.argv.push_back("--source");
      if (i == o_.clients) {
        spec.argv.push_back("--sink");
        if (o_.record) spec.argv.insert(spec.argv.end(), {"--record-dir", run_dir_ + "/audio"});
      }
    }
    for (const std::string& a : backend_->client_args()) spec.argv.push_back(a);
    if (throttled_) spec.cgroup_procs = throttle_.path() + "/cgroup.procs";
    if (!o_.inject.empty() && i == o_.inject_client) {
      spec.argv.insert(spec.argv.end(), {"--inject-overrun", o_.inject});
    }
    spec.output_path = fmt::format("{}/clients/c{:02d}.log", run_dir_, i);
    spec.stdin_pipe = true;
    spec.fd3_pipe = true;
    Child child = Child::spawn(spec);
    std::lock_guard<std::mutex> lock(mu_);
    r_.client_results[static_cast<size_t>(i - 1)].pid = child.pid();
    clients_.push_back(std::move(child));
  }
  say(fmt::format("started {} clients, waiting for them to activate", o_.clients));
  // Activation costs ~35 ms per client in JACK2 (a graph switch each): scale the wait.
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(15000 + 500 * o_.clients);
  while (true) {
    int ready = 0;
    std::string failed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < clients_.size(); ++i) {
        const ClientResult& c = r_.client_results[i];
        if (c.hello) ++ready;
        if (!c.error.empty()) failed = c.name + ": " + c.error;
      }
    }
    for (size_t i = 0; i < clients_.size() && failed.empty(); ++i) {
      if (!clients_[i].running()) {
        failed = r_.client_results[i].name + " " + clients_[i].describe_exit();
      }
    }
    if (!failed.empty()) {
      throw Error(ExitCode::kClientsFailed,
                  "client failed to start: " + failed + "; see " + run_dir_ + "/clients/");
    }
    if (!server_alive()) {
      throw Error(ExitCode::kServerFailed, "jackd " + jackd_.describe_exit() +
                                               " while clients started; see " + run_dir_ +
                                               "/jackd.log");
    }
    if (ready == o_.clients) break;
    if (std::chrono::steady_clock::now() >= deadline || stop_.load()) {
      throw Error(stop_.load() ? ExitCode::kInterrupted : ExitCode::kClientsFailed,
                  fmt::format("only {} of {} clients activated{}", ready, o_.clients,
                              stop_.load() ? " before the interrupt" : " in time"));
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const ClientResult& c : r_.client_results) {
    if (!c.sched_error.empty()) {
      throw Error(ExitCode::kPermission, c.name + ": " + c.sched_error);
    }
  }
}

void Runner::wire() {
  const auto port = [](const std::string& client, const char* kind, int p) {
    return fmt::format("{}:{}_{}", client, kind, p);
  };
  // A real card may have fewer channels than --ports: those chains start or end unconnected.
  const bool system = backend_->wire_system_ports();
  auto exists = [this](const std::string& name) { return monitor_.port_exists(name); };
  for (int p = 1; p <= o_.ports; ++p) {
    std::string from = fmt::format("system:capture_{}", p);
    if (!system || !exists(from)) from.clear();
    for (const ClientResult& c : r_.client_results) {
      if (!from.empty()) {
        const std::string err = monitor_.connect_ports(from, port(c.name, "in", p));
        if (!err.empty()) throw Error(ExitCode::kClientsFailed, err);
      }
      from = port(c.name, "out", p);
    }
    const std::string to = fmt::format("system:playback_{}", p);
    if (system && exists(to)) {
      const std::string err = monitor_.connect_ports(from, to);
      if (!err.empty()) throw Error(ExitCode::kClientsFailed, err);
    }
  }
  // The card's period marker reaches every client directly, whatever its place in the chain.
  const std::string clock = backend_->clock_port(setup_);
  if (!clock.empty()) {
    for (const ClientResult& c : r_.client_results) {
      const std::string err = monitor_.connect_ports(clock, c.name + ":clock");
      if (!err.empty()) throw Error(ExitCode::kClientsFailed, err);
    }
  }
  // Read the graph back from JACK: what run.json reports is what the server has.
  std::vector<std::string> inputs;
  for (const ClientResult& c : r_.client_results) {
    for (int p = 1; p <= o_.ports; ++p) inputs.push_back(port(c.name, "in", p));
    if (!clock.empty()) inputs.push_back(c.name + ":clock");
  }
  for (int p = 1; p <= o_.ports; ++p) inputs.push_back(fmt::format("system:playback_{}", p));
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& in : inputs) {
    for (const std::string& from : monitor_.connections(in)) r_.graph.emplace_back(from, in);
  }
}

void Runner::on_client_line(size_t i, std::string_view line) {
  std::string why;
  auto msg = telemetry::decode(line, &why);
  std::lock_guard<std::mutex> lock(mu_);
  ClientResult& c = r_.client_results[i];
  if (!msg) {
    r_.warnings.push_back(fmt::format("{}: unreadable telemetry line ({})", c.name, why));
    return;
  }
  if (auto* h = std::get_if<telemetry::Hello>(&*msg)) {
    c.hello = true;
    c.dsp_stages = h->dsp_stages;
    c.dsp_target_us = h->dsp_target_us;
    c.dsp_ns_per_stage = h->dsp_ns_per_stage;
    c.rt_tid = h->rt_tid;
    c.sched_error = h->sched_error;
  } else if (auto* s = std::get_if<telemetry::Second>(&*msg)) {
    add_second(c, *s);
  } else if (auto* f = std::get_if<telemetry::Final>(&*msg)) {
    c.final = true;
    c.cycles_total = f->cycles_total;
    c.ring_dropped = f->ring_dropped;
    if (f->audio && r_.audio) {
      r_.audio->totals = *f->audio;
      r_.audio->final_received = true;
    }
  } else if (auto* g = std::get_if<telemetry::GlitchReport>(&*msg)) {
    if (r_.audio) {
      GlitchResult gr;
      gr.report = *g;
      gr.t_s = window_open_ || window_start_us_ != 0
                   ? static_cast<double>(g->t_us - static_cast<int64_t>(window_start_us_)) / 1e6
                   : 0;
      if (r_.audio->glitches.size() < kMaxGlitchesKept) r_.audio->glitches.push_back(gr);
    }
  } else if (auto* e = std::get_if<telemetry::Error>(&*msg)) {
    c.error = e->message;
  }
}

void Runner::on_jackd_line(std::string_view line) {
  write_line(jackd_log_fd_, std::string(line) + "\n");
  const uint64_t now = mono_raw_us();
  std::lock_guard<std::mutex> lock(mu_);
  if (window_open_ && now >= window_start_us_ && now < window_end_us_) {
    log_counter_.add(line, static_cast<int64_t>(now));
  }
}

void Runner::io_loop() {
  std::vector<LineReader> readers;
  readers.push_back(LineReader{jackd_.output_fd(), {}, false});
  size_t known_clients = 0;
  while (true) {
    {
      // Clients are added while this thread runs; pick up new telemetry pipes.
      std::lock_guard<std::mutex> lock(mu_);
      for (; known_clients < clients_.size() && known_clients < r_.client_results.size();
           ++known_clients) {
        readers.push_back(LineReader{clients_[known_clients].fd3_fd(), {}, false});
      }
    }
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    for (size_t k = 0; k < readers.size(); ++k) {
      if (!readers[k].eof && readers[k].fd >= 0) {
        fds.push_back({readers[k].fd, POLLIN, 0});
        which.push_back(k);
      }
    }
    if (fds.empty() && io_stop_.load()) return;
    if (fds.empty()) {
      std::this_thread::sleep_for(milliseconds(10));
      continue;
    }
    const int n = ::poll(fds.data(), fds.size(), 20);
    if (n < 0 && errno != EINTR) return;
    for (size_t f = 0; f < fds.size(); ++f) {
      if ((fds[f].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const size_t k = which[f];
      if (k == 0) {
        readers[k].pump([this](std::string_view l) { on_jackd_line(l); });
      } else {
        readers[k].pump([this, k](std::string_view l) { on_client_line(k - 1, l); });
      }
    }
    if (io_stop_.load() && n == 0) return;
  }
}

void Runner::checkpoint(uint64_t now_us) {
  // Written in place, under the lock, instead of from a copy: a copy of every client's
  // histograms would double the engine's memory. Telemetry waits in the pipes meanwhile.
  std::lock_guard<std::mutex> lock(mu_);
  const std::string status = r_.status, detail = r_.status_detail, ended = r_.ended_utc;
  const double seconds = r_.seconds_ran;
  r_.seconds_ran = static_cast<double>(now_us - window_start_us_) / 1e6;
  r_.ended_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  r_.status = "incomplete";
  r_.status_detail =
      "checkpoint during the run; if it is still here, the engine was killed before the end";
  finalize(r_);
  try {
    write_run_files(run_dir_, render_run_files(r_));
  } catch (const Error& e) {
    say(std::string("warning: checkpoint failed: ") + e.what());
  }
  r_.status = status;
  r_.status_detail = detail;
  r_.ended_utc = ended;
  r_.seconds_ran = seconds;
}

void Runner::measure() {
  // Every audio thread in its class before anything is measured: a thread that is not is a
  // failed run, not a footnote.
  start_governor();
  {
    auto threads = read_audio_threads();
    const std::string bad = check_audio_threads(threads);
    std::lock_guard<std::mutex> lock(mu_);
    r_.threads_start = std::move(threads);
    if (!bad.empty()) throw Error(ExitCode::kRunFailed, bad);
  }
  // The window starts a little in the future so every client knows it before it begins.
  const uint64_t t0 = monitor_.now_us() + 300000;
  {
    std::lock_guard<std::mutex> lock(mu_);
    window_start_us_ = t0;
    window_open_ = true;
    r_.startup_s = static_cast<double>(t0 - t_begin_us_) / 1e6;
  }
  monitor_.set_window_start(t0);
  for (Child& c : clients_) write_line(c.stdin_fd(), fmt::format("start {}\n", t0));
  const uint64_t planned_end = t0 + static_cast<uint64_t>(o_.duration_s * 1e6);
  say(fmt::format("measuring for {} s (Ctrl-C stops early and keeps the results)", o_.duration_s));

  while (monitor_.now_us() < t0) std::this_thread::sleep_for(milliseconds(1));
  const auto jackd_ticks0 =
      backend_->launches_server() ? process_cpu_ticks(jackd_.pid()) : std::nullopt;
  auto prev = read_proc_stat();
  uint64_t prev_xruns = monitor_.events_total();
  uint64_t next_sample = t0 + 1000000;
  // Checkpoints (run.json and summary.txt marked "incomplete") keep what was measured even if the
  // engine itself is killed with SIGKILL.
  uint64_t next_checkpoint = t0 + 1200000;  // once the clients have sent their first second
  uint64_t next_backend_poll = t0;
  backend_->set_window(t0, 0);
  uint64_t end = planned_end;
  std::string stop_reason;
  const long ncpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  // One /proc/stat + DSP-load sample for the interval ending at `until` (JACK time).
  auto take_sample = [&](uint64_t until) {
    auto cur = read_proc_stat();
    SystemSecond s;
    s.t_s = static_cast<double>(until - t0) / 1e6;
    if (prev && cur) {
      const SystemSample d = diff_proc_stat(*prev, *cur, s.t_s);
      s.user_pct = d.user_pct;
      s.nice_pct = d.nice_pct;
      s.system_pct = d.system_pct;
      s.iowait_pct = d.iowait_pct;
      s.irq_pct = d.irq_pct;
      s.softirq_pct = d.softirq_pct;
      s.intr_per_s = d.intr_per_s;
      s.ctxt_per_s = d.ctxt_per_s;
      const double wall_s = static_cast<double>(cur->taken_us - prev->taken_us) / 1e6;
      const double ticks = static_cast<double>(cur->cpu.total() - prev->cpu.total());
      const double expected =
          wall_s * static_cast<double>(::sysconf(_SC_CLK_TCK)) * static_cast<double>(ncpus);
      if (expected > 0) s.cpu_accounted_pct = 100.0 * ticks / expected;
    }
    s.dsp_load_pct = monitor_.cpu_load();
    const uint64_t xr = monitor_.events_total();
    s.xruns = xr - prev_xruns;
    prev_xruns = xr;
    prev = cur;
    std::lock_guard<std::mutex> lock(mu_);
    r_.system.push_back(s);
  };
  uint64_t last_sample = t0;
  while (true) {
    const uint64_t now = monitor_.now_us();
    if (now >= next_sample && next_sample <= planned_end) {
      take_sample(next_sample);
      last_sample = next_sample;
      next_sample += 1000000;
    }
    if (stop_.load()) {
      stop_reason = "interrupted";
      end = now;
      break;
    }
    if (now >= planned_end) break;
    if (monitor_.server_gone() || !server_alive()) {
      // JACK's shutdown notice can come before the process has ended: give it a moment.
      if (!backend_->launches_server()) {
        stop_reason = "the attached server '" + r_.server_name + "' shut the monitor down";
      } else {
        stop_reason = jackd_.wait_for(milliseconds(300))
                          ? "jackd " + jackd_.describe_exit()
                          : "jackd shut the monitor client down (the server is still running)";
      }
      end = now;
      break;
    }
    for (size_t i = 0; i < clients_.size() && stop_reason.empty(); ++i) {
      if (!clients_[i].running()) {
        stop_reason = r_.client_results[i].name + " " + clients_[i].describe_exit();
      }
    }
    if (stop_reason.empty()) stop_reason = loads_.check_running();
    if (!stop_reason.empty()) {
      end = now;
      break;
    }
    if (now >= next_backend_poll) {
      backend_->poll();
      next_backend_poll = now + 100000;
    }
    if (now >= next_checkpoint) {
      checkpoint(now);
      next_checkpoint += 5000000;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }

  // A stopped run keeps its last partial second of system data too.
  if (end > last_sample + 200000) take_sample(end);
  if (jackd_ticks0 && end > t0) {
    if (const auto ticks1 = process_cpu_ticks(jackd_.pid())) {
      const double cpu_s = static_cast<double>(*ticks1 - *jackd_ticks0) /
                           static_cast<double>(::sysconf(_SC_CLK_TCK));
      std::lock_guard<std::mutex> lock(mu_);
      r_.jackd_cpu_pct = 100.0 * cpu_s / (static_cast<double>(end - t0) / 1e6);
    }
  }

  // The audio threads once more, while everything still runs.
  auto threads_end = read_audio_threads();
  const std::string bad_end = check_audio_threads(threads_end);
  if (governor_) {
    const IsoReport iso = governor_->stop();
    governor_.reset();
    std::lock_guard<std::mutex> lock(mu_);
    r_.iso_emulation = to_json(iso);
  }

  // Stop: tell every client the end of the window, then collect their last seconds.
  for (Child& c : clients_) write_line(c.stdin_fd(), fmt::format("stop {}\n", end));
  backend_->set_window(t0, end);
  stop_loads();
  {
    std::lock_guard<std::mutex> lock(mu_);
    window_end_us_ = end + 20000;  // late notifications of the last cycle still count
    r_.seconds_ran = static_cast<double>(end - t0) / 1e6;
    r_.threads_end = std::move(threads_end);
    if (stop_reason == "interrupted") {
      r_.status = "interrupted";
      r_.status_detail =
          "stopped by a signal after " + fmt::format("{:.1f}", r_.seconds_ran) + " s";
      failure_code_ = ExitCode::kInterrupted;
    } else if (!stop_reason.empty()) {
      r_.status = "failed";
      r_.status_detail = stop_reason;
      failure_code_ = ExitCode::kRunFailed;
    } else if (!bad_end.empty()) {
      r_.status = "failed";
      r_.status_detail = "at the end: " + bad_end;
      failure_code_ = ExitCode::kRunFailed;
    } else {
      r_.status = "completed";
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(1200);
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < clients_.size(); ++i) {
        all = all && (r_.client_results[i].final || !clients_[i].running());
      }
    }
    if (all) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  std::this_thread::sleep_for(milliseconds(25));  // late xrun notifications of the last cycle
  XrunCounts x = monitor_.xrun_snapshot();
  std::lock_guard<std::mutex> lock(mu_);
  x.log_client_events = log_counter_.client_events();
  x.log_client_lines = log_counter_.client_lines();
  x.log_driver_xruns = log_counter_.driver_xruns();
  x.log_driver_max_delay_us = log_counter_.driver_max_delay_us();
  x.late_clients.assign(log_counter_.late_clients().begin(), log_counter_.late_clients().end());
  for (const JackdXrunCounter::Event& e : log_counter_.events()) {
    x.log_events.push_back(
        {static_cast<double>(e.arrival_us - static_cast<int64_t>(window_start_us_)) / 1e6, e.driver,
         e.clients});
  }
  r_.xruns = x;
  window_open_ = false;
}

void Runner::stop_all() {
  stop_loads();
  // Clients first (they leave the graph cleanly), then the monitor, then the server.
  for (Child& c : clients_) c.close_stdin();
  for (Child& c : clients_) c.wait_for(milliseconds(300));
  for (Child& c : clients_) c.signal(SIGTERM);
  for (Child& c : clients_) c.stop(milliseconds(400));
  monitor_.close();
  if (governor_) {
    governor_->stop();
    governor_.reset();
  }
  jackd_.stop(milliseconds(1000));
  collect_backend();
  restore_system();
  // A jackd that died uncleanly (or had to be killed) leaves its registry slot and semaphores.
  if (!r_.server_name.empty() && backend_->launches_server())
    note_reclaimed(reclaim_stale_xrunlab_servers("/dev/shm", r_.server_name));
  io_stop_ = true;
  if (io_thread_.joinable()) io_thread_.join();
  if (jackd_log_fd_ >= 0) ::close(jackd_log_fd_);
  jackd_log_fd_ = -1;
}

// The card's final record into the results, then its files go.
void Runner::collect_backend() {
  backend_->poll();
  {
    std::lock_guard<std::mutex> lock(mu_);
    const nlohmann::json settings =
        r_.backend.is_object() ? r_.backend.value("server_settings", nlohmann::json()) : nullptr;
    r_.backend = backend_->describe();
    if (!settings.is_null()) r_.backend["server_settings"] = settings;
    r_.xruns.card_xruns = backend_->card_xruns_in_window();
    for (const std::string& w : backend_->warnings()) r_.warnings.push_back(w);
  }
  backend_->cleanup();
}

RunOutcome Runner::run() {
  t_begin_us_ = mono_raw_us();
  r_.started_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  preflight();
  r_.host = collect_host_context();
  RunOutcome out;
  out.run_dir = run_dir_;
  try {
    start_server();
    start_clients();
    wire();
    say(fmt::format("{} clients active and wired in {:.2f} s", o_.clients,
                    static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6));
    start_loads();
    measure();
  } catch (const std::exception& e) {
    // Nothing measured yet (or the setup broke): stop everything, keep the logs, report.
    stop_all();
    const auto* err = dynamic_cast<const Error*>(&e);
    r_.status = err != nullptr && err->code() == ExitCode::kInterrupted ? "interrupted" : "failed";
    r_.status_detail = e.what();
    r_.ended_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
    finalize(r_);
    try {
      write_run_files(run_dir_, render_run_files(r_));
    } catch (const Error&) {
    }
    throw;
  }
  stop_all();
  // Clients that ended abnormally are named in the results.
  for (size_t i = 0; i < clients_.size(); ++i) {
    ClientResult& c = r_.client_results[i];
    if (!c.final && c.error.empty()) {
      c.error = "no final report (" + clients_[i].describe_exit() + ")";
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  r_.ended_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  r_.exit_code = static_cast<int>(failure_code_);
  r_.engine_peak_rss_kib = ru.ru_maxrss;
  if (r_.xruns.monitor_events != r_.xruns.log_client_events) {
    r_.warnings.push_back(fmt::format(
        "the monitor counted {} client xrun events, jackd's log {}: they should agree; the "
        "monitor's count is used",
        r_.xruns.monitor_events, r_.xruns.log_client_events));
  }
  for (const ClientResult& c : r_.client_results) {
    if (c.ring_dropped > 0) {
      r_.warnings.push_back(
          fmt::format("{} lost {} cycle records (ring full)", c.name, c.ring_dropped));
    }
  }
  if (r_.audio) {
    const AudioResult& a = *r_.audio;
    if (!a.final_received) {
      r_.warnings.push_back("the chain's tail sent no audio totals: the audio check is incomplete");
    }
    if (a.totals.ring_dropped > 0) {
      r_.warnings.push_back(fmt::format(
          "the tail lost {} audio chunks before checking them: glitches there are not real",
          a.totals.ring_dropped));
    }
  }
  finalize(r_);
  if (r_.audio) {
    const AudioResult& a = *r_.audio;
    if (a.glitches_without_xrun > 0) {
      r_.warnings.push_back(fmt::format(
          "{} audible glitch(es) with no xrun within {} ms: the chain lost audio that no xrun "
          "reported",
          a.glitches_without_xrun, AudioResult::kMatchWindowMs));
    }
    if (a.xruns_without_glitch > 0) {
      r_.warnings.push_back(fmt::format(
          "{} xrun(s) with no audible glitch within {} ms (nothing was lost on the checked port)",
          a.xruns_without_glitch, AudioResult::kMatchWindowMs));
    }
  }
  // Plot warnings go into r_.warnings before any file is written: the files say so too.
  write_run_folder(r_, run_dir_, o_.plots, scripts_dir());
  out.result = r_;
  out.code = failure_code_;
  return out;
}

}  // namespace

RunOutcome run_measurement(const RunOptions& options, const std::vector<std::string>& command_line,
                           const std::string& self_exe, const std::atomic<bool>& stop_requested) {
  RunOptions o = options;
  if (o.backend.empty()) o.backend = default_backend(has_sound_card());
  Runner runner(o, command_line, self_exe, stop_requested);
  return runner.run();
}

}  // namespace xrunlab

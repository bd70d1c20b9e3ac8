// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/pipewire.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/backend/backend.hpp"
#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/remove_tree.hpp"
#include "engine/base/text.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

std::string pipewire_config_text(const PipewireConfig& c) {
  std::string rt_module;
  if (c.rt_priority > 0) {
    // The data loop at the run's server priority (jackd's -P under JACK2), so that the policy
    // treats both servers alike; the engine reads the class back, it never assumes it.
    rt_module = fmt::format(
        "    {{ name = libpipewire-module-rt\n"
        "      args = {{ rt.prio = {} nice.level = -11 rt.time.soft = -1 rt.time.hard = -1 }}\n"
        "      flags = [ ifexists nofail ] }}\n",
        c.rt_priority);
  }
  return fmt::format(
      "# Written by xrunlab for one run (--backend pipewire): a private headless PipeWire.\n"
      "context.properties = {{\n"
      "    core.daemon = true\n"
      "    core.name = \"{name}\"\n"
      "    support.dbus = false\n"
      "    default.clock.rate = {rate}\n"
      "    default.clock.allowed-rates = [ {rate} ]\n"
      "    default.clock.quantum = {q}\n"
      "    default.clock.min-quantum = {q}\n"
      "    default.clock.max-quantum = {q}\n"
      "    settings.check-quantum = true\n"
      "    settings.check-rate = true\n"
      "    link.max-buffers = 16\n"
      "    log.level = 2\n"
      "}}\n"
      "context.spa-libs = {{\n"
      "    audio.convert.* = audioconvert/libspa-audioconvert\n"
      "    support.* = support/libspa-support\n"
      "}}\n"
      "context.modules = [\n"
      "{rt}"
      "    {{ name = libpipewire-module-protocol-native }}\n"
      "    {{ name = libpipewire-module-metadata }}\n"
      "    {{ name = libpipewire-module-spa-node-factory }}\n"
      "    {{ name = libpipewire-module-client-node }}\n"
      "    {{ name = libpipewire-module-adapter }}\n"
      "    {{ name = libpipewire-module-link-factory }}\n"
      "    {{ name = libpipewire-module-access args = {{ }} }}\n"
      "]\n"
      "context.objects = [\n"
      "    {{ factory = metadata args = {{ metadata.name = default }} }}\n"
      "    {{ factory = spa-node-factory\n"
      "      args = {{\n"
      "        factory.name = support.node.driver\n"
      "        node.name = Dummy-Driver\n"
      "        node.group = pipewire.dummy\n"
      "        priority.driver = 20000\n"
      "      }}\n"
      "    }}\n"
      "]\n",
      fmt::arg("name", c.core_name), fmt::arg("rate", c.rate), fmt::arg("q", c.quantum),
      fmt::arg("rt", rt_module));
}

std::optional<std::string> mapped_library(const std::string& maps, const std::string& name_prefix) {
  for (std::string_view line : lines(maps)) {
    const auto slash = line.find('/');
    if (slash == std::string_view::npos) continue;
    const std::string_view path = trim(line.substr(slash));
    const auto base = path.rfind('/');
    if (starts_with(path.substr(base + 1), name_prefix)) return std::string(path);
  }
  return std::nullopt;
}

bool is_pipewire_libjack(const std::string& path) {
  return contains(path, "/pipewire-0.3/jack/libjack.so");
}

std::string pipewire_jack_dir_beside(const std::string& libjack_path) {
  const auto slash = libjack_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : libjack_path.substr(0, slash);
  return dir + "/pipewire-0.3/jack";
}

void use_pipewire_jack(char** argv) {
  const std::optional<std::string> maps = read_file("/proc/self/maps");
  const std::optional<std::string> lib = maps ? mapped_library(*maps, "libjack.so") : std::nullopt;
  if (!lib) {
    throw Error(ExitCode::kMissingProgram,
                "--backend pipewire: no libjack.so is mapped in this process (/proc/self/maps)");
  }
  if (is_pipewire_libjack(*lib)) return;
  const char* tried = std::getenv(kPipewireJackEnv);
  if (tried != nullptr) {
    throw Error(ExitCode::kMissingProgram,
                fmt::format("--backend pipewire: re-executed with LD_LIBRARY_PATH={}, yet "
                            "libjack is still {}: check that folder holds PipeWire's "
                            "libjack.so.0 (pipewire-jack)",
                            tried, *lib));
  }
  const std::string dir = pipewire_jack_dir_beside(*lib);
  if (::access((dir + "/libjack.so.0").c_str(), R_OK) != 0) {
    throw Error(ExitCode::kMissingProgram,
                "--backend pipewire: PipeWire's JACK library is not in " + dir +
                    ": install it (apt-get install --no-install-recommends pipewire "
                    "pipewire-jack)");
  }
  const char* old = std::getenv("LD_LIBRARY_PATH");
  const std::string path = old != nullptr && *old != '\0' ? dir + ":" + old : dir;
  ::setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  ::setenv(kPipewireJackEnv, dir.c_str(), 1);
  ::execv("/proc/self/exe", argv);
  throw Error(ExitCode::kRunFailed,
              "--backend pipewire: cannot re-execute /proc/self/exe: " + errno_text(errno));
}

std::optional<std::string> parse_pipewire_version(const std::string& text) {
  for (const char* key : {"Linked with libpipewire ", "Compiled with libpipewire "}) {
    for (std::string_view line : lines(text)) {
      const auto at = line.find(key);
      if (at == std::string_view::npos) continue;
      const std::string_view v = trim(line.substr(at + std::strlen(key)));
      if (!v.empty()) return std::string(v);
    }
  }
  return std::nullopt;
}

PipewireThreads read_pipewire_threads(pid_t pid) {
  PipewireThreads t;
  t.pid = pid;
  const std::vector<pid_t> tids = list_threads(pid);
  if (tids.empty()) {
    t.why = fmt::format("the daemon's process {} is not readable in /proc", pid);
    return t;
  }
  for (pid_t tid : tids) {
    if (tid == pid) continue;  // the main loop
    std::string why;
    if (auto s = read_thread_sched(pid, tid, &why)) t.data_loop.push_back(*s);
  }
  if (t.data_loop.empty())
    t.why = fmt::format("the daemon (pid {}) has no thread besides its main", pid);
  return t;
}

std::vector<PipewireThreadRecord> pipewire_thread_records(const PipewireThreads& t) {
  std::vector<PipewireThreadRecord> out;
  for (const ThreadSched& s : t.data_loop) {
    out.push_back({s.pid, s.tid, s.thread, policy_name(s.policy), s.rt_priority, s.nice});
  }
  return out;
}

std::string describe_pipewire_threads(const PipewireThreads& t) {
  if (t.data_loop.empty()) return fmt::format("PipeWire data loop: unknown ({})", t.why);
  std::string out;
  for (const ThreadSched& s : t.data_loop) {
    const bool rt = s.policy == kSchedFifo || s.policy == kSchedRr;
    out += fmt::format("{}PipeWire data loop (pid {}, tid {}): {} {}", out.empty() ? "" : "; ",
                       s.pid, s.tid, policy_name(s.policy),
                       rt ? std::to_string(s.rt_priority) : fmt::format("nice {}", s.nice));
  }
  return out + " (read from the kernel)";
}

std::vector<std::string> remove_stale_pipewire_dirs(const std::string& tmp_dir,
                                                    std::vector<std::string>* left) {
  std::vector<std::string> removed;
  DIR* d = ::opendir(tmp_dir.c_str());
  if (d == nullptr) return removed;
  const std::string prefix = "xrunlab-pipewire-xrunlab-";
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  for (const std::string& name : names) {
    if (!starts_with(name, prefix)) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
    // The name is predictable: only a folder this user made goes (not another user's, not a link).
    const std::string e = remove_owned_tree(tmp_dir + "/" + name, ::geteuid());
    if (e.empty()) {
      removed.push_back(tmp_dir + "/" + name);
    } else if (left != nullptr) {
      left->push_back(e);
    }
  }
  return removed;
}

namespace {

std::string tmp_root() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t == '/' ? t : "/tmp";
}

// The private daemon: the run's own PipeWire, stopped and its folder removed on every exit path.
class PipewireBackend : public Backend {
 public:
  std::string name() const override { return "pipewire"; }
  std::string server_program() const override { return "pipewire"; }

  void check(const BackendSetup&) override {
    const auto prog = find_program("pipewire");
    if (!prog) {
      throw Error(ExitCode::kMissingProgram,
                  "--backend pipewire: the pipewire program is not installed: apt-get install "
                  "--no-install-recommends pipewire pipewire-bin pipewire-jack");
    }
    program_ = *prog;
    const std::optional<std::string> maps = read_file("/proc/self/maps");
    libjack_ = maps ? mapped_library(*maps, "libjack.so").value_or("") : "";
    if (!is_pipewire_libjack(libjack_)) {
      // A campaign or test that calls the engine without main()'s re-execution.
      throw Error(ExitCode::kMissingProgram,
                  "--backend pipewire: this xrunlab uses " +
                      (libjack_.empty() ? std::string("no libjack") : libjack_) +
                      ", not PipeWire's libjack; run it as 'xrunlab run --backend pipewire' "
                      "(it re-executes itself) or under pw-jack");
    }
  }

  void prepare(const BackendSetup& s) override {
    std::vector<std::string> left;
    for (const std::string& d : remove_stale_pipewire_dirs(tmp_root(), &left)) {
      warnings_.push_back("removed the runtime folder " + d + " of a dead xrunlab run");
    }
    warnings_.insert(warnings_.end(), left.begin(), left.end());
    std::string tmpl = tmp_root() + "/xrunlab-pipewire-" + s.server_name + ".XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      throw Error(ExitCode::kOutput, "--backend pipewire: cannot create a runtime folder " + tmpl +
                                         ": " + errno_text(errno) +
                                         "; set TMPDIR to a writable folder");
    }
    runtime_dir_ = tmpl;
    config_.core_name = s.server_name;
    config_.rate = s.rate;
    config_.quantum = s.frames;
    config_.rt_priority = s.server_priority;
    config_path_ = s.run_dir + "/pipewire.conf";
    write_file_atomic(config_path_, pipewire_config_text(config_));
    version_ = read_version(s.run_dir);
    // The engine's own libjack (the monitor) finds the daemon through these; the clients
    // inherit them. The socket name is the server name every client passes to
    // jack_client_open; PIPEWIRE_REMOTE only keeps a user's value out.
    ::setenv("PIPEWIRE_RUNTIME_DIR", runtime_dir_.c_str(), 1);
    ::setenv("PIPEWIRE_REMOTE", s.server_name.c_str(), 1);
  }

  std::vector<std::string> server_argv(const BackendSetup&) const override {
    return {program_, "-c", config_path_};
  }
  std::vector<std::pair<std::string, std::string>> server_env() const override {
    return {{"PIPEWIRE_RUNTIME_DIR", runtime_dir_}, {"XDG_RUNTIME_DIR", runtime_dir_}};
  }
  std::vector<std::string> driver_argv(const BackendSetup&) const override { return {}; }

  void server_started(pid_t pid) override {
    pid_ = pid;
    threads_start_ = read_pipewire_threads(pid);
  }
  std::string scheduling_label(const std::string& clients) const override {
    return fmt::format("{} (clients); {}", clients, describe_pipewire_threads(threads_start_));
  }
  void set_window(uint64_t, uint64_t end_us) override {
    if (end_us != 0 && pid_ > 0) threads_end_ = read_pipewire_threads(pid_);
  }

  ClientReference reference() const override { return ClientReference::kFrames; }
  std::string reference_text() const override {
    return "jack_frames_since_cycle_start (PipeWire's JACK: time since the Dummy-Driver's "
           "cycle began, from its timer; approximate, its own lateness is not seen)";
  }
  std::string xrun_sources() const override {
    return "monitor xrun callbacks only: PipeWire's JACK calls them at most once per cycle, and "
           "only for a cycle the driver counted as an xrun (the graph not finished when its "
           "next cycle began); the daemon's log holds no JACK2 xrun lines";
  }
  bool wire_system_ports() const override { return false; }  // the Dummy-Driver has none
  // jack.conf loads libpipewire-module-rt in each client: its thread is SCHED_FIFO 88 there.
  bool libjack_makes_clients_realtime() const override { return true; }

  BackendRecord describe() const override {
    BackendRecord b;
    b.name = "pipewire";
    b.driver = "PipeWire Dummy-Driver (support.node.driver, timer)";
    b.reference = reference_text();
    PipewireBackendRecord& p = b.pipewire.emplace();
    p.program = program_;
    if (!version_.empty()) p.version = version_;
    p.config = config_path_;
    p.runtime_dir = runtime_dir_;
    p.socket = config_.core_name;
    p.libjack = libjack_;
    p.quantum_requested = config_.quantum;
    p.rate_requested = config_.rate;
    if (config_.rt_priority > 0) p.rt_priority = config_.rt_priority;
    if (pid_ > 0) p.pid = pid_;
    p.data_loop_threads = pipewire_thread_records(threads_start_);
    if (!threads_end_.data_loop.empty() || !threads_end_.why.empty()) {
      p.data_loop_threads_end = pipewire_thread_records(threads_end_);
    }
    if (!threads_start_.why.empty()) p.data_loop_why = threads_start_.why;
    return b;
  }
  std::vector<std::string> warnings() const override { return warnings_; }

  void cleanup() noexcept override {
    if (runtime_dir_.empty()) return;
    try {
      const std::string e = remove_owned_tree(runtime_dir_, ::geteuid());
      if (!e.empty()) warnings_.push_back(e);
    } catch (...) {
    }
  }

 private:
  // `pipewire --version`, its output kept in the run folder.
  std::string read_version(const std::string& run_dir) {
    const std::string out = run_dir + "/pipewire-version.txt";
    try {
      SpawnSpec spec;
      spec.argv = {program_, "--version"};
      spec.output_path = out;
      Child c = Child::spawn(spec);
      if (!c.wait_for(std::chrono::milliseconds(3000))) c.stop(std::chrono::milliseconds(100));
    } catch (const Error& e) {
      warnings_.push_back(std::string("pipewire --version: ") + e.what());
      return "";
    }
    const auto v = parse_pipewire_version(read_file(out).value_or(""));
    if (!v) warnings_.push_back("pipewire --version printed no version (see " + out + ")");
    return v.value_or("");
  }

  std::string program_, libjack_, runtime_dir_, config_path_, version_;
  PipewireConfig config_;
  pid_t pid_ = 0;
  PipewireThreads threads_start_, threads_end_;
  std::vector<std::string> warnings_;
};

}  // namespace

std::unique_ptr<Backend> make_pipewire_backend() {
  return std::make_unique<PipewireBackend>();
}

}  // namespace xrunlab

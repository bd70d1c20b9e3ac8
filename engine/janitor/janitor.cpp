// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/janitor/janitor.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>

#include "engine/base/errno_text.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/base/remove_tree.hpp"
#include "engine/jack/jack_registry.hpp"
#include "engine/janitor/process_sweep.hpp"
#include "engine/janitor/run_status.hpp"
#include "engine/loads/x_display.hpp"
#include "engine/result/baseline.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/system/clock.hpp"

namespace xrunlab {
namespace {

using Clock = std::chrono::steady_clock;

// How long an engine whose pipe closed without "done" is waited for before SIGKILL, and in all.
constexpr std::chrono::milliseconds kEngineGrace{2000};
constexpr std::chrono::milliseconds kEngineWait{10000};

std::vector<std::string> engine_command_line(pid_t engine) {
  std::vector<std::string> out;
  const std::string text = read_file("/proc/" + std::to_string(engine) + "/cmdline").value_or("");
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0') {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Folders under `dir` whose name starts with `prefix`.
std::vector<std::string> entries_with_prefix(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind(prefix, 0) == 0) out.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  return out;
}

struct Watch {
  JanitorPlan plan;
  // pidfd of every announced child, opened when announced and only if the process with that pid
  // is the one announced (its start time): a child the engine reaped before the line was read
  // may have left its pid to an unrelated process, which is then never signalled.
  std::map<pid_t, int> child_fds;
  std::vector<std::string> not_held;  // announced children whose pid another process has now
  std::string pending;
  std::vector<std::string> bad_lines;

  void take(std::string_view chunk) {
    const size_t before = plan.children.size();
    apply_janitor_input(plan, pending, chunk, &bad_lines);
    for (size_t i = before; i < plan.children.size(); ++i) {
      const AnnouncedChild& c = plan.children[i];
      const int fd = open_pidfd_of(c.pid, c.start_time);
      auto& held = child_fds.try_emplace(c.pid, -1).first->second;
      if (fd >= 0) {
        // The pid announced again for a new child: the one held before is reaped.
        if (held >= 0) ::close(held);
        held = fd;
        continue;
      }
      // Gone (a short-lived child, reaped) is no news; another process under its pid is.
      if (const auto st = read_proc_pid_stat(c.pid); st && st->starttime != c.start_time) {
        not_held.push_back(fmt::format("pid {} (announced as started at tick {}, it started at {})",
                                       c.pid, c.start_time, st->starttime));
      }
    }
  }
  // Reads what is there now; false at the end of input.
  bool read_available() {
    char buf[4096];
    while (true) {
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0) {
        take(std::string_view(buf, static_cast<size_t>(n)));
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
  }
};

class Cleanup {
 public:
  Cleanup(const Watch& w, const JanitorArgs& a, int engine_fd, std::vector<std::string> cmdline,
          std::string started)
      : w_(w),
        a_(a),
        engine_fd_(engine_fd),
        cmdline_(std::move(cmdline)),
        started_(std::move(started)) {}

  int run() {
    const auto t0 = Clock::now();
    const JanitorPlan& p = w_.plan;
    // The engine's last threads may still be exiting (freeing a large locked memory takes a
    // while on a busy machine): its journal is restored once it is dead, never before. Its pipe
    // ended without "done", so the run is over whatever keeps it alive: after kEngineGrace it
    // gets SIGKILL (nothing changes for a process already exiting), and it is waited for up to
    // kEngineWait in all. Should it outlive that (stuck in the kernel), what it changed stays
    // changed, and that is said.
    bool engine_killed = false;
    const bool engine_dead =
        wait_process_end(engine_fd_, kEngineGrace, kEngineWait, &engine_killed);
    if (engine_killed && engine_dead) {
      say(fmt::format("the engine (pid {}) had not ended {} s after its pipe closed: killed",
                      p.engine, kEngineGrace.count() / 1000));
    }
    if (!engine_dead) {
      problem(engine_outlived_line(
          p.engine, kEngineWait,
          SysJournal::read_entries(p.journal).value_or(std::vector<JournalEntry>{}), p.journal));
    }
    for (const std::string& who : w_.not_held) {
      say("left alone " + who + ": another process has that pid now");
    }
    // What the engine sent that is not in the plan's grammar was ignored: said, the first few.
    constexpr size_t kBadLinesSaid = 4;
    for (size_t i = 0; i < w_.bad_lines.size() && i < kBadLinesSaid; ++i) {
      problem("ignored a line from the engine: " + w_.bad_lines[i]);
    }
    if (w_.bad_lines.size() > kBadLinesSaid) {
      problem(fmt::format("ignored {} more such line(s)", w_.bad_lines.size() - kBadLinesSaid));
    }

    // 1. Every process of the run, and every task of its cgroups.
    std::vector<std::string> cgroups;
    if (const auto entries = SysJournal::read_entries(p.journal)) {
      for (const JournalEntry& e : *entries) {
        if (e.kind == "mkdir" && ::access((e.path + "/cgroup.procs").c_str(), F_OK) == 0) {
          cgroups.push_back(e.path);
        }
      }
    }
    std::vector<RootProcess> roots;
    for (const auto& [pid, fd] : w_.child_fds) {
      if (fd >= 0) roots.push_back({pid, fd});
    }
    const SweepReport sweep = sweep_run_processes(roots, cgroups, std::chrono::milliseconds(1000));
    say(fmt::format("killed {} process(es) of the run{}", sweep.killed.size(),
                    sweep.rounds > 1 ? fmt::format(" (found in {} rounds)", sweep.rounds) : ""));
    for (pid_t left : sweep.left) problem(fmt::format("pid {} is still alive after SIGKILL", left));

    // 2. The system settings, as the engine's exit path restores them.
    for (const std::string& line :
         SysJournal::recover_dead_owner(p.journal, "left by the killed engine")) {
      (line.rfind("restored ", 0) == 0 ? say(line) : problem(line));
    }

    // 3. This server's shared memory and registry entries (jackd and the clients are dead now).
    if (!p.server.empty()) {
      // Segments allocated by one of these (dead) processes go: only the children held (the
      // announced process itself), and the engine.
      std::vector<pid_t> pids;
      for (const auto& [pid, fd] : w_.child_fds) {
        if (fd >= 0) pids.push_back(pid);
      }
      pids.push_back(p.engine);
      const ReclaimResult rr = reclaim_dead_server(p.shm_dir, p.server, pids);
      if (!rr.removed_files.empty() || !rr.reclaimed.empty()) {
        say(fmt::format("removed {} /dev/shm file(s) of {}{}", rr.removed_files.size(), p.server,
                        rr.reclaimed.empty() ? "" : " and freed its JACK registry slot"));
      }
      if (!rr.warning.empty()) problem(rr.warning);
      // A cyclictest baseline killed with the run leaves its own file (only this user's goes).
      for (const pid_t pid : pids) {
        const std::string f = cyclictest_shm_file(p.shm_dir, pid);
        if (remove_owned_file(f, ::geteuid()))
          say("removed " + f + ", left by the killed cyclictest");
      }
      // A process of the run killed inside jack_client_open can leave JACK's metadata database
      // locked, which would hang every later JACK program of this user: gone if nobody uses it.
      if (const std::string db = remove_unused_jack_metadata_db(p.shm_dir, ::getuid());
          !db.empty()) {
        say("removed JACK's metadata database " + db + " (no process had it open)");
      }
      // The folder's name is predictable: only a folder the engine (this user) made goes, never
      // another user's made first under that name, nor a link.
      for (const std::string& dir :
           entries_with_prefix(a_.tmp_dir, "xrunlab-pipewire-" + p.server + ".")) {
        const std::string e = remove_owned_tree(dir, ::geteuid());
        if (!e.empty()) {
          problem(e);
        } else {
          say("removed the PipeWire runtime folder " + dir);
        }
      }
    }

    // 4. The run folder: the loads' scratch folders go (the x11 load's X display files first:
    // its server was killed above, before it could remove them), the status says killed.
    if (!p.run_dir.empty()) {
      for (const std::string& dir : entries_with_prefix(p.run_dir + "/loads", "")) {
        if (dir.size() < 8 || dir.compare(dir.size() - 8, 8, ".scratch") != 0) continue;
        remove_x_display_files(dir);
        if (const std::string e = remove_tree(dir); !e.empty()) problem(e);
      }
      KilledRun k;
      k.detail = fmt::format(
          "the engine (pid {}) ended before the run did (killed, or it crashed); its janitor "
          "stopped what the run had started and restored the system",
          p.engine);
      k.command_line = cmdline_;
      k.started_utc = started_;
      try {
        say(mark_run_killed(p.run_dir, k));
      } catch (const std::exception& e) {
        problem(e.what());
      }
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    say(fmt::format("done in {:.0f} ms{}", ms,
                    problems_ == 0 ? "" : fmt::format(", {} problem(s)", problems_)));
    write_log();
    return problems_ == 0 ? 0 : 1;
  }

 private:
  void say(const std::string& s) {
    const std::string line = "xrunlab-janitor: " + s + "\n";
    std::fputs(line.c_str(), stderr);
    log_ += utc_now_iso() + " " + line;
  }
  void problem(const std::string& s) {
    ++problems_;
    say("warning: " + s);
  }
  // What the X server of an x11 load whose scratch folder is `dir` left (load_tool::kXDisplayFile).
  void remove_x_display_files(const std::string& dir) {
    int display = -1;
    pid_t server = -1;
    const auto record = read_file(dir + "/" + load_tool::kXDisplayFile);
    if (!record || !load_tool::parse_x_display_record(*record, &display, &server)) return;
    const std::string socket = load_tool::x_socket_path(a_.tmp_dir, display);
    const bool was_there = ::access(socket.c_str(), F_OK) == 0;
    const std::string e = load_tool::remove_stale_x_files(a_.tmp_dir, display, server);
    if (!e.empty()) {
      problem(e);
    } else if (was_there && ::access(socket.c_str(), F_OK) != 0) {
      say(fmt::format("removed the socket of the x11 load's X display :{} ({})", display, socket));
    }
  }
  void write_log() {
    if (w_.plan.run_dir.empty()) return;
    const std::string path = w_.plan.run_dir + "/janitor.log";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ssize_t ignored = ::write(fd, log_.data(), log_.size());
    (void)ignored;
    ::close(fd);
  }

  const Watch& w_;
  const JanitorArgs& a_;
  int engine_fd_;
  std::vector<std::string> cmdline_;
  std::string started_;
  std::string log_;
  int problems_ = 0;
};

}  // namespace

std::string engine_outlived_line(pid_t engine, std::chrono::milliseconds waited,
                                 const std::vector<JournalEntry>& entries,
                                 const std::string& journal) {
  const std::string head =
      fmt::format("the engine (pid {}) is still alive {} s after its pipe closed (SIGKILL sent)",
                  engine, waited.count() / 1000);
  if (entries.empty()) return head + "; it changed no system setting";
  constexpr size_t kNamed = 4;
  std::string named;
  for (size_t i = 0; i < entries.size() && i < kNamed; ++i) {
    const JournalEntry& e = entries[i];
    const std::string what = e.kind == "write"   ? e.path
                             : e.kind == "mkdir" ? "the folder " + e.path
                             : e.kind == "mount" ? "the mount " + e.path
                                                 : e.kind + " " + e.path;
    named += (i == 0 ? "" : ", ") + what;
  }
  if (entries.size() > kNamed) named += ", ...";
  return fmt::format(
      "{}: {} setting(s) it changed stay changed ({}); the next xrunlab start after it has ended "
      "restores them from its journal {}",
      head, entries.size(), named, journal);
}

std::optional<JanitorArgs> parse_janitor_args(const std::vector<std::string>& args,
                                              std::string* why) {
  JanitorArgs a;
  auto fail = [&](const std::string& w) -> std::optional<JanitorArgs> {
    if (why != nullptr) *why = w;
    return std::nullopt;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (i + 1 >= args.size()) return fail(flag + " needs a value");
    const std::string& v = args[++i];
    if (flag == "--engine") {
      int pid = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), pid);
      if (ec != std::errc() || end != v.data() + v.size() || pid <= 1) {
        return fail("--engine needs a pid above 1, not '" + v + "'");
      }
      a.plan.engine = pid;
    } else if (flag == "--journal" || flag == "--shm-dir" || flag == "--tmp-dir") {
      if (v.empty() || v[0] != '/') return fail(flag + " needs an absolute path, not '" + v + "'");
      (flag == "--journal" ? a.plan.journal : flag == "--shm-dir" ? a.plan.shm_dir : a.tmp_dir) = v;
    } else {
      return fail("unknown option '" + flag + "'");
    }
  }
  if (a.plan.engine == 0) return fail("--engine PID is required");
  if (a.plan.journal.empty()) return fail("--journal FILE is required");
  return a;
}

int janitor_main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string why;
  std::optional<JanitorArgs> a = parse_janitor_args(args, &why);
  if (!a) {
    std::fprintf(stderr, "xrunlab-janitor: error: %s (it is started by xrunlab run)\n",
                 why.c_str());
    return 2;
  }
  // The terminal's signals are for the engine; a background write to it must not stop us.
  for (int sig : {SIGINT, SIGHUP, SIGPIPE, SIGTTOU, SIGTTIN, SIGQUIT}) ::signal(sig, SIG_IGN);
  // A pidfd for every process of the run (a compile load has hundreds): as many descriptors as
  // the hard limit allows.
  if (rlimit nofile{};
      ::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &nofile);
  }
  const std::string started = utc_now_iso();
  Watch w;
  w.plan = a->plan;
  const pid_t engine = w.plan.engine;
  const int engine_fd = open_pidfd(engine);
  const std::vector<std::string> cmdline = engine_command_line(engine);
  // The pidfd names the engine only if the engine is still our parent (else it died already).
  bool engine_gone = engine_fd < 0 || ::getppid() != engine;
  ::fcntl(STDIN_FILENO, F_SETFL, ::fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
  while (!engine_gone) {
    pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {engine_fd, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p[0].revents != 0 && !w.read_available()) break;  // the end of input
    if (p[1].revents != 0) {
      w.read_available();
      engine_gone = true;
    }
  }
  if (w.plan.done) return 0;  // the engine's own exit path ran
  // From here on a SIGTERM waits for the end of the clean-up.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, nullptr);
  Cleanup c(w, *a, engine_fd, cmdline, started);
  return c.run();
}

}  // namespace xrunlab

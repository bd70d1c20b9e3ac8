// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_tool.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/loads/load_supervisor.hpp"
#include "engine/loads/load_workers.hpp"
#include "engine/loads/scratch_folder.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {
namespace {

using load_tool::canonical;
using load_tool::check_scratch;
using load_tool::Clock;
using load_tool::Config;
using load_tool::exec_argv;
using load_tool::Kind;
using load_tool::LoadArgs;
using load_tool::mkdir_p;
using load_tool::parse_load_args;
using load_tool::Shared;
using load_tool::Supervisor;
using load_tool::supervisor_signal_set;

// ---------------------------------------------------------------------------------------------
// The command line

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
    "  x11 N            start Xvfb on a display it chooses (-displayfd; no TCP), then N "
    "glxgears (1..64) on it; units = frames drawn, from glxgears' 5-s reports (an interval "
    "cut short by the stop is not counted).\n"
    "  top              'top -b -d 0', its output read through a pipe and discarded; units = "
    "refreshes.\n"
    "  bench N          N workers (1..256), each running one fixed CPU benchmark job back to "
    "back, every job's wall and CPU time measured; units = benchmark jobs.\n"
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
  app.add_option(
         "kind", o->kind,
         "compile, hackbench, cpu, io-write, io-read, io-copy, net, x11, top, bench or exec.")
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

// ---------------------------------------------------------------------------------------------
// The process the load runs in

// SCHED_OTHER at the requested nice value, inherited by every process of the load, and a child
// subreaper, so that every process the load starts stays a descendant. "" or why the load cannot
// run; a nice value that cannot be set when --nice did not ask for it is only noted in *errors.
std::string set_up_process(const Options& o, std::vector<std::string>* errors) {
  if (::sched_getscheduler(0) != SCHED_OTHER) {
    sched_param param{};
    if (::sched_setscheduler(0, SCHED_OTHER, &param) != 0) {
      return "cannot switch to SCHED_OTHER: " + errno_text(errno);
    }
  }
  errno = 0;
  const int current_nice = ::getpriority(PRIO_PROCESS, 0);
  if (current_nice != o.nice && ::setpriority(PRIO_PROCESS, 0, o.nice) != 0) {
    const std::string e =
        fmt::format("cannot set nice {} (now {}): {}", o.nice, current_nice, errno_text(errno));
    if (o.nice_given) return e + " (a lower nice value needs CAP_SYS_NICE)";
    errors->push_back(e);  // the default: run at the inherited nice value (printed at the start)
  }
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return "cannot become a child subreaper: " + errno_text(errno);
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// The report

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
  LoadReport r;
  r.kind = o.kind;
  r.args = args;
  r.cpu_user_s = seconds(self.ru_utime) + seconds(children.ru_utime);
  r.cpu_system_s = seconds(self.ru_stime) + seconds(children.ru_stime);
  if (sup != nullptr) {
    r.iterations = sup->iterations();
    r.bytes = sup->bytes();
    r.units = sup->units();
    r.units_s = sup->units_s();
    r.unit_name = sup->unit_name();
    r.bench = sup->bench();
    r.workers_started = sup->workers_started();
    r.exit_statuses.assign(sup->exit_statuses().begin(), sup->exit_statuses().end());
  }
  r.errors = errors;
  r.scratch_removed = out.scratch_removed;
  r.stopped_by = out.stopped_by;
  r.duration_s = out.duration_s;
  r.nice = o.nice;
  return to_json(r).dump(2) + "\n";
}

}  // namespace

int load_tool_main(int argc, char** argv) {
  // Stop signals and SIGCHLD are taken with sigtimedwait, from the very start: a SIGTERM that
  // comes early still leads to a clean stop and a report. SIGPIPE must not end the supervisor
  // half-way through a stop when the log reader is gone.
  const sigset_t set = supervisor_signal_set();
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  // What can be checked before anything changes: a bad command line is exit status 2, a
  // missing program 3; no report.
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

  // The load to run; its report is written from here on, also when it cannot start.
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

  if (const std::string e = set_up_process(o, &early_errors); !e.empty()) return fail_early(e);

  // The scratch folder, created; the report must not be inside it.
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

  // The slots the workers count in, shared with them.
  void* mem =
      ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    out.scratch_removed = remove_tree(cfg.scratch).empty();
    return fail_early("cannot map shared memory: " + errno_text(errno));
  }
  Shared* shared = new (mem) Shared();

  // The load, until a stop signal; then, whatever happened before: every process stopped, the
  // scratch folder removed, the report written.
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
  const std::string units =
      *sup.unit_name() == '\0'
          ? ""
          : fmt::format(", {} {} in {:.1f} s", sup.units(), sup.unit_name(), sup.units_s());
  std::printf("xrunlab-load: %s: stopped by %s after %.2f s: %" PRIu64 " iterations, %" PRIu64
              " bytes%s, %" PRIu64 " workers started, scratch %s\n",
              label.c_str(), out.stopped_by.c_str(), out.duration_s, sup.iterations(), sup.bytes(),
              units.c_str(), sup.workers_started(),
              out.scratch_removed ? "removed" : "NOT removed");
  std::fflush(stdout);
  ::munmap(mem, sizeof(Shared));
  return ok ? 0 : static_cast<int>(ExitCode::kRunFailed);
}

}  // namespace xrunlab

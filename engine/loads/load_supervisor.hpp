// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The supervisor of xrunlab-load: it prepares the load (the compile tree, the listening socket,
// the programs), starts its workers and programs (x11: its private X server first, then the
// drawers on the display the server chose), restarts each one that ends (with a back-off
// after a quick failure), counts what they did, and on a stop signal stops every process below
// it (SIGTERM, 1 s grace, SIGKILL, reaping until none is left). See load_tool.hpp for the
// program around it. Non-realtime.
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/loads/bench_job.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/loads/load_workers.hpp"

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

using Clock = std::chrono::steady_clock;

// The stop signals (SIGTERM, SIGINT, SIGHUP) and SIGCHLD: blocked from the program's start on,
// then taken with sigtimedwait by Supervisor::run.
sigset_t supervisor_signal_set();

// A program the supervisor runs, prepared (resolved path, argv) before it is needed.
struct Program {
  std::string path;               // resolved with find_program at start
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  bool quiet = false;             // stdout to /dev/null (stderr stays on the log)
};

// The load to run, from the command line.
struct Config {
  Kind kind = Kind::kCpu;
  std::string kind_name;
  std::vector<std::string> args;  // as reported (exec: the command line)
  long value = 0;                 // JOBS, GROUPS, N (cpu, x11, bench) or MIB
  std::string scratch;            // canonical
};

// What a worker runs: a make loop or a program, started again and again, the x11 load's X server,
// or a built-in worker (forked, see load_workers.hpp; kCountedProgram runs a program whose output
// it counts).
enum class Role {
  kMakeLoop,
  kProgram,
  kXServer,
  kCountedProgram,
  kCpu,
  kBench,
  kIoWrite,
  kIoRead,
  kIoCopy,
  kNetReceiver,
  kNetSender
};

// A process the supervisor keeps running: started, and started again when it ends.
struct Worker {
  Role role = Role::kCpu;
  int slot = 0;
  pid_t pid = -1;
  Clock::time_point started{};
  Clock::time_point next_start{};
  bool make_build = false;  // compile: the current (or next) make run is the build, else clean
};

// Runs one load: setup(), run() until a stop signal, stop(); then what it did, for the report.
// One per process: it reaps every child of the process (waitpid(-1)) and takes its SIGCHLD.
class Supervisor {
 public:
  // `shared` holds a slot for each worker (kMaxSlots is enough for every kind).
  Supervisor(Config cfg, Shared* shared);
  ~Supervisor();  // closes the listening socket of the net load
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Prepares the load (source tree, listening socket, programs). False when it cannot run.
  bool setup();
  // Runs the workers until a stop signal; returns it.
  int run();
  // Stops and reaps every descendant. True when none is left.
  bool stop();

  // Prints `e` to stderr and keeps it for the report (the first 20; the rest are counted).
  void add_error(const std::string& e);

  uint64_t iterations() const;
  uint64_t bytes() const;
  // What the load's programs reported (x11: frames drawn, top: refreshes; see
  // counted_program_worker) or its benchmark jobs (bench), the seconds that count covers, and
  // its unit ("" for other kinds).
  uint64_t units() const;
  double units_s() const;
  const char* unit_name() const;
  // The bench load's figures from its workers' slots (bench_report); nullopt for other kinds.
  std::optional<BenchFigures> bench() const;
  uint64_t workers_started() const { return workers_started_; }
  const std::deque<int>& exit_statuses() const { return exit_statuses_; }
  // The errors kept, and a last line counting those that were not.
  std::vector<std::string> errors() const;

 private:
  void start_due_workers();
  void start(Worker& w);
  // Starts `p` (see Program), with `fd3` as its fd 3 unless -1; throws xrunlab::Error as
  // spawn_process does.
  pid_t spawn_program(const Program& p, int fd3 = -1);
  // x11: starts the X server and waits for the display it chooses (display_). Its pid, or -1
  // when it could not be started; when it named no display it is being stopped (reap() sees it
  // end, and it is started again after a back-off).
  pid_t start_x_server();
  // x11: a drawer is not started while there is no display to draw on.
  bool waits_for_display(const Worker& w) const;
  void reap(bool* none_left);
  void on_exit(Worker& w, int status);
  void record_status(int code);
  std::string take_message(Slot& slot);
  // Sends `sig` to the workers' process groups and to every descendant (or only to those not
  // signalled before when `seen` is given). Returns how many descendants were found.
  size_t signal_all(int sig, std::set<pid_t>* seen);
  void wait_for_child(Clock::duration timeout);
  // bench: what its workers' slots hold, summed up.
  BenchReport bench_totals() const;

  Config cfg_;
  Shared* shared_;
  std::vector<Worker> workers_;
  Program make_clean_, make_build_, program_, x_server_;
  CountedProgram counted_;  // x11: glxgears (its DISPLAY set when started), top: top -b
  std::vector<std::string> make_env_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  int display_ = -1;  // x11: the display of the running X server, -1 while there is none
  bool stopping_ = false;
  uint64_t hackbench_runs_ = 0, builds_ = 0, exec_starts_ = 0, workers_started_ = 0;
  std::deque<int> exit_statuses_;
  std::vector<std::string> errors_;
  size_t errors_dropped_ = 0;
};

}  // namespace xrunlab::load_tool

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Child processes started from argv vectors (fork + exec; never a shell): the one place that
// forks and execs a program. Each child gets its own process group, dies with its parent
// (PR_SET_PDEATHSIG), starts with no signal blocked and SIGPIPE/SIGINT/SIGTERM at their
// defaults, and has only the descriptors it is given: every other descriptor of the engine is
// close-on-exec. A program that cannot be executed is reported by the call that starts it
// (through a close-on-exec pipe), never as an exit status.
// Non-realtime.
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

// ---- the low level: one fork + exec -------------------------------------------------------

// A resource limit the child gets before exec (setrlimit), e.g. RLIMIT_RTTIME.
struct ChildLimit {
  int resource = 0;   // RLIMIT_*
  uint64_t soft = 0;  // rlim_cur
  uint64_t hard = 0;  // rlim_max
  std::string name;   // "RLIMIT_RTTIME", for the error message
};

// Where a standard descriptor of the child comes from (SpawnOptions::stdin_fd ...): a
// descriptor of the caller, dup'ed onto it, or one of these.
inline constexpr int kInheritFd = -1;  // the caller's own
inline constexpr int kDevNullFd = -2;  // /dev/null

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the name the program sees
  // What is executed: a path (with '/') runs as it is; a bare name is looked up in PATH (never
  // in the current folder). "" = argv[0].
  std::string program;
  // The child's whole environment, "NAME=value" each; nullopt = this process's environment.
  std::optional<std::vector<std::string>> env;
  int stdin_fd = kDevNullFd;   // a descriptor of the caller, kDevNullFd or kInheritFd
  int stdout_fd = kInheritFd;  // a descriptor of the caller, kInheritFd or kDevNullFd
  int stderr_fd = kInheritFd;  // a descriptor of the caller, kInheritFd or kDevNullFd
  int fd3 = -1;                // a descriptor of the caller to become the child's fd 3, or -1
  int death_signal = SIGTERM;  // PR_SET_PDEATHSIG: sent to the child when the caller dies
  // If set: the child writes its pid here (a cgroup's cgroup.procs) before exec, so that no
  // thread of the program ever runs outside that cgroup.
  std::string cgroup_procs;
  // If not empty: the child's CPU affinity (sched_setaffinity) before exec, so every thread
  // and child process of the program inherits it (--cpus, --load-cpus).
  std::vector<int> cpus;
  // Resource limits set before exec (inherited by every thread and child of the program).
  std::vector<ChildLimit> limits;
};

// Forks and execs; returns the child's pid once the program runs. The caller's descriptors
// named in `o` stay open in the caller (close them after the call). Throws
// xrunlab::Error(kMissingProgram) "cannot run 'PROGRAM': <errno text>" when the program cannot
// be executed, Error(kRunFailed) when fork or a pipe fails, the cgroup refuses the child or the
// kernel refuses its CPU affinity or a resource limit (the child has then been reaped). Waiting for
// the child is the caller's business.
pid_t spawn_process(const SpawnOptions& o);

// ---- Child: a spawned program with its pipes, reaped and killed by its owner -------------

struct SpawnSpec {
  std::vector<std::string> argv;
  std::string output_path;      // stdout+stderr appended to this file ("" = see capture_output)
  bool capture_output = false;  // stdout+stderr into a pipe readable through output_fd()
  bool stderr_to_null = false;  // stderr to /dev/null instead (capture_output: stdout only)
  bool stdin_pipe = false;      // a pipe writable through stdin_fd()
  bool fd3_pipe = false;        // a pipe on the child's fd 3, readable through fd3_fd()
  std::vector<std::pair<std::string, std::string>> env;  // set in the environment (replacing)
  std::string cgroup_procs;    // if set: the child joins this cgroup (its cgroup.procs) before exec
  int death_signal = SIGTERM;  // PR_SET_PDEATHSIG
  std::vector<int> cpus;       // if not empty: the child's CPU affinity, set before exec
  std::vector<ChildLimit> limits;  // resource limits, set before exec (RLIMIT_RTTIME ...)
};

class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  ~Child();  // kills (SIGKILL) and reaps a child that is still running, closes the pipes

  // Throws xrunlab::Error(kMissingProgram) when argv[0] cannot be executed (a bare name is
  // looked up in PATH), Error(kOutput) when output_path cannot be opened, Error(kRunFailed)
  // when the cgroup refuses the child, the kernel refuses its CPU affinity or fork fails.
  static Child spawn(const SpawnSpec& spec);

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return stdin_fd_; }
  int output_fd() const { return output_fd_; }
  int fd3_fd() const { return fd3_fd_; }
  void close_stdin();
  void close_output();  // the read end of capture_output: a child writing more gets SIGPIPE

  // Non-blocking: true while the child has not exited (reaps it when it has).
  bool running();
  // The raw wait status once reaped.
  std::optional<int> wait_status() const { return status_; }
  std::string describe_exit() const;  // "exited with status 1", "killed by signal 9 (Killed)"

  void signal(int sig) const;  // to the whole process group
  // Waits up to `timeout` for the child to exit; true when it did.
  bool wait_for(std::chrono::milliseconds timeout);
  // SIGTERM, wait up to `grace`, then SIGKILL and reap. Safe to call more than once.
  void stop(std::chrono::milliseconds grace);

 private:
  void reset();
  pid_t pid_ = -1;
  int stdin_fd_ = -1, output_fd_ = -1, fd3_fd_ = -1;
  std::optional<int> status_;
};

// Runs spec.argv (PATH lookup, no shell; its cgroup and CPUs as `spec` says) and returns the
// first line of its stdout, or "" on any failure. stdin and stderr go to /dev/null; the child is
// killed when `timeout` passes before it has printed a line and exited.
std::string first_stdout_line(SpawnSpec spec, std::chrono::milliseconds timeout);

// "exited with status 1", "killed by signal 9 (Killed)" for a raw wait status.
std::string describe_wait_status(int status);

// The descriptor (a pipe to the run's janitor, engine/janitor) on which every child spawned from
// now on announces itself: "child <pid> <start time>\n" (its /proc/PID/stat field 22, 0 when
// unreadable), written by the child right after fork, before it checks that its parent lives
// and before exec, so that no child of a process that dies at that moment goes unannounced (a write
// under PIPE_BUF is atomic: several threads may spawn). -1 = none (the default). The descriptor
// must be close-on-exec and should be non-blocking (a full pipe then drops the line rather than
// stalling the child). Set it before threads spawn.
void set_child_report_fd(int fd);

// Full path of `program` found in PATH (or the path itself if it contains '/'), or nullopt.
std::optional<std::string> find_program(const std::string& program);

}  // namespace xrunlab

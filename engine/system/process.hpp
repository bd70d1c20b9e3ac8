#pragma once
// Child processes started from argv vectors (fork + execvp; never a shell). Each child gets its
// own process group, dies with the engine (PR_SET_PDEATHSIG), and has only the descriptors it
// is given: every other descriptor of the engine is close-on-exec.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

struct SpawnSpec {
  std::vector<std::string> argv;
  std::string output_path;      // stdout+stderr appended to this file ("" = see capture_output)
  bool capture_output = false;  // stdout+stderr into a pipe readable through output_fd()
  bool stdin_pipe = false;      // a pipe writable through stdin_fd()
  bool fd3_pipe = false;        // a pipe on the child's fd 3, readable through fd3_fd()
  std::vector<std::pair<std::string, std::string>> env;  // set in the environment (replacing)
  std::string cgroup_procs;  // if set: the child joins this cgroup (its cgroup.procs) before exec
};

class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  ~Child();  // kills (SIGKILL) and reaps a child that is still running, closes the pipes

  // Throws xrunlab::Error(kMissingProgram) when argv[0] cannot be executed.
  static Child spawn(const SpawnSpec& spec);

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return stdin_fd_; }
  int output_fd() const { return output_fd_; }
  int fd3_fd() const { return fd3_fd_; }
  void close_stdin();

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

// Full path of `program` found in PATH (or the path itself if it contains '/'), or nullopt.
std::optional<std::string> find_program(const std::string& program);

}  // namespace xrunlab

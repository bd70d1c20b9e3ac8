// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <thread>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/output_error.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

std::atomic<int> g_child_report_fd{-1};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw Error(ExitCode::kRunFailed, "pipe: " + errno_text(errno));
  }
}

// What failed in the child before exec, written to the error pipe as {what, errno}.
enum ChildFailure : int {
  kExecFailed = 1,
  kCgroupFailed = 2,
  kAffinityFailed = 3,
  kLimitFailed = 16,  // + the index of the limit in SpawnOptions::limits
};

// In the child, after fork: only async-signal-safe calls from here to exec.
[[noreturn]] void report_and_exit(int err_fd, ChildFailure what, int err) {
  const int e[2] = {what, err};
  ssize_t ignored = ::write(err_fd, e, sizeof e);
  (void)ignored;
  ::_exit(127);
}

// A descriptor the child may dup2 onto 0..3 without clobbering another source first: one above
// 3 (a copy, close-on-exec, when the original is 0..3). In the child only.
int above_three(int fd) {
  return fd <= 3 ? ::fcntl(fd, F_DUPFD_CLOEXEC, 4) : fd;
}

// The start time of the calling process: /proc/self/stat field 22 (clock ticks after boot), the
// fields counted after the last ')' (the name before it may hold anything). 0 when it cannot be
// read. In the child only (async-signal-safe: open, read, close, no allocation).
uint64_t own_start_time() {
  const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];  // field 22 lies within the first 300 bytes or so
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  ssize_t i = n - 1;
  while (i >= 0 && buf[i] != ')') --i;
  if (i < 0) return 0;
  int field = 2;
  uint64_t v = 0;
  for (++i; i < n && field <= 22; ++i) {
    if (buf[i] == ' ') {
      ++field;
    } else if (field == 22) {
      if (buf[i] < '0' || buf[i] > '9') return 0;
      v = v * 10 + static_cast<uint64_t>(buf[i] - '0');
    }
  }
  return field > 22 ? v : 0;
}

// Appends the decimal `v` to `line` at *len. In the child only.
void append_decimal(char* line, int* len, uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0 && n < 23);
  while (n > 0) line[(*len)++] = digits[--n];
}

// "child <pid> <start time>\n" to `fd` in one write: the pid and its start time name this
// process, so that the janitor never takes another process that got the pid after this one was
// reaped for it (engine/janitor/janitor_plan.hpp). In the child only (async-signal-safe).
void report_child(int fd, pid_t pid) {
  char line[64] = {'c', 'h', 'i', 'l', 'd', ' '};
  int len = 6;
  append_decimal(line, &len, static_cast<uint64_t>(pid));
  line[len++] = ' ';
  append_decimal(line, &len, own_start_time());
  line[len++] = '\n';
  ssize_t ignored = ::write(fd, line, static_cast<size_t>(len));
  (void)ignored;
}

// Writes the decimal `pid` to `path` (cgroup.procs) in one write. In the child only.
bool join_cgroup(const char* path, pid_t pid) {
  char digits[16];
  int n = 0;
  for (pid_t v = pid; v > 0 && n < 15; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
  char text[16];
  for (int k = 0; k < n; ++k) text[k] = digits[n - 1 - k];
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text, static_cast<size_t>(n)) == n;
  const int err = errno;
  ::close(fd);
  errno = err;
  return ok;
}

}  // namespace

void set_child_report_fd(int fd) {
  g_child_report_fd.store(fd);
}

std::optional<std::string> find_program(const std::string& program) {
  auto executable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) {
    if (executable(program)) return program;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (executable(candidate)) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return std::nullopt;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "ended (wait status " + std::to_string(status) + ")";
}

pid_t spawn_process(const SpawnOptions& o) {
  if (o.argv.empty()) throw Error(ExitCode::kRunFailed, "spawn: empty argv");
  const std::string& program = o.program.empty() ? o.argv[0] : o.program;
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  if (o.env) {
    for (const auto& e : *o.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  char* const* env = o.env ? envp.data() : environ;
  const char* path = program.c_str();
  const char* cgroup = o.cgroup_procs.empty() ? nullptr : o.cgroup_procs.c_str();
  // The CPU set, built before fork (CPU_ALLOC allocates); the child only passes it on.
  const int ncpus = o.cpus.empty() ? 0 : *std::max_element(o.cpus.begin(), o.cpus.end()) + 1;
  std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> cpu_set(ncpus > 0 ? CPU_ALLOC(ncpus) : nullptr,
                                                           [](cpu_set_t* p) {
                                                             if (p != nullptr) CPU_FREE(p);
                                                           });
  const size_t cpu_set_size = ncpus > 0 ? CPU_ALLOC_SIZE(ncpus) : 0;
  if (ncpus > 0) {
    if (!cpu_set) throw Error(ExitCode::kRunFailed, "spawn: cannot allocate a CPU set");
    CPU_ZERO_S(cpu_set_size, cpu_set.get());
    for (const int c : o.cpus) {
      if (c >= 0) CPU_SET_S(static_cast<size_t>(c), cpu_set_size, cpu_set.get());
    }
  }
  const cpu_set_t* cpus = cpu_set.get();
  std::vector<rlimit> limits;
  for (const ChildLimit& l : o.limits) {
    limits.push_back({static_cast<rlim_t>(l.soft), static_cast<rlim_t>(l.hard)});
  }
  const bool need_null =
      o.stdin_fd == kDevNullFd || o.stdout_fd == kDevNullFd || o.stderr_fd == kDevNullFd;
  int err[2] = {-1, -1};
  make_pipe(err);  // carries {what failed, errno} of the child back; closed by a successful exec
  const pid_t parent = ::getpid();
  const int report_fd = g_child_report_fd.load();

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    close_fd(err[0]);
    close_fd(err[1]);
    throw Error(ExitCode::kRunFailed, "fork: " + errno_text(e));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (report_fd >= 0) report_child(report_fd, ::getpid());
    ::prctl(PR_SET_PDEATHSIG, o.death_signal);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGPIPE, SIGINT, SIGTERM}) ::sigaction(sig, &dfl, nullptr);
    const int null_fd = need_null ? ::open("/dev/null", O_RDWR | O_CLOEXEC) : -1;
    auto source = [null_fd](int fd) { return fd == kDevNullFd ? null_fd : fd; };
    const int in = above_three(source(o.stdin_fd));
    const int out = o.stdout_fd == kInheritFd ? -1 : above_three(source(o.stdout_fd));
    const int errout = o.stderr_fd == kInheritFd ? -1 : above_three(source(o.stderr_fd));
    const int fd3 = o.fd3 >= 0 ? above_three(o.fd3) : -1;
    if (in >= 0) ::dup2(in, 0);
    if (out >= 0) ::dup2(out, 1);
    if (errout >= 0) ::dup2(errout, 2);
    if (fd3 >= 0) ::dup2(fd3, 3);
    // Join the cgroup before exec, so no thread of the program ever runs outside it.
    if (cgroup != nullptr && !join_cgroup(cgroup, ::getpid())) {
      report_and_exit(err[1], kCgroupFailed, errno);
    }
    // The affinity before exec, so that every thread the program starts inherits it.
    if (cpus != nullptr && ::sched_setaffinity(0, cpu_set_size, cpus) != 0) {
      report_and_exit(err[1], kAffinityFailed, errno);
    }
    // The limits before exec, so that every thread the program starts is under them.
    for (size_t k = 0; k < limits.size(); ++k) {
      if (::setrlimit(static_cast<__rlimit_resource_t>(o.limits[k].resource), &limits[k]) != 0) {
        report_and_exit(err[1], static_cast<ChildFailure>(kLimitFailed + static_cast<int>(k)),
                        errno);
      }
    }
    // A bare name is looked up in PATH only (never the current folder); a path is run as is.
    ::execvpe(path, argv.data(), env);
    report_and_exit(err[1], kExecFailed, errno);
  }
  ::setpgid(pid, pid);  // also done by the child: whoever is first
  close_fd(err[1]);
  int child_error[2] = {0, 0};
  ssize_t n;
  do {
    n = ::read(err[0], child_error, sizeof child_error);
  } while (n < 0 && errno == EINTR);
  close_fd(err[0]);
  if (n != static_cast<ssize_t>(sizeof child_error)) return pid;  // exec closed the pipe
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (child_error[0] == kCgroupFailed) {
    throw Error(ExitCode::kRunFailed, "cannot move '" + program + "' into the cgroup (" +
                                          o.cgroup_procs + "): " + errno_text(child_error[1]));
  }
  if (child_error[0] == kAffinityFailed) {
    throw Error(ExitCode::kRunFailed, "cannot set the CPU affinity of '" + program + "' to " +
                                          fmt::format("{}", fmt::join(o.cpus, ",")) + ": " +
                                          errno_text(child_error[1]));
  }
  if (child_error[0] >= kLimitFailed &&
      static_cast<size_t>(child_error[0] - kLimitFailed) < o.limits.size()) {
    const ChildLimit& l = o.limits[static_cast<size_t>(child_error[0] - kLimitFailed)];
    throw Error(ExitCode::kRunFailed,
                fmt::format("cannot set {} of '{}' to {} (soft), {} (hard): {}", l.name, program,
                            l.soft, l.hard, errno_text(child_error[1])));
  }
  throw Error(ExitCode::kMissingProgram,
              "cannot run '" + program + "': " + errno_text(child_error[1]));
}

Child::Child(Child&& other) noexcept {
  *this = std::move(other);
}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    reset();
    pid_ = other.pid_;
    stdin_fd_ = other.stdin_fd_;
    output_fd_ = other.output_fd_;
    fd3_fd_ = other.fd3_fd_;
    status_ = other.status_;
    other.pid_ = -1;
    other.stdin_fd_ = other.output_fd_ = other.fd3_fd_ = -1;
    other.status_.reset();
  }
  return *this;
}

Child::~Child() {
  reset();
}

void Child::reset() {
  if (pid_ > 0 && !status_) stop(std::chrono::milliseconds(0));
  close_fd(stdin_fd_);
  close_fd(output_fd_);
  close_fd(fd3_fd_);
  pid_ = -1;
  status_.reset();
}

Child Child::spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) throw Error(ExitCode::kRunFailed, "spawn: empty argv");
  Child c;  // owns the caller's ends from here on: an exception below closes them
  int in[2] = {-1, -1}, out[2] = {-1, -1}, fd3[2] = {-1, -1};
  int log_fd = -1;
  auto close_child_ends = [&] {
    close_fd(in[0]);
    close_fd(out[1]);
    close_fd(fd3[1]);
    close_fd(log_fd);
  };
  try {
    if (spec.stdin_pipe) {
      make_pipe(in);
      c.stdin_fd_ = in[1];
    }
    if (spec.capture_output) {
      make_pipe(out);
      c.output_fd_ = out[0];
    }
    if (spec.fd3_pipe) {
      make_pipe(fd3);
      c.fd3_fd_ = fd3[0];
    }
    if (!spec.output_path.empty()) {
      log_fd = ::open(spec.output_path.c_str(),
                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
      if (log_fd < 0) {
        throw OutputError("open log file", spec.output_path, errno);
      }
    }
    SpawnOptions o;
    o.argv = spec.argv;
    if (!spec.env.empty()) {
      std::vector<std::string> env;
      for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry = *e;
        bool overridden = false;
        for (const auto& kv : spec.env) {
          overridden = overridden || entry.rfind(kv.first + "=", 0) == 0;
        }
        if (!overridden) env.push_back(entry);
      }
      for (const auto& [k, v] : spec.env) env.push_back(k + "=" + v);
      o.env = std::move(env);
    }
    o.stdin_fd = in[0] >= 0 ? in[0] : kDevNullFd;
    const int output = out[1] >= 0 ? out[1] : log_fd >= 0 ? log_fd : kInheritFd;
    o.stdout_fd = output;
    o.stderr_fd = spec.stderr_to_null ? kDevNullFd : output;
    o.fd3 = fd3[1];
    o.death_signal = spec.death_signal;
    o.cgroup_procs = spec.cgroup_procs;
    o.cpus = spec.cpus;
    o.limits = spec.limits;
    c.pid_ = spawn_process(o);
  } catch (...) {
    close_child_ends();
    throw;
  }
  close_child_ends();
  return c;
}

void Child::close_stdin() {
  close_fd(stdin_fd_);
}

void Child::close_output() {
  close_fd(output_fd_);
}

bool Child::running() {
  if (pid_ <= 0 || status_) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    return false;
  }
  return true;
}

std::string Child::describe_exit() const {
  return status_ ? describe_wait_status(*status_) : "running";
}

void Child::signal(int sig) const {
  if (pid_ > 0 && !status_) {
    ::kill(-pid_, sig);
    ::kill(pid_, sig);
  }
}

bool Child::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void Child::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0 || status_) return;
  if (!running()) return;
  signal(SIGTERM);
  if (grace.count() > 0 && wait_for(grace)) return;
  signal(SIGKILL);
  int status = 0;
  if (::waitpid(pid_, &status, 0) == pid_) status_ = status;
}

std::string first_stdout_line(SpawnSpec spec, std::chrono::milliseconds timeout) {
  spec.capture_output = true;
  spec.stderr_to_null = true;
  spec.death_signal = SIGKILL;
  Child child;
  try {
    child = Child::spawn(spec);
  } catch (const Error&) {
    return "";
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  auto left_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  };
  std::string out;
  while (out.find('\n') == std::string::npos && out.size() < 4096 && left_ms() > 0) {
    pollfd pfd{child.output_fd(), POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(left_ms()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    char buf[512];
    const ssize_t n = ::read(child.output_fd(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  child.close_output();  // the rest is not read: more output ends the program (SIGPIPE)
  if (!child.wait_for(std::chrono::milliseconds(std::max<int64_t>(left_ms(), 0)))) {
    child.signal(SIGKILL);
  }
  child.stop(std::chrono::milliseconds(0));
  return std::string(trim(std::string_view(out).substr(0, out.find('\n'))));
}

}  // namespace xrunlab

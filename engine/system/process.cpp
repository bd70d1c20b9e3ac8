#include "engine/system/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw Error(ExitCode::kRunFailed, std::string("pipe: ") + std::strerror(errno));
  }
}

}  // namespace

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
  int in[2] = {-1, -1}, out[2] = {-1, -1}, fd3[2] = {-1, -1}, err[2] = {-1, -1};
  if (spec.stdin_pipe) make_pipe(in);
  if (spec.capture_output) make_pipe(out);
  if (spec.fd3_pipe) make_pipe(fd3);
  make_pipe(err);  // carries errno of a failed exec back to the parent
  int log_fd = -1;
  if (!spec.output_path.empty()) {
    log_fd = ::open(spec.output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      throw Error(ExitCode::kOutput,
                  "cannot open log file '" + spec.output_path + "': " + std::strerror(errno));
    }
  }
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    bool overridden = false;
    for (const auto& kv : spec.env) overridden = overridden || entry.rfind(kv.first + "=", 0) == 0;
    if (!overridden) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const std::string& cgroup = spec.cgroup_procs;

  const pid_t pid = ::fork();
  if (pid < 0) throw Error(ExitCode::kRunFailed, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // the engine died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (in[0] >= 0)
      ::dup2(in[0], 0);
    else {
      const int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, 0);
    }
    const int out_target = out[1] >= 0 ? out[1] : log_fd;
    if (out_target >= 0) {
      ::dup2(out_target, 1);
      ::dup2(out_target, 2);
    }
    if (fd3[1] >= 0) ::dup2(fd3[1], 3);
    if (!cgroup.empty()) {
      // Join the cgroup before exec, so no thread of the program ever runs outside it.
      char digits[16];
      int n = 0;
      for (pid_t v = ::getpid(); v > 0 && n < 15; v /= 10)
        digits[n++] = static_cast<char>('0' + v % 10);
      char text[16];
      for (int k = 0; k < n; ++k) text[k] = digits[n - 1 - k];
      const int cg = ::open(cgroup.c_str(), O_WRONLY | O_CLOEXEC);
      if (cg < 0 || ::write(cg, text, static_cast<size_t>(n)) != n) {
        const int e[2] = {2, errno};
        ssize_t ignored = ::write(err[1], e, sizeof e);
        (void)ignored;
        ::_exit(127);
      }
      ::close(cg);
    }
    // A bare name is looked up in PATH only (never the current folder); a path is run as is.
    ::execvpe(argv[0], argv.data(), envp.data());
    const int e[2] = {1, errno};
    ssize_t ignored = ::write(err[1], e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(fd3[1]);
  close_fd(err[1]);
  if (log_fd >= 0) ::close(log_fd);
  int child_error[2] = {0, 0};  // {what failed: 1 exec, 2 joining the cgroup; errno}
  ssize_t n;
  do {
    n = ::read(err[0], child_error, sizeof child_error);
  } while (n < 0 && errno == EINTR);
  close_fd(err[0]);
  Child c;
  c.pid_ = pid;
  c.stdin_fd_ = in[1];
  c.output_fd_ = out[0];
  c.fd3_fd_ = fd3[0];
  if (n == static_cast<ssize_t>(sizeof child_error)) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    c.pid_ = -1;
    if (child_error[0] == 2) {
      throw Error(ExitCode::kRunFailed, "cannot move '" + spec.argv[0] + "' into the cgroup (" +
                                            cgroup + "): " + std::strerror(child_error[1]));
    }
    throw Error(ExitCode::kMissingProgram,
                "cannot run '" + spec.argv[0] + "': " + std::strerror(child_error[1]));
  }
  return c;
}

void Child::close_stdin() {
  close_fd(stdin_fd_);
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
  if (!status_) return "running";
  const int s = *status_;
  if (WIFEXITED(s)) return "exited with status " + std::to_string(WEXITSTATUS(s));
  if (WIFSIGNALED(s)) {
    return "killed by signal " + std::to_string(WTERMSIG(s)) + " (" + strsignal(WTERMSIG(s)) + ")";
  }
  return "ended (wait status " + std::to_string(s) + ")";
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

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// Child and spawn_process with real programs (coreutils): argv arrives verbatim without a shell,
// exit statuses and signals are told apart, stop() escalates, every child has its own process
// group and exactly the descriptors it was given.
#include "engine/system/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/base/text.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace std::chrono_literals;
using testing_support::read_text_or_empty;
using testing_support::TempDir;

// Long enough never to end by itself while a test looks at it.
constexpr std::chrono::milliseconds kForever = 60s;

// Everything `fd` delivers until EOF (the writer closed it), or what came within `limit`.
std::string read_all(int fd, std::chrono::milliseconds limit = kForever) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return out;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

// Runs argv with its output captured; returns the output once the child has exited.
std::string output_of(const std::vector<std::string>& argv, Child* out = nullptr) {
  SpawnSpec s;
  s.argv = argv;
  s.capture_output = true;
  Child c = Child::spawn(s);
  const std::string text = read_all(c.output_fd());
  EXPECT_TRUE(c.wait_for(kForever));
  if (out != nullptr) *out = std::move(c);
  return text;
}

// The descriptors a process has open, from /proc/PID/fd.
std::set<int> open_fds(pid_t pid) {
  std::set<int> fds;
  if (DIR* d = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') fds.insert(std::stoi(e->d_name));
    }
    ::closedir(d);
  }
  return fds;
}

std::string fd_target(pid_t pid, int fd) {
  char buf[256] = {};
  const std::string link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// The processes whose parent is `pid`, from /proc.
std::vector<ProcPidStat> children_of(pid_t pid) {
  std::vector<ProcPidStat> out;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      const auto st = read_proc_pid_stat(static_cast<pid_t>(std::stol(e->d_name)));
      if (st && st->ppid == pid) out.push_back(*st);
    }
    ::closedir(d);
  }
  return out;
}

// Waits until `pid` sleeps in nanosleep (sleep(1) has finished starting up and opens nothing
// more).
void wait_until_sleeping(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + kForever;
  while (read_text_or_empty("/proc/" + std::to_string(pid) + "/wchan").find("nanosleep") ==
             std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(2ms);
  }
}

// Waits until no process `pid` exists any more (a zombie counts as gone).
void wait_until_gone(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + kForever;
  for (auto st = read_proc_pid_stat(pid); st && st->state != 'Z'; st = read_proc_pid_stat(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return;
    std::this_thread::sleep_for(5ms);
  }
}

// Is signal `sig` set in a /proc/PID/status signal mask ("SigIgn:\t0000000000001000")?
bool mask_has(std::string_view hex, int sig) {
  return ((std::stoull(std::string(hex), nullptr, 16) >> (sig - 1)) & 1u) != 0;
}

// ---- argv, exit status, errors -------------------------------------------------------------

// Every child announces itself on the report descriptor (the janitor's list) before exec, with
// its start time (/proc/PID/stat field 22), which with the pid names it.
TEST(Child, EveryChildAnnouncesItselfOnTheReportDescriptor) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  SpawnSpec spec;
  spec.argv = {"sleep", "30"};
  set_child_report_fd(fds[1]);
  Child a = Child::spawn(spec);
  Child b = Child::spawn(spec);
  set_child_report_fd(-1);
  Child c = Child::spawn(spec);
  const pid_t pa = a.pid(), pb = b.pid();
  const auto sa = read_proc_pid_stat(pa), sb = read_proc_pid_stat(pb);
  for (Child* k : {&a, &b, &c}) k->stop(std::chrono::milliseconds(0));
  ASSERT_TRUE(sa && sb);
  char buf[256] = {};
  const ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)),
            "child " + std::to_string(pa) + " " + std::to_string(sa->starttime) + "\nchild " +
                std::to_string(pb) + " " + std::to_string(sb->starttime) + "\n");
  EXPECT_GT(sa->starttime, 0u);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(Child, ArgumentsArriveVerbatimWithoutAShell) {
  const std::vector<std::string> args = {"a b",   "'single'", "\"double\"", "$(echo hi)", "`id`",
                                         "$HOME", "*",        "x;y|z&",     "",           "\\n"};
  std::vector<std::string> argv = {"printf", "[%s]\\n"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string expected;
  for (const auto& a : args) expected += "[" + a + "]\n";
  EXPECT_EQ(output_of(argv), expected);
}

TEST(Child, ExitStatusAndItsDescription) {
  Child c;
  output_of({"true"}, &c);
  ASSERT_TRUE(c.wait_status());
  EXPECT_TRUE(WIFEXITED(*c.wait_status()) && WEXITSTATUS(*c.wait_status()) == 0);
  EXPECT_EQ(c.describe_exit(), "exited with status 0");
  output_of({"false"}, &c);
  EXPECT_EQ(c.describe_exit(), "exited with status 1");
  output_of({"sleep", "--no-such-option"}, &c);
  EXPECT_EQ(c.describe_exit(), "exited with status 1");
}

TEST(Child, ASignalIsToldApartFromAnExit) {
  SpawnSpec s;
  s.argv = {"sleep", "60"};
  Child c = Child::spawn(s);
  EXPECT_TRUE(c.running());
  EXPECT_EQ(c.describe_exit(), "running");
  c.signal(SIGUSR1);
  ASSERT_TRUE(c.wait_for(kForever));
  EXPECT_FALSE(c.running());
  ASSERT_TRUE(WIFSIGNALED(*c.wait_status()));
  EXPECT_EQ(WTERMSIG(*c.wait_status()), SIGUSR1);
  EXPECT_EQ(c.describe_exit(),
            "killed by signal " + std::to_string(SIGUSR1) + " (" + strsignal(SIGUSR1) + ")");
}

TEST(DescribeWaitStatus, ExitSignalOrOther) {
  EXPECT_EQ(describe_wait_status(W_EXITCODE(3, 0)), "exited with status 3");
  EXPECT_EQ(describe_wait_status(W_EXITCODE(0, SIGKILL)),
            std::string("killed by signal 9 (") + strsignal(SIGKILL) + ")");
  EXPECT_EQ(describe_wait_status(W_STOPCODE(SIGSTOP)),
            "ended (wait status " + std::to_string(W_STOPCODE(SIGSTOP)) + ")");
}

TEST(Child, AMissingProgramIsAnErrorOfItsOwn) {
  for (const std::string program : {"xrunlab-no-such-program", "/nonexistent/program"}) {
    SpawnSpec s;
    s.argv = {program, "arg"};
    try {
      Child::spawn(s);
      ADD_FAILURE() << program << " was started";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kMissingProgram);
      EXPECT_EQ(std::string(e.what()), "cannot run '" + program + "': No such file or directory");
    }
  }
  // Found but not executable.
  TempDir dir("process");
  const std::string script = dir.write("not-executable", "#!/bin/sh\n");
  SpawnSpec s;
  s.argv = {script};
  try {
    Child::spawn(s);
    ADD_FAILURE() << "a file without x permission was started";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kMissingProgram);
    EXPECT_EQ(std::string(e.what()), "cannot run '" + script + "': Permission denied");
  }
}

TEST(Child, ABareNameIsNeverLookedUpInTheCurrentFolder) {
  TempDir dir("process");
  const std::string prog = dir.write("xrunlab-test-here", "#!/bin/sh\necho ran\n");
  ::chmod(prog.c_str(), 0755);
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir.path());
  SpawnSpec s;
  s.argv = {"xrunlab-test-here"};
  EXPECT_THROW(Child::spawn(s), Error);
  std::filesystem::current_path(cwd);
}

TEST(Child, AnUnwritableLogIsAnOutputError) {
  SpawnSpec s;
  s.argv = {"true"};
  s.output_path = "/nonexistent/folder/log";
  try {
    Child::spawn(s);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/folder/log"), std::string::npos);
  }
}

TEST(Child, ACgroupThatRefusesTheChildIsARunError) {
  SpawnSpec s;
  s.argv = {"true"};
  s.cgroup_procs = "/nonexistent/cgroup.procs";
  try {
    Child::spawn(s);
    ADD_FAILURE() << "spawned although the cgroup cannot be joined";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRunFailed);
    EXPECT_EQ(std::string(e.what()),
              "cannot move 'true' into the cgroup (/nonexistent/cgroup.procs): No such file or "
              "directory");
  }
}

// The last CPU this process may run on: a one-CPU set that differs from the whole set on a
// machine with more than one CPU.
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) last = c;
  }
  return last;
}

TEST(Child, CpusBecomeTheProgramsAffinityBeforeExec) {
  const int cpu = last_allowed_cpu();
  ASSERT_GE(cpu, 0);
  // grep reads its own /proc/self/status: what the exec'd program itself runs with.
  SpawnSpec s;
  s.argv = {"grep", "^Cpus_allowed_list:", "/proc/self/status"};
  s.capture_output = true;
  s.cpus = {cpu};
  Child c = Child::spawn(s);
  const std::string text = read_all(c.output_fd());
  ASSERT_TRUE(c.wait_for(kForever));
  EXPECT_EQ(text, "Cpus_allowed_list:\t" + std::to_string(cpu) + "\n");
  // Without cpus the child keeps the caller's whole set.
  const std::string whole = output_of({"grep", "^Cpus_allowed_list:", "/proc/self/status"});
  const std::string mine = read_text_or_empty("/proc/self/status");
  const auto at = mine.find("Cpus_allowed_list:");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(whole, mine.substr(at, mine.find('\n', at) - at + 1));
}

TEST(Child, CpusTheKernelRefusesAreARunErrorNamingTheList) {
  SpawnSpec s;
  s.argv = {"true"};
  s.cpus = {4000, 4001};  // no machine this runs on has them online
  try {
    Child::spawn(s);
    ADD_FAILURE() << "spawned although its CPUs do not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRunFailed);
    EXPECT_EQ(std::string(e.what()),
              "cannot set the CPU affinity of 'true' to 4000,4001: Invalid argument");
  }
}

TEST(Child, LimitsAreTheProgramsBeforeExec) {
  // grep reads its own /proc/self/limits: what the exec'd program itself runs with.
  SpawnSpec s;
  s.argv = {"grep", "^Max realtime timeout", "/proc/self/limits"};
  s.capture_output = true;
  s.limits = {{RLIMIT_RTTIME, 1250000, 2250000, "RLIMIT_RTTIME"}};
  Child c = Child::spawn(s);
  const std::string text = read_all(c.output_fd());
  ASSERT_TRUE(c.wait_for(kForever));
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  EXPECT_EQ(words,
            (std::vector<std::string>{"Max", "realtime", "timeout", "1250000", "2250000", "us"}))
      << text;
}

TEST(Child, ALimitTheKernelRefusesIsARunErrorNamingIt) {
  SpawnSpec s;
  s.argv = {"true"};
  s.limits = {{RLIMIT_RTTIME, 3, 2, "RLIMIT_RTTIME"}};  // soft above hard: EINVAL
  try {
    Child::spawn(s);
    ADD_FAILURE() << "spawned although its limit is impossible";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRunFailed);
    EXPECT_EQ(std::string(e.what()),
              "cannot set RLIMIT_RTTIME of 'true' to 3 (soft), 2 (hard): Invalid argument");
  }
}

// ---- stopping --------------------------------------------------------------------------------

TEST(Child, StopEndsAChildThatHonoursSigterm) {
  SpawnSpec s;
  s.argv = {"sleep", "60"};
  Child c = Child::spawn(s);
  c.stop(kForever);
  ASSERT_TRUE(c.wait_status());
  EXPECT_EQ(WTERMSIG(*c.wait_status()), SIGTERM) << c.describe_exit();
  c.stop(kForever);  // twice is safe
  EXPECT_EQ(WTERMSIG(*c.wait_status()), SIGTERM);
}

TEST(Child, StopEscalatesToSigkillForAChildThatIgnoresSigterm) {
  SpawnSpec s;
  s.argv = {"env", "--ignore-signal=TERM", "sleep", "60"};
  Child c = Child::spawn(s);
  // env sets SIGTERM to ignored, then execs sleep: wait until sleep sleeps.
  wait_until_sleeping(c.pid());
  const std::string status = read_text_or_empty("/proc/" + std::to_string(c.pid()) + "/status");
  ASSERT_TRUE(mask_has(key_value(status, "SigIgn").value_or("0"), SIGTERM)) << status;
  c.stop(200ms);
  ASSERT_TRUE(c.wait_status());
  ASSERT_TRUE(WIFSIGNALED(*c.wait_status())) << c.describe_exit();
  EXPECT_EQ(WTERMSIG(*c.wait_status()), SIGKILL) << "SIGTERM is ignored: only SIGKILL ends it";
}

TEST(Child, TheDestructorKillsAndReaps) {
  pid_t pid = 0;
  {
    SpawnSpec s;
    s.argv = {"sleep", "60"};
    Child c = Child::spawn(s);
    pid = c.pid();
  }
  // Reaped: the pid is no child of this process any more.
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(Child, WaitForGivesUpOnARunningChild) {
  SpawnSpec s;
  s.argv = {"sleep", "60"};
  Child c = Child::spawn(s);
  EXPECT_FALSE(c.wait_for(20ms));
  EXPECT_TRUE(c.running());
  EXPECT_FALSE(c.wait_status());
}

TEST(Child, MovingHandsOverTheProcess) {
  SpawnSpec s;
  s.argv = {"sleep", "60"};
  Child a = Child::spawn(s);
  const pid_t pid = a.pid();
  Child b = std::move(a);
  EXPECT_EQ(a.pid(), -1);
  EXPECT_FALSE(a.running());
  EXPECT_EQ(b.pid(), pid);
  EXPECT_TRUE(b.running());
  a.stop(0ms);  // nothing to stop
  EXPECT_TRUE(b.running());
}

// ---- process group ---------------------------------------------------------------------------

TEST(Child, RunsInItsOwnProcessGroupAndSignalsReachTheWholeGroup) {
  // timeout(1) runs sleep as its own child, in its process group; it does not forward SIGUSR1.
  SpawnSpec s;
  s.argv = {"timeout", "60", "sleep", "60"};
  Child c = Child::spawn(s);
  EXPECT_EQ(::getpgid(c.pid()), c.pid());
  EXPECT_NE(::getpgid(c.pid()), ::getpgrp());
  std::vector<ProcPidStat> grandchildren;
  const auto deadline = std::chrono::steady_clock::now() + kForever;
  while (grandchildren.empty() && std::chrono::steady_clock::now() < deadline) {
    grandchildren = children_of(c.pid());
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(grandchildren.size(), 1u);
  const pid_t grandchild = grandchildren.front().pid;
  EXPECT_EQ(grandchildren.front().pgrp, c.pid());
  c.signal(SIGUSR1);  // timeout dies of it; sleep only if the group got it too
  ASSERT_TRUE(c.wait_for(kForever));
  EXPECT_EQ(WTERMSIG(*c.wait_status()), SIGUSR1) << c.describe_exit();
  wait_until_gone(grandchild);
  const auto st = read_proc_pid_stat(grandchild);
  EXPECT_TRUE(!st || st->state == 'Z' || st->starttime != grandchildren.front().starttime);
}

// ---- pipes, environment, descriptors ---------------------------------------------------------

TEST(Child, StdinPipeAndCapturedOutput) {
  SpawnSpec s;
  s.argv = {"cat"};
  s.stdin_pipe = true;
  s.capture_output = true;
  Child c = Child::spawn(s);
  const std::string text = "line one\nline two\n";
  ASSERT_EQ(::write(c.stdin_fd(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  c.close_stdin();
  EXPECT_EQ(c.stdin_fd(), -1);
  EXPECT_EQ(read_all(c.output_fd()), text);
  ASSERT_TRUE(c.wait_for(kForever));
  EXPECT_EQ(c.describe_exit(), "exited with status 0");
}

TEST(Child, CapturedOutputHasStderrUnlessItGoesToDevNull) {
  SpawnSpec s;
  s.argv = {"ls", "/nonexistent-xrunlab"};
  s.capture_output = true;
  Child c = Child::spawn(s);
  EXPECT_NE(read_all(c.output_fd()).find("/nonexistent-xrunlab"), std::string::npos);
  s.stderr_to_null = true;
  Child quiet = Child::spawn(s);
  EXPECT_EQ(read_all(quiet.output_fd()), "");
}

TEST(Child, Fd3Pipe) {
  SpawnSpec s;
  s.argv = {"tee", "/dev/fd/3"};
  s.stdin_pipe = true;
  s.fd3_pipe = true;
  s.capture_output = true;
  Child c = Child::spawn(s);
  ASSERT_EQ(::write(c.stdin_fd(), "to fd 3\n", 8), 8);
  c.close_stdin();
  EXPECT_EQ(read_all(c.fd3_fd()), "to fd 3\n");
  EXPECT_EQ(read_all(c.output_fd()), "to fd 3\n");
  ASSERT_TRUE(c.wait_for(kForever));
  EXPECT_EQ(c.describe_exit(), "exited with status 0");
}

TEST(Child, OutputPathIsAppendedTo) {
  TempDir dir("process");
  const std::string log = dir.write("child.log", "before\n");
  for (const char* word : {"one", "two"}) {
    SpawnSpec s;
    s.argv = {"printf", "%s\\n", word};
    s.output_path = log;
    Child c = Child::spawn(s);
    ASSERT_TRUE(c.wait_for(kForever));
  }
  EXPECT_EQ(read_text_or_empty(log), "before\none\ntwo\n");
}

TEST(Child, EnvironmentEntriesAreSetOrReplaced) {
  ::setenv("XRUNLAB_TEST_REPLACED", "old", 1);
  SpawnSpec s;
  s.argv = {"env"};
  s.capture_output = true;
  s.env = {{"XRUNLAB_TEST_NEW", "a b $(c)"}, {"XRUNLAB_TEST_REPLACED", "new"}};
  Child c = Child::spawn(s);
  const std::string out = read_all(c.output_fd());
  ::unsetenv("XRUNLAB_TEST_REPLACED");
  int news = 0, replaced = 0;
  for (std::string_view line : lines(out)) {
    if (starts_with(line, "XRUNLAB_TEST_NEW=")) {
      ++news;
      EXPECT_EQ(line, "XRUNLAB_TEST_NEW=a b $(c)");
    }
    if (starts_with(line, "XRUNLAB_TEST_REPLACED=")) {
      ++replaced;
      EXPECT_EQ(line, "XRUNLAB_TEST_REPLACED=new");
    }
  }
  EXPECT_EQ(news, 1);
  EXPECT_EQ(replaced, 1);
  EXPECT_NE(out.find("PATH="), std::string::npos) << "the rest of the environment is kept";
}

// The descriptors of this process that a child inherits (open, not close-on-exec), from
// `first` up (ctest, for one, hands its tests some).
std::set<int> inheritable_fds_from(int first) {
  std::set<int> out;
  for (int fd : open_fds(::getpid())) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (fd >= first && flags >= 0 && (flags & FD_CLOEXEC) == 0) out.insert(fd);
  }
  return out;
}

TEST(Child, GetsExactlyTheDescriptorsItIsGiven) {
  SpawnSpec s;
  s.argv = {"sleep", "60"};
  s.stdin_pipe = true;
  s.capture_output = true;
  s.fd3_pipe = true;
  const std::set<int> inherited = inheritable_fds_from(4);
  const std::set<int> mine_before = open_fds(::getpid());
  Child c = Child::spawn(s);
  wait_until_sleeping(c.pid());
  // What sleep has is what it was given.
  std::set<int> expected = {0, 1, 2, 3};
  expected.insert(inherited.begin(), inherited.end());
  EXPECT_EQ(open_fds(c.pid()), expected);
  // Each is the pipe the parent holds the other end of.
  EXPECT_EQ(fd_target(c.pid(), 0).rfind("pipe:", 0), 0u);
  EXPECT_EQ(fd_target(c.pid(), 0), fd_target(::getpid(), c.stdin_fd()));
  EXPECT_EQ(fd_target(c.pid(), 1), fd_target(::getpid(), c.output_fd()));
  EXPECT_EQ(fd_target(c.pid(), 2), fd_target(::getpid(), c.output_fd()));
  EXPECT_EQ(fd_target(c.pid(), 3), fd_target(::getpid(), c.fd3_fd()));
  // The parent keeps exactly its three ends, nothing of the child's side.
  std::set<int> mine_expected = mine_before;
  mine_expected.insert({c.stdin_fd(), c.output_fd(), c.fd3_fd()});
  EXPECT_EQ(open_fds(::getpid()), mine_expected);
  c.stop(kForever);
}

TEST(Child, WithoutPipesStdinIsDevNull) {
  SpawnSpec s;
  s.argv = {"sleep", "60"};
  const std::set<int> inherited = inheritable_fds_from(3);
  Child c = Child::spawn(s);
  wait_until_sleeping(c.pid());
  std::set<int> expected = {0, 1, 2};
  expected.insert(inherited.begin(), inherited.end());
  EXPECT_EQ(open_fds(c.pid()), expected);
  EXPECT_EQ(fd_target(c.pid(), 0), "/dev/null");
  EXPECT_EQ(fd_target(c.pid(), 1), fd_target(::getpid(), 1));  // inherited
}

// ---- spawn_process, the level below ----------------------------------------------------------

TEST(SpawnProcess, WholeEnvironmentResolvedProgramAndDevNull) {
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  SpawnOptions o;
  o.program = "/usr/bin/env";
  o.argv = {"my-env-name"};
  o.env = std::vector<std::string>{"ONLY=this"};
  o.stdout_fd = out[1];
  o.stderr_fd = kDevNullFd;
  const pid_t pid = spawn_process(o);
  ::close(out[1]);
  EXPECT_EQ(read_all(out[0]), "ONLY=this\n");
  ::close(out[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_EQ(describe_wait_status(status), "exited with status 0");
}

TEST(SpawnProcess, OwnGroupStdoutToDevNullAndArgv0AsGiven) {
  SpawnOptions o;
  o.program = "sleep";
  o.argv = {"xrunlab-sleeper", "60"};
  o.stdout_fd = kDevNullFd;
  const pid_t pid = spawn_process(o);
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_EQ(fd_target(pid, 0), "/dev/null");
  EXPECT_EQ(fd_target(pid, 1), "/dev/null");
  EXPECT_EQ(fd_target(pid, 2), fd_target(::getpid(), 2));
  EXPECT_EQ(read_text_or_empty("/proc/" + std::to_string(pid) + "/cmdline"),
            std::string("xrunlab-sleeper\0"
                        "60\0",
                        19));
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
}

TEST(SpawnProcess, TheChildStartsWithDefaultSignalsAndNothingBlocked) {
  // Blocked and ignored here; the child must not inherit either.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &block, &old), 0);
  struct sigaction ign {
  }, old_pipe{};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, &old_pipe);
  SpawnOptions o;
  o.argv = {"sleep", "60"};
  const pid_t pid = spawn_process(o);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  wait_until_sleeping(pid);
  const std::string status = read_text_or_empty("/proc/" + std::to_string(pid) + "/status");
  EXPECT_EQ(key_value(status, "SigBlk"), std::optional<std::string_view>("0000000000000000"));
  const std::string_view ignored = key_value(status, "SigIgn").value_or("ffffffffffffffff");
  for (int sig : {SIGPIPE, SIGINT, SIGTERM}) EXPECT_FALSE(mask_has(ignored, sig)) << sig;
  ::kill(pid, SIGTERM);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
}

TEST(SpawnProcess, MissingProgramNamesWhatWasExecuted) {
  SpawnOptions o;
  o.program = "/nonexistent/make";
  o.argv = {"make", "-j2"};
  try {
    spawn_process(o);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kMissingProgram);
    EXPECT_EQ(std::string(e.what()), "cannot run '/nonexistent/make': No such file or directory");
  }
  for (const ProcPidStat& c : children_of(::getpid())) {
    EXPECT_NE(c.state, 'Z') << "the failed child was not reaped: " << c.pid;
  }
}

TEST(FindProgram, PathLookupAndPaths) {
  const auto sleep = find_program("sleep");
  ASSERT_TRUE(sleep);
  EXPECT_EQ(sleep->back() == 'p' && sleep->find('/') != std::string::npos, true) << *sleep;
  EXPECT_EQ(find_program(*sleep), sleep);
  EXPECT_EQ(find_program("xrunlab-no-such-program"), std::nullopt);
  EXPECT_EQ(find_program("/etc/passwd"), std::nullopt);  // not executable
  EXPECT_EQ(find_program("/usr"), std::nullopt);         // a folder
}

}  // namespace
}  // namespace xrunlab

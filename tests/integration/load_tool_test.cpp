// SPDX-License-Identifier: GPL-2.0-or-later
// Integration tests of the built xrunlab-load binary: every kind runs, is stopped by a signal,
// reports its throughput, and leaves no process and no scratch file behind -- also when the
// process that started it is killed with SIGKILL.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/base/proc_pid_stat.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/loads/process_tree.hpp"
#include "engine/loads/scratch_folder.hpp"
#include "engine/loads/x_display.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef XRUNLAB_LOAD_BIN
#error "XRUNLAB_LOAD_BIN must be defined as the path of the built xrunlab-load binary"
#endif

namespace xrunlab {
namespace {

using testing_support::path_exists;

using Clock = std::chrono::steady_clock;
using testing_support::read_text_or_empty;
using testing_support::TempDir;
using testing_support::write_text;
using namespace std::chrono_literals;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// Every process seen below a root, identified by pid and start time (pids can be reused).
struct Tracker {
  std::map<pid_t, uint64_t> seen;
  // Every comm each had: a forked worker is the tool's until it execs its program, and a scan
  // on a busy machine can see it in between.
  std::map<pid_t, std::set<std::string>> names;
  std::set<pid_t> direct_children;  // distinct children of the root seen over time

  void scan(pid_t root) {
    for (pid_t p : descendant_pids(root)) {
      const auto st = read_proc_pid_stat(p);
      if (!st) continue;
      seen.emplace(p, st->starttime);
      names[p].insert(st->comm);
      if (st->ppid == root) direct_children.insert(p);
    }
  }
  // Processes seen before that still exist (zombies included).
  std::vector<pid_t> survivors() const {
    std::vector<pid_t> out;
    for (const auto& [pid, start] : seen) {
      const auto st = read_proc_pid_stat(pid);
      if (st && st->starttime == start) out.push_back(pid);
    }
    return out;
  }
  void kill_survivors() const {
    for (pid_t p : survivors()) ::kill(p, SIGKILL);
  }
};

std::string describe(const std::vector<pid_t>& pids) {
  std::string s;
  for (pid_t p : pids) {
    s += std::to_string(p) + " " + read_text_or_empty("/proc/" + std::to_string(p) + "/comm");
  }
  return s;
}

struct RunResult {
  int status = -1;                   // raw wait status
  std::set<std::string> names_seen;  // comm of every descendant seen
  nlohmann::json report;
  std::string log;
  bool scratch_seen = false;
  bool scratch_left = true;
  Clock::duration stop_time{};
  std::vector<pid_t> survivors;
  size_t descendants_seen = 0;
};

struct RunPlan {
  std::vector<std::string> kind_args;
  int signal = SIGTERM;
  Clock::duration min_run = 1500ms;
  Clock::duration max_run = 1500ms;  // stop then, even if min_children was not reached
  size_t min_children = 0;           // distinct direct children to see before stopping
};

// `midway`, if given, is called once with the supervisor's pid when half of min_run has passed.
RunResult run_load(const RunPlan& plan, const std::function<void(pid_t)>& midway = {}) {
  RunResult r;
  TempDir tmp;
  EXPECT_FALSE(tmp.str().empty());
  const std::string scratch = tmp.str() + "/scratch", report = tmp.str() + "/report.json";
  SpawnSpec spec;
  spec.argv = {XRUNLAB_LOAD_BIN, "--report", report, "--scratch", scratch};
  spec.argv.insert(spec.argv.end(), plan.kind_args.begin(), plan.kind_args.end());
  spec.output_path = tmp.str() + "/load.log";
  Child child = Child::spawn(spec);
  Tracker tracker;
  const auto t0 = Clock::now();
  bool midway_done = !midway;
  for (;;) {
    tracker.scan(child.pid());
    if (!midway_done && Clock::now() - t0 >= plan.min_run / 2) {
      midway(child.pid());
      midway_done = true;
    }
    r.scratch_seen = r.scratch_seen || path_exists(scratch);
    const auto elapsed = Clock::now() - t0;
    if (!child.running()) break;  // ended by itself: a failure, reported below
    if (elapsed >= plan.max_run) break;
    if (elapsed >= plan.min_run && tracker.direct_children.size() >= plan.min_children) break;
    std::this_thread::sleep_for(20ms);
  }
  tracker.scan(child.pid());
  const auto t_stop = Clock::now();
  child.signal(plan.signal);
  const bool ended = child.wait_for(5s);
  r.stop_time = Clock::now() - t_stop;
  EXPECT_TRUE(ended) << "xrunlab-load did not end within 5 s of the signal";
  child.stop(0ms);
  if (child.wait_status()) r.status = *child.wait_status();
  r.log = read_text_or_empty(spec.output_path);
  const std::string text = read_text_or_empty(report);
  r.report = nlohmann::json::parse(text, nullptr, false);
  r.scratch_left = path_exists(scratch);
  r.survivors = tracker.survivors();
  r.descendants_seen = tracker.seen.size();
  for (const auto& [pid, comms] : tracker.names) r.names_seen.insert(comms.begin(), comms.end());
  tracker.kill_survivors();  // never leave anything behind, even when the test fails
  return r;
}

// What every stopped load must show, whatever its kind.
void expect_clean_stop(const RunResult& r, const char* stopped_by = "SIGTERM") {
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
      << "wait status " << r.status << "\n"
      << r.log;
  ASSERT_TRUE(r.report.is_object()) << r.log;
  EXPECT_EQ(r.report.value("stopped_by", ""), stopped_by);
  EXPECT_TRUE(r.report.value("scratch_removed", false));
  EXPECT_TRUE(r.report.at("errors").empty()) << r.report.dump();
  EXPECT_TRUE(r.scratch_seen);
  EXPECT_FALSE(r.scratch_left);
  EXPECT_GE(r.report.value("workers_started", 0), 1);
  EXPECT_TRUE(r.survivors.empty()) << "left behind: " << describe(r.survivors);
  EXPECT_LT(r.stop_time, 3s);
}

double cpu_seconds(const nlohmann::json& report) {
  return report.value("cpu_user_s", 0.0) + report.value("cpu_system_s", 0.0);
}

// --- every kind ---------------------------------------------------------------------------

TEST(LoadTool, CompileBuildsInALoopAndCleansUp) {
  // One build is finished when the third make has started: clean, build, clean.
  // The time limit is only a safety net: the test waits for the third make, however long one
  // build takes on a loaded machine (about 6.5 s on an idle one).
  const RunResult r = run_load({{"compile", "2"}, SIGTERM, 1500ms, 180s, 3});
  expect_clean_stop(r);
  EXPECT_GE(r.report.value("iterations", 0), 1) << r.report.dump();
  EXPECT_GT(cpu_seconds(r.report), 0.0);
  EXPECT_EQ(r.report.at("args"), nlohmann::json::array({"2"}));
  EXPECT_GE(r.descendants_seen, 3u);  // make and its compilers
  for (const auto& s : r.report.at("exit_statuses")) EXPECT_EQ(s, 0);
}

TEST(LoadTool, HackbenchRunsInALoop) {
  const RunResult r = run_load({{"hackbench", "1"}, SIGTERM, 1500ms, 120s, 2});  // a safety net
  expect_clean_stop(r);
  EXPECT_GE(r.report.value("iterations", 0), 1) << r.report.dump();
  EXPECT_GT(cpu_seconds(r.report), 0.0);
}

TEST(LoadTool, CpuHogsUseCpu) {
  const RunResult r = run_load({{"cpu", "2"}});
  expect_clean_stop(r);
  EXPECT_EQ(r.report.value("iterations", -1), 0);
  EXPECT_EQ(r.report.value("workers_started", 0), 2);
  EXPECT_GT(cpu_seconds(r.report), 0.0);
}

TEST(LoadTool, IoWriteWritesBytes) {
  const RunResult r = run_load({{"io-write", "8"}});
  expect_clean_stop(r);
  EXPECT_GT(r.report.value("bytes", 0ull), 0ull);
}

TEST(LoadTool, IoReadReadsBytes) {
  const RunResult r = run_load({{"io-read", "8"}});
  expect_clean_stop(r);
  EXPECT_GT(r.report.value("bytes", 0ull), 0ull);
}

TEST(LoadTool, IoCopyCopiesBytes) {
  const RunResult r = run_load({{"io-copy", "8"}});
  expect_clean_stop(r);
  EXPECT_GT(r.report.value("bytes", 0ull), 0ull);
}

TEST(LoadTool, NetStreamsOverLoopback) {
  const RunResult r = run_load({{"net"}});
  expect_clean_stop(r);
  EXPECT_GT(r.report.value("bytes", 0ull), 0ull);
  EXPECT_EQ(r.report.value("workers_started", 0), 2);
}

TEST(LoadTool, ExecRunsTheCommandAndStopsIt) {
  const RunResult r = run_load({{"exec", "--", "sleep", "100"}});
  expect_clean_stop(r);
  EXPECT_EQ(r.report.value("iterations", 0), 1);
  EXPECT_EQ(r.report.at("args"), nlohmann::json::array({"sleep", "100"}));
  EXPECT_TRUE(r.report.at("exit_statuses").empty());  // the stop's own kill is not a result
}

TEST(LoadTool, ExecRestartsACommandThatEnds) {
  const RunResult r = run_load({{"exec", "--", "sleep", "0.2"}});
  expect_clean_stop(r);
  EXPECT_GE(r.report.value("iterations", 0), 3);
  ASSERT_FALSE(r.report.at("exit_statuses").empty());
  EXPECT_LE(r.report.at("exit_statuses").size(), 10u);
  EXPECT_EQ(r.report.at("exit_statuses").front(), 0);
}

// --- x11 and top: a program whose output is counted -------------------------------------------

// The displays the log says the load's X servers had ("X server (pid P) on display :N").
std::vector<int> displays_in(const std::string& log) {
  std::vector<int> out;
  const std::string marker = "on display :";
  for (size_t at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1)) {
    out.push_back(std::atoi(log.c_str() + at + marker.size()));
  }
  return out;
}

void expect_display_files_gone(const RunResult& r) {
  const std::vector<int> displays = displays_in(r.log);
  EXPECT_FALSE(displays.empty()) << r.log;
  for (int d : displays) {
    EXPECT_FALSE(path_exists(load_tool::x_socket_path("/tmp", d))) << "display :" << d;
    EXPECT_FALSE(path_exists(load_tool::x_lock_path("/tmp", d))) << "display :" << d;
  }
}

// CI installs Xvfb and glxgears (scripts/setup.sh): without them this fails, never skips.
void require_x11_programs() {
  ASSERT_EQ(missing_program_for("x11", {"1"}), "") << "run scripts/setup.sh";
}

TEST(LoadTool, X11DrawsOnAPrivateDisplayAndCountsFrames) {
  require_x11_programs();
  // glxgears reports every 5 s: 6.5 s give at least one report from each of the two drawers.
  const RunResult r = run_load({{"x11", "2"}, SIGTERM, 6500ms, 6500ms, 3});
  expect_clean_stop(r);
  EXPECT_GT(r.report.value("units", 0ull), 0ull) << r.report.dump();
  EXPECT_EQ(r.report.value("unit_name", ""), "frames drawn");
  EXPECT_GE(r.report.value("units_s", 0.0), 4.5) << r.report.dump();
  EXPECT_EQ(r.report.value("workers_started", 0), 3) << "the X server and two drawers";
  EXPECT_GT(cpu_seconds(r.report), 0.0);
  EXPECT_TRUE(r.names_seen.count("Xvfb") == 1 && r.names_seen.count("glxgears") == 1)
      << r.descendants_seen << " processes seen";
  expect_display_files_gone(r);
}

TEST(LoadTool, X11ServerKilledIsReplacedAndItsSocketRemoved) {
  require_x11_programs();
  // SIGKILL leaves the server no chance to remove its socket: the supervisor does, and starts
  // another server whose display the drawer joins.
  const auto kill_x_server = [](pid_t supervisor) {
    for (pid_t p : descendant_pids(supervisor)) {
      const auto st = read_proc_pid_stat(p);
      if (st && st->comm == "Xvfb" && st->ppid == supervisor) ::kill(p, SIGKILL);
    }
  };
  const RunResult r = run_load({{"x11", "1"}, SIGTERM, 6000ms, 6000ms, 0}, kill_x_server);
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.log;
  const std::vector<int> displays = displays_in(r.log);
  ASSERT_EQ(displays.size(), 2u) << r.log;
  EXPECT_EQ(r.report.value("workers_started", 0), 4) << r.report.dump();
  ASSERT_TRUE(r.report.is_object()) << r.log;
  EXPECT_HAS(r.report.at("errors").dump(), "killed by signal 9");
  EXPECT_TRUE(r.survivors.empty()) << "left behind: " << describe(r.survivors);
  expect_display_files_gone(r);
}

TEST(LoadTool, TopRefreshesAreCountedFromItsOutput) {
  const RunResult r = run_load({{"top"}});
  expect_clean_stop(r);
  EXPECT_GT(r.report.value("units", 0ull), 0ull) << r.report.dump();
  EXPECT_EQ(r.report.value("unit_name", ""), "refreshes");
  EXPECT_GT(r.report.value("units_s", 0.0), 0.0);
  EXPECT_EQ(r.report.value("workers_started", 0), 1);
  EXPECT_EQ(r.names_seen.count("top"), 1u);
}

// Processes anywhere on the machine whose command line is exactly `argv`.
std::vector<pid_t> processes_running(const std::vector<std::string>& argv) {
  std::string wanted;
  for (const auto& a : argv) wanted += a + '\0';
  std::vector<pid_t> out;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0) continue;
      if (read_text_or_empty("/proc/" + std::to_string(pid) + "/cmdline") == wanted) {
        out.push_back(pid);
      }
    }
    ::closedir(d);
  }
  return out;
}

// A sleep command line no other process has: this test process's pid in the fraction.
std::vector<std::string> unique_sleep() {
  return {"sleep", "1000." + std::to_string(::getpid())};
}

TEST(LoadTool, OrphansInTheirOwnSessionAreStoppedToo) {
  // setsid -f forks, the child leaves the process group and session, the parent exits at once:
  // the sleeps are orphans that only the subreaper and the /proc scan keep track of.
  const auto sleep_argv = unique_sleep();
  std::vector<std::string> args = {"exec", "--", "setsid", "-f"};
  args.insert(args.end(), sleep_argv.begin(), sleep_argv.end());
  const RunResult r = run_load({args});
  const auto left = processes_running(sleep_argv);
  for (pid_t p : left) ::kill(p, SIGKILL);
  expect_clean_stop(r);
  EXPECT_GE(r.report.value("iterations", 0), 2);
  EXPECT_GE(r.descendants_seen, 2u);
  EXPECT_TRUE(left.empty()) << left.size() << " orphaned sleeps left behind";
}

TEST(LoadTool, WhatIgnoresSigtermIsKilled) {
  // The 1 s grace, then SIGKILL: still no survivor, still within the stop budget.
  const auto sleep_argv = unique_sleep();
  std::vector<std::string> args = {"exec", "--", "setsid", "-f", "env", "--ignore-signal=TERM"};
  args.insert(args.end(), sleep_argv.begin(), sleep_argv.end());
  const RunResult r = run_load({args});
  const auto left = processes_running(sleep_argv);
  for (pid_t p : left) ::kill(p, SIGKILL);
  expect_clean_stop(r);
  EXPECT_GE(r.descendants_seen, 1u);
  EXPECT_TRUE(left.empty()) << left.size() << " sleeps that ignore SIGTERM left behind";
}

TEST(LoadTool, SigintStopsLikeSigterm) {
  const RunResult r = run_load({{"cpu", "1"}, SIGINT, 500ms, 500ms, 0});
  expect_clean_stop(r, "SIGINT");
}

// --- the engine killed with SIGKILL ----------------------------------------------------------

TEST(LoadTool, DiesWithItsParentAndCleansUp) {
  TempDir tmp;
  ASSERT_FALSE(tmp.str().empty());
  const std::string scratch = tmp.str() + "/scratch", report = tmp.str() + "/report.json";
  SpawnSpec spec;
  spec.argv = {XRUNLAB_LOAD_BIN, "--report", report, "--scratch", scratch, "compile", "2"};
  spec.output_path = tmp.str() + "/load.log";

  // This test process adopts xrunlab-load when its parent dies, so it can see its exit status.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    // The stand-in engine: starts xrunlab-load like the real one (own process group,
    // PR_SET_PDEATHSIG SIGTERM), then waits to be killed.
    ::close(fds[0]);
    try {
      Child load = Child::spawn(spec);
      const pid_t pid = load.pid();
      if (::write(fds[1], &pid, sizeof pid) != sizeof pid) ::_exit(1);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(1);
    }
  }
  ::close(fds[1]);
  pid_t load = -1;
  ASSERT_EQ(::read(fds[0], &load, sizeof load), static_cast<ssize_t>(sizeof load));
  ::close(fds[0]);

  // Kill the engine while compilers run (make and at least one cc below it).
  Tracker tracker;
  const auto t0 = Clock::now();
  while (Clock::now() - t0 < 10s) {
    tracker.scan(load);
    if (Clock::now() - t0 >= 1s && tracker.seen.size() >= 3) break;
    std::this_thread::sleep_for(20ms);
  }
  tracker.scan(load);
  EXPECT_GE(tracker.seen.size(), 3u);
  EXPECT_TRUE(path_exists(scratch));
  ASSERT_EQ(::kill(engine, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(engine, &status, 0), engine);
  const auto killed = Clock::now();

  bool load_ended = false;
  while (Clock::now() - killed < 3s) {
    if (::waitpid(load, &status, WNOHANG) == load) {
      load_ended = true;
      break;
    }
    std::this_thread::sleep_for(10ms);
  }
  const auto survivors = tracker.survivors();
  const bool scratch_left = path_exists(scratch);
  if (!load_ended) {
    ::kill(load, SIGKILL);
    ::waitpid(load, &status, 0);
  }
  tracker.kill_survivors();
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);

  ASSERT_TRUE(load_ended) << "xrunlab-load still running 3 s after its parent was killed";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << read_text_or_empty(spec.output_path);
  EXPECT_FALSE(scratch_left);
  EXPECT_TRUE(survivors.empty()) << "left behind: " << describe(survivors);
  const auto j = nlohmann::json::parse(read_text_or_empty(report), nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.value("stopped_by", ""), "SIGTERM");  // PR_SET_PDEATHSIG
  EXPECT_TRUE(j.value("scratch_removed", false));
}

// --- refusals ---------------------------------------------------------------------------------

struct Refusal {
  int status = -1;
  std::string output;
};

Refusal run_refused(const std::vector<std::string>& args, const std::string& scratch) {
  TempDir tmp;
  SpawnSpec spec;
  spec.argv = {XRUNLAB_LOAD_BIN};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.output_path = tmp.str() + "/out.log";
  Child c = Child::spawn(spec);
  EXPECT_TRUE(c.wait_for(5s));
  c.stop(0ms);
  Refusal r;
  if (c.wait_status() && WIFEXITED(*c.wait_status())) r.status = WEXITSTATUS(*c.wait_status());
  r.output = read_text_or_empty(spec.output_path);
  if (!scratch.empty()) {
    EXPECT_FALSE(path_exists(scratch)) << "scratch created for a refused load";
  }
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(LoadTool, MissingProgramIsOneLineAndExit3) {
  TempDir tmp;
  const std::string scratch = tmp.str() + "/scratch";
  const Refusal r = run_refused({"--report", tmp.str() + "/r.json", "--scratch", scratch, "exec",
                                 "--", "/nonexistent/prog", "x"},
                                scratch);
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_HAS(r.output, "/nonexistent/prog");
  EXPECT_FALSE(path_exists(tmp.str() + "/r.json"));
}

TEST(LoadTool, BadUsageIsOneLineAndExit2) {
  TempDir tmp;
  const std::string scratch = tmp.str() + "/scratch", report = tmp.str() + "/r.json";
  const std::vector<std::vector<std::string>> cases = {
      {"bogus"},
      {"cpu"},
      {"cpu", "0"},
      {"cpu", "257"},
      {"io-write", "0"},
      {"io-read", "4097"},
      {"io-copy", "1x"},
      {"compile", "301"},
      {"hackbench", "-1"},
      {"net", "1"},
      {"exec"},
      {"exec", "--"},
      {"x11"},
      {"x11", "0"},
      {"top", "1"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"--report", report, "--scratch", scratch};
    args.insert(args.end(), c.begin(), c.end());
    const Refusal r = run_refused(args, scratch);
    EXPECT_EQ(r.status, 2) << c.front() << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1) << r.output;
  }
  EXPECT_EQ(run_refused({"--scratch", scratch, "cpu", "1"}, scratch).status, 2);  // no --report
  EXPECT_EQ(run_refused({"--report", report, "cpu", "1"}, scratch).status, 2);    // no --scratch
  EXPECT_EQ(
      run_refused({"--report", report, "--scratch", scratch, "--nice", "20", "cpu", "1"}, scratch)
          .status,
      2);
  EXPECT_FALSE(path_exists(report));
}

TEST(LoadTool, RefusesAScratchFolderThatIsNotEmpty) {
  TempDir tmp;
  const std::string scratch = tmp.str() + "/scratch";
  ASSERT_EQ(::mkdir(scratch.c_str(), 0755), 0);
  write_text(scratch + "/precious.txt", "keep me");
  TempDir out;
  SpawnSpec spec;
  spec.argv = {
      XRUNLAB_LOAD_BIN, "--report", tmp.str() + "/r.json", "--scratch", scratch, "cpu", "1"};
  spec.output_path = out.str() + "/out.log";
  Child c = Child::spawn(spec);
  ASSERT_TRUE(c.wait_for(5s));
  ASSERT_TRUE(c.wait_status());
  EXPECT_EQ(WEXITSTATUS(*c.wait_status()), 2) << read_text_or_empty(spec.output_path);
  EXPECT_EQ(read_text_or_empty(scratch + "/precious.txt"), "keep me");
}

TEST(LoadTool, RefusesAReportInsideTheScratchFolder) {
  TempDir tmp;
  const std::string scratch = tmp.str() + "/scratch";
  ASSERT_EQ(::mkdir(scratch.c_str(), 0755), 0);
  TempDir out;
  SpawnSpec spec;
  spec.argv = {XRUNLAB_LOAD_BIN, "--report", scratch + "/r.json", "--scratch", scratch, "cpu", "1"};
  spec.output_path = out.str() + "/out.log";
  Child c = Child::spawn(spec);
  ASSERT_TRUE(c.wait_for(5s));
  ASSERT_TRUE(c.wait_status());
  EXPECT_EQ(WEXITSTATUS(*c.wait_status()), 2) << read_text_or_empty(spec.output_path);
}

// --- the library functions ----------------------------------------------------------------

TEST(LoadToolApi, MissingProgramNamesTheDebianPackage) {
  EXPECT_EQ(missing_program_for("hackbench", {"1"}), "");
  EXPECT_EQ(missing_program_for("compile", {"2"}), "");
  EXPECT_EQ(missing_program_for("cpu", {"2"}), "");
  EXPECT_EQ(missing_program_for("exec", {"--", "sleep", "1"}), "");

  TempDir empty;
  const char* old = std::getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  ASSERT_EQ(::setenv("PATH", empty.str().c_str(), 1), 0);
  const std::string hackbench = missing_program_for("hackbench", {"1"});
  const std::string compile = missing_program_for("compile", {"2"});
  const std::string stress = missing_program_for("exec", {"--", "stress-ng", "--cpu", "2"});
  const std::string cpu = missing_program_for("cpu", {"2"});
  if (old != nullptr) {
    ::setenv("PATH", saved.c_str(), 1);
  } else {
    ::unsetenv("PATH");
  }
  EXPECT_HAS(hackbench, "hackbench");
  EXPECT_HAS(hackbench, "rt-tests");
  EXPECT_HAS(compile, "'make'");
  EXPECT_HAS(compile, "package make");
  EXPECT_HAS(stress, "package stress-ng");
  EXPECT_EQ(cpu, "");
  EXPECT_EQ(hackbench.find('\n'), std::string::npos);
}

TEST(LoadToolApi, ChecksKindsAndBounds) {
  EXPECT_EQ(check_load_args("compile", {"1"}), "");
  EXPECT_EQ(check_load_args("compile", {"300"}), "");
  EXPECT_NE(check_load_args("compile", {"301"}), "");
  EXPECT_NE(check_load_args("compile", {}), "");
  EXPECT_EQ(check_load_args("io-write", {"4096"}), "");
  EXPECT_NE(check_load_args("io-write", {"4097"}), "");
  EXPECT_NE(check_load_args("io-write", {"+8"}), "");
  EXPECT_EQ(check_load_args("cpu", {"256"}), "");
  EXPECT_NE(check_load_args("cpu", {"1", "2"}), "");
  EXPECT_EQ(check_load_args("net", {}), "");
  EXPECT_EQ(check_load_args("exec", {"--", "stress-ng", "--cpu", "2"}), "");
  EXPECT_NE(check_load_args("exec", {"--"}), "");
  EXPECT_HAS(check_load_args("disk", {}), "unknown load kind");
}

TEST(LoadToolApi, RemoveTreeNeverFollowsSymlinks) {
  TempDir tmp;
  const std::string outside = tmp.str() + "/outside", dir = tmp.str() + "/scratch";
  ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
  write_text(outside + "/keep.txt", "keep");
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir + "/a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir + "/a/b").c_str(), 0755), 0);
  write_text(dir + "/a/b/file", "x");
  write_text(dir + "/top", "y");
  ASSERT_EQ(::symlink(outside.c_str(), (dir + "/link-to-dir").c_str()), 0);
  ASSERT_EQ(::symlink((outside + "/keep.txt").c_str(), (dir + "/a/link-to-file").c_str()), 0);

  EXPECT_EQ(remove_tree(dir), "");
  EXPECT_FALSE(path_exists(dir));
  EXPECT_EQ(read_text_or_empty(outside + "/keep.txt"), "keep");
  EXPECT_EQ(remove_tree(dir), "");  // already gone: fine

  // The folder itself given as a symlink is refused, and its target is kept.
  const std::string link = tmp.str() + "/link";
  ASSERT_EQ(::symlink(outside.c_str(), link.c_str()), 0);
  EXPECT_NE(remove_tree(link), "");
  EXPECT_TRUE(path_exists(outside + "/keep.txt"));
}

TEST(LoadToolApi, DescendantsIncludeGrandchildren) {
  // A child that forks a grandchild; both are found, the caller itself is not. This process
  // adopts the grandchild when the child dies, so it can reap it.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      for (;;) ::pause();
    }
    if (::write(fds[1], &grandchild, sizeof grandchild) != sizeof grandchild) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  pid_t grandchild = -1;
  ASSERT_EQ(::read(fds[0], &grandchild, sizeof grandchild),
            static_cast<ssize_t>(sizeof grandchild));
  ::close(fds[0]);
  const auto pids = descendant_pids(::getpid());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::kill(grandchild, SIGKILL);
  ::waitpid(grandchild, nullptr, 0);  // reparented to this process
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_NE(std::find(pids.begin(), pids.end(), child), pids.end());
  EXPECT_NE(std::find(pids.begin(), pids.end(), grandchild), pids.end());
  EXPECT_EQ(std::find(pids.begin(), pids.end(), ::getpid()), pids.end());
}

}  // namespace
}  // namespace xrunlab

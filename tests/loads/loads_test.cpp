// SPDX-License-Identifier: GPL-2.0-or-later
// LoadSet with the real xrunlab-load supervisor and real programs (sleep), in a temporary run
// folder: what it starts, what check_running says, how it stops and what it reads back.
#include "engine/loads/loads.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/loads/process_tree.hpp"
#include "engine/result/run_json.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::path_exists;

using namespace std::chrono_literals;
using testing_support::TempDir;

constexpr auto kPatience = 30s;  // for things that happen, however loaded the machine is

LoadSpec spec(const std::string& text) {
  std::string why;
  const auto s = parse_load(text, 2, &why);
  EXPECT_TRUE(s) << text << ": " << why;
  return s.value_or(LoadSpec{});
}

// A process by pid and start time, so that a reused pid is not mistaken for it.
using ProcessId = std::pair<pid_t, uint64_t>;

std::vector<ProcessId> tree_of(pid_t root) {
  std::vector<ProcessId> out;
  std::vector<pid_t> pids = descendant_pids(root);
  pids.push_back(root);
  for (pid_t p : pids) {
    if (const auto st = read_proc_pid_stat(p)) out.emplace_back(p, st->starttime);
  }
  return out;
}

std::vector<pid_t> still_running(const std::vector<ProcessId>& seen) {
  std::vector<pid_t> out;
  for (const auto& [pid, start] : seen) {
    const auto st = read_proc_pid_stat(pid);
    if (st && st->starttime == start && st->state != 'Z') out.push_back(pid);
  }
  return out;
}

// Waits until the supervisor `pid` has started its program (a child named `comm`).
bool wait_for_child_named(pid_t pid, const std::string& comm) {
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (std::chrono::steady_clock::now() < deadline) {
    for (pid_t d : descendant_pids(pid)) {
      const auto st = read_proc_pid_stat(d);
      if (st && st->comm == comm) return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// check_running() once it is no longer "" (or "" after kPatience).
std::string wait_for_an_end(LoadSet& loads) {
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  std::string why;
  while ((why = loads.check_running()).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  return why;
}

TEST(LoadSet, StartsEachLoadUnderItsSupervisorAndReadsItsReportAfterStop) {
  TempDir run("loads");
  LoadSet loads;
  EXPECT_TRUE(loads.empty());
  loads.start({spec("cmd:\"sleep 30\""), spec("cmd:'sleep 31'@nice=3")}, XRUNLAB_LOAD_BIN,
              run.str());
  EXPECT_FALSE(loads.empty());
  ASSERT_EQ(loads.results().size(), 2u);
  const LoadResult& first = loads.results()[0];
  EXPECT_EQ(first.log_path, run.str() + "/loads/1-cmd.log");
  EXPECT_EQ(first.report_path, run.str() + "/loads/1-cmd.json");
  EXPECT_EQ(first.scratch_dir, run.str() + "/loads/1-cmd.scratch");
  EXPECT_EQ(loads.results()[1].log_path, run.str() + "/loads/2-cmd.log");
  ASSERT_GT(first.pid, 0);
  EXPECT_GT(first.started_us, 0u);
  EXPECT_EQ(first.stopped_us, 0u);

  std::vector<ProcessId> seen;
  for (const LoadResult& r : loads.results()) {
    const auto pid = static_cast<pid_t>(r.pid);
    EXPECT_EQ(::getpgid(pid), pid) << "each supervisor leads a process group of its own";
    ASSERT_TRUE(wait_for_child_named(pid, "sleep")) << "no sleep under " << pid;
    const auto tree = tree_of(pid);
    seen.insert(seen.end(), tree.begin(), tree.end());
    EXPECT_TRUE(path_exists(r.scratch_dir));
  }
  EXPECT_EQ(loads.check_running(), "");
  EXPECT_EQ(read_proc_pid_stat(static_cast<pid_t>(loads.results()[1].pid))->nice, 3);

  loads.stop();
  EXPECT_EQ(still_running(seen), std::vector<pid_t>{}) << "nothing of the loads may be left";
  for (const LoadResult& r : loads.results()) {
    EXPECT_EQ(r.error, "") << r.spec.text;
    EXPECT_GE(r.stopped_us, r.started_us);
    EXPECT_FALSE(path_exists(r.scratch_dir)) << r.scratch_dir;
    EXPECT_TRUE(path_exists(r.log_path));
    ASSERT_TRUE(r.report) << r.spec.text;
    EXPECT_EQ(r.report->kind, "exec");
    EXPECT_EQ(r.report->stopped_by, "SIGTERM");
    EXPECT_TRUE(r.report->scratch_removed);
    EXPECT_TRUE(r.report->errors.empty());
    EXPECT_EQ(r.report->iterations, 1u) << "sleep was started once and never ended by itself";
  }
  ASSERT_TRUE(loads.results()[0].report && loads.results()[1].report);
  EXPECT_EQ(loads.results()[0].report->args, (std::vector<std::string>{"sleep", "30"}));
  EXPECT_EQ(loads.results()[1].report->nice, 3);

  // Twice is safe and changes nothing.
  const std::vector<LoadResult> before = loads.results();
  loads.stop();
  ASSERT_EQ(loads.results().size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(loads.results()[i].stopped_us, before[i].stopped_us);
    EXPECT_EQ(to_json(*loads.results()[i].report), to_json(*before[i].report));
  }
}

TEST(LoadSet, ALoadThatEndsEarlyIsNamedByCheckRunning) {
  TempDir run("loads");
  LoadSet loads;
  loads.start({spec("cmd:\"sleep 30\""), spec("cpu:1")}, XRUNLAB_LOAD_BIN, run.str());
  const LoadResult& cpu = loads.results()[1];
  ASSERT_TRUE(wait_for_child_named(static_cast<pid_t>(loads.results()[0].pid), "sleep"));
  EXPECT_EQ(loads.check_running(), "");
  ASSERT_EQ(::kill(static_cast<pid_t>(cpu.pid), SIGKILL), 0);
  EXPECT_EQ(wait_for_an_end(loads), "load 'cpu:1' ended during the run (killed by signal 9 (" +
                                        std::string(strsignal(SIGKILL)) + ")); see " +
                                        cpu.log_path);
  loads.stop();
  EXPECT_FALSE(cpu.report) << "a killed supervisor wrote no report";
  EXPECT_EQ(cpu.error, "no report (killed by signal 9 (" + std::string(strsignal(SIGKILL)) + "))");
  EXPECT_FALSE(path_exists(cpu.scratch_dir)) << "removed by the set when its supervisor could not";
  EXPECT_TRUE(loads.results()[0].report);
  EXPECT_EQ(loads.results()[0].error, "");
}

TEST(LoadSet, ASupervisorThatRefusesItsArgumentsEndsAtOnce) {
  TempDir run("loads");
  LoadSpec bad = spec("cpu:1");
  bad.tool_args = {"cpu", "0"};  // past parse_load: only xrunlab-load itself can refuse it
  LoadSet loads;
  loads.start({bad}, XRUNLAB_LOAD_BIN, run.str());
  EXPECT_EQ(wait_for_an_end(loads),
            "load 'cpu:1' ended during the run (exited with status 2); see " +
                loads.results()[0].log_path);
  loads.stop();
  EXPECT_EQ(loads.results()[0].error, "no report (exited with status 2)");
}

TEST(LoadSet, TheDestructorStopsWhatStillRuns) {
  TempDir run("loads");
  std::vector<ProcessId> seen;
  {
    LoadSet loads;
    loads.start({spec("cmd:\"sleep 30\"")}, XRUNLAB_LOAD_BIN, run.str());
    const auto pid = static_cast<pid_t>(loads.results()[0].pid);
    ASSERT_TRUE(wait_for_child_named(pid, "sleep"));
    seen = tree_of(pid);
  }
  EXPECT_GE(seen.size(), 2u);
  EXPECT_EQ(still_running(seen), std::vector<pid_t>{});
}

TEST(LoadSet, NothingToStartIsNoError) {
  TempDir run("loads");
  LoadSet loads;
  loads.start({}, XRUNLAB_LOAD_BIN, run.str());
  EXPECT_TRUE(loads.empty());
  EXPECT_EQ(loads.check_running(), "");
  EXPECT_FALSE(path_exists(run.str() + "/loads"));
  loads.stop();
}

TEST(LoadSet, StartFailuresAreTypedErrors) {
  TempDir run("loads");
  LoadSet missing_folder;
  try {
    missing_folder.start({spec("cpu:1")}, XRUNLAB_LOAD_BIN, run.str() + "/no/such/run");
    ADD_FAILURE() << "started in a folder that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_EQ(std::string(e.what()),
              "cannot create '" + run.str() + "/no/such/run/loads': No such file or directory");
  }
  LoadSet missing_tool;
  try {
    missing_tool.start({spec("cpu:1")}, run.str() + "/xrunlab-load", run.str());
    ADD_FAILURE() << "started a tool that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kMissingProgram);
    EXPECT_NE(std::string(e.what()).find(run.str() + "/xrunlab-load"), std::string::npos);
  }
}

TEST(LoadRecord, TimesRelativeToTheWindow) {
  LoadResult r;
  r.spec = spec("cpu:2@nice=5");
  r.pid = 42;
  r.started_us = 1'000'000;
  r.stopped_us = 4'500'000;
  r.log_path = "loads/1-cpu.log";
  r.report.emplace().iterations = 7;
  const LoadRecord l = load_record(r, 2'000'000);
  EXPECT_EQ(l.spec, "cpu:2@nice=5");
  EXPECT_EQ(l.kind, "cpu");
  EXPECT_EQ(l.nice, 5);
  EXPECT_EQ(l.argv, (std::vector<std::string>{"cpu", "2"}));
  EXPECT_EQ(l.pid, 42);
  EXPECT_EQ(l.start_s, -1.0);
  EXPECT_EQ(l.stop_s, 2.5);
  ASSERT_TRUE(l.report);
  EXPECT_EQ(l.report->iterations, 7u);
  EXPECT_EQ(l.error, "");
  EXPECT_EQ(l.log, "loads/1-cpu.log");
  EXPECT_FALSE(l.cpus) << "no affinity read back";
  r.cpus = {1};
  EXPECT_EQ(load_record(r, 2'000'000).cpus, std::vector<int>{1});
  r.stopped_us = 0;  // still running when written
  EXPECT_FALSE(load_record(r, 2'000'000).stop_s);
}

}  // namespace
}  // namespace xrunlab

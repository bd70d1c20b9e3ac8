// SPDX-License-Identifier: GPL-2.0-or-later
// TraceSession on the real tracefs (root only; skipped otherwise), with its journal in a
// temporary folder: what it makes, what it records, and that everything goes at the end and
// after a SIGKILL.
#include "engine/trace/trace_session.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

bool tracefs_mounted() {
  struct statfs s {};
  return ::statfs(kTracefsRoot, &s) == 0 && static_cast<long>(s.f_type) == 0x74726163;
}

class TraceSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "tracefs needs root";
    char tmpl[] = "/tmp/xrunlab-trace-session-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    was_mounted_ = tracefs_mounted();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir_;
  bool was_mounted_ = false;
};

TEST_F(TraceSessionTest, RecordsThisThreadsSwitchesAndLeavesNothingBehind) {
  std::string instance;
  {
    SysJournal journal(SysJournal::journal_path_in(dir_));
    TraceSession trace(journal);
    trace.start();
    instance = trace.instance();
    EXPECT_TRUE(fs::is_directory(instance));
    EXPECT_TRUE(tracefs_mounted());
    for (int i = 0; i < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    trace.stop();
    const TraceStats s = trace.stats();
    EXPECT_GT(s.events, 0u);
    // This thread slept 20 times: it was switched out (prev_pid = its tid) at least that often.
    const pid_t tid = static_cast<pid_t>(::gettid());
    size_t mine = 0;
    for (const TraceEvent& e : trace.events()) {
      if (e.kind == TraceKind::kSwitch && e.pid == tid) ++mine;
    }
    EXPECT_GE(mine, 20u);
    for (size_t i = 1; i < trace.events().size(); ++i) {
      ASSERT_LE(trace.events()[i - 1].t_ns, trace.events()[i].t_ns);
    }
    // The trace clock is CLOCK_MONOTONIC: the events lie within this test's time.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    EXPECT_LE(s.last_ns, int64_t{now.tv_sec} * 1000000000 + now.tv_nsec);
    EXPECT_TRUE(journal.restore_all().empty());
  }
  EXPECT_FALSE(fs::exists(instance));
  EXPECT_EQ(tracefs_mounted(), was_mounted_);
}

TEST_F(TraceSessionTest, InstanceAndMountOfAKilledRunAreRemovedByTheNextStart) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SysJournal journal(SysJournal::journal_path_in(dir_));
    TraceSession trace(journal);
    trace.start();
    ::kill(::getpid(), SIGKILL);
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::string instance =
      std::string(kTracefsRoot) + "/instances/xrunlab-" + std::to_string(child);
  ASSERT_TRUE(fs::is_directory(instance));
  SysJournal next(SysJournal::journal_path_in(dir_));
  const auto lines = next.recover_stale();
  bool removed = false;
  for (const auto& l : lines) {
    if (l.find(instance) != std::string::npos && l.find("removed") != std::string::npos)
      removed = true;
  }
  EXPECT_TRUE(removed) << (lines.empty() ? "no lines" : lines[0]);
  EXPECT_FALSE(fs::exists(instance));
  EXPECT_EQ(tracefs_mounted(), was_mounted_);
}

TEST_F(TraceSessionTest, CheckAvailableAcceptsThisMachineAndChangesNothing) {
  EXPECT_NO_THROW(TraceSession::check_available());
  EXPECT_EQ(tracefs_mounted(), was_mounted_);
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// The real xrunlab-janitor against a fake engine (a child of the test that starts it, tells it
// lines, and exits or lingers), with everything it cleans in a private folder: the attacks of
// issue 43 on what the janitor removes and signals, and an engine that does not end by itself.
// The test process is a child subreaper, so that the janitor (and what the fake engine started)
// comes back to it when the fake engine ends. Asserted on what is left, not on how fast.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/system/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace std::chrono_literals;
using testing_support::TempDir;
namespace fs = std::filesystem;

struct FakeRun {
  std::string tmp, shm, journal, log;
  std::vector<std::string> lines;  // told to the janitor, each with its '\n' added
  std::string knob;                // if set: journalled and changed to "changed" first
  bool spawn_sleeper = false;      // a real child, announced by the real mechanism
  bool linger = false;             // close the janitor's pipe without "done" and stay alive
};

struct FakePids {
  pid_t engine = -1, janitor = -1, sleeper = -1;
};

// Alive and not a zombie.
bool living(pid_t pid) {
  const auto st = read_proc_pid_stat(pid);
  return st && st->state != 'Z' && st->state != 'X';
}

char state_of(pid_t pid) {
  const auto st = read_proc_pid_stat(pid);
  return st ? st->state : '-';
}

// Waits (up to 60 s) until `pid` is no longer alive, reaping it when it is our child.
bool wait_gone(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    ::waitpid(pid, nullptr, WNOHANG);
    if (!living(pid)) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// Forks the fake engine. It starts xrunlab-janitor as the engine does (stdin a pipe, no death
// signal), tells it `r.lines`; then either waits until the janitor has read them all and exits
// (the engine killed), or closes the pipe without "done" and lingers, ignoring SIGTERM.
FakePids start_fake_run(const FakeRun& r) {
  int report[2];
  if (::pipe(report) != 0) return {};
  const pid_t engine = ::fork();
  if (engine == 0) {
    ::close(report[0]);
    try {
      std::optional<SysJournal> journal;
      if (!r.knob.empty()) {
        journal.emplace(r.journal);
        journal->write_setting(r.knob, "changed");
      }
      const int log = ::open(r.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      SpawnOptions o;
      o.argv = {XRUNLAB_JANITOR_BIN,
                "--engine",
                std::to_string(::getpid()),
                "--journal",
                r.journal,
                "--shm-dir",
                r.shm,
                "--tmp-dir",
                r.tmp};
      int in[2];
      if (log < 0 || ::pipe2(in, O_CLOEXEC) != 0) ::_exit(3);
      o.stdin_fd = in[0];
      o.stderr_fd = log;
      o.death_signal = 0;
      FakePids p;
      p.janitor = spawn_process(o);
      ::close(in[0]);
      for (const std::string& line : r.lines) {
        const std::string text = line + "\n";
        if (::write(in[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
          ::_exit(3);
        }
      }
      if (r.spawn_sleeper) {
        set_child_report_fd(in[1]);
        SpawnOptions s;
        s.argv = {"sleep", "1000"};
        s.death_signal = 0;
        p.sleeper = spawn_process(s);
        set_child_report_fd(-1);
      }
      p.engine = ::getpid();
      if (::write(report[1], &p, sizeof p) != static_cast<ssize_t>(sizeof p)) ::_exit(3);
      if (r.linger) {
        ::signal(SIGTERM, SIG_IGN);
        ::close(in[1]);
        for (;;) ::pause();
      }
      // The janitor reads its input only while it watches: gone from the pipe, it was read.
      for (int i = 0; i < 2000; ++i) {
        int left = 0;
        if (::ioctl(in[1], FIONREAD, &left) == 0 && left == 0) break;
        ::usleep(5000);
      }
      ::_exit(0);
    } catch (...) {
      ::_exit(3);
    }
  }
  ::close(report[1]);
  FakePids p;
  if (::read(report[0], &p, sizeof p) != static_cast<ssize_t>(sizeof p)) p = {};
  ::close(report[0]);
  p.engine = engine;
  return p;
}

class JanitorAttack : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make files of another user";
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    fs::create_directories(dir_.file("tmp"));
    fs::create_directories(dir_.file("shm"));
    fs::create_directories(dir_.file("journal"));
    ::chmod(dir_.file("journal").c_str(), 0700);
    run_.tmp = dir_.file("tmp");
    run_.shm = dir_.file("shm");
    run_.journal = SysJournal::journal_path_in(dir_.file("journal"));
    run_.log = dir_.file("janitor.stderr");
  }
  std::string server() const { return "xrunlab-" + std::to_string(::getpid()) + "-7"; }
  std::string janitor_said() const { return read_file(run_.log).value_or(""); }

  TempDir dir_{"janitor-attack"};
  FakeRun run_;
};

// Finding 3: a folder named like the run's PipeWire runtime folder, made by another user first
// (with a file in it), and a symbolic link under such a name, are left; the run's own goes.
TEST_F(JanitorAttack, APipewireFolderOfAnotherUserOrALinkIsLeftAlone) {
  const std::string prefix = run_.tmp + "/xrunlab-pipewire-" + server() + ".";
  const std::string foreign = prefix + "evil", link = prefix + "link", own = prefix + "ours";
  const std::string victim = dir_.file("victim");
  fs::create_directories(foreign);
  dir_.write("tmp/xrunlab-pipewire-" + server() + ".evil/keep", "x");
  ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown((foreign + "/keep").c_str(), 65534, 65534), 0);
  dir_.write("victim/keep", "x");
  fs::create_symlink(victim, link);
  dir_.write("tmp/xrunlab-pipewire-" + server() + ".ours/pipewire-0", "x");
  run_.lines = {"server " + server()};

  const FakePids p = start_fake_run(run_);
  ASSERT_GT(p.janitor, 0);
  ASSERT_TRUE(wait_gone(p.engine));
  ASSERT_TRUE(wait_gone(p.janitor)) << janitor_said();
  EXPECT_TRUE(fs::exists(foreign + "/keep")) << janitor_said();
  EXPECT_TRUE(fs::is_symlink(link)) << janitor_said();
  EXPECT_TRUE(fs::exists(victim + "/keep"));
  EXPECT_FALSE(fs::exists(own)) << janitor_said();
  const std::string said = janitor_said();
  EXPECT_NE(said.find("not removing '" + foreign + "': it belongs to uid 65534"), std::string::npos)
      << said;
  EXPECT_NE(said.find("not removing '" + link + "': it is a symbolic link"), std::string::npos)
      << said;
}

// Finding 5: the janitor signals only a process it can prove is the one announced. A pid that
// names another process (announced bare, or with another start time, as a pid reused after the
// engine reaped its child would be) is never signalled; the real announcement of a real child
// still gets that child killed.
TEST_F(JanitorAttack, AnAnnouncedPidThatIsNotTheRunsChildIsNotSignalled) {
  const pid_t victim = ::fork();
  ASSERT_GE(victim, 0);
  if (victim == 0) {
    ::setpgid(0, 0);  // a group leader, as the engine's children are
    for (;;) ::pause();
  }
  std::optional<ProcPidStat> st;
  for (int i = 0; i < 200 && !(st = read_proc_pid_stat(victim)); ++i) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(st);
  run_.lines = {"child " + std::to_string(victim),
                "child " + std::to_string(victim) + " " + std::to_string(st->starttime + 1)};
  run_.spawn_sleeper = true;

  const FakePids p = start_fake_run(run_);
  ASSERT_GT(p.janitor, 0);
  ASSERT_GT(p.sleeper, 0);
  ASSERT_TRUE(wait_gone(p.engine));
  ASSERT_TRUE(wait_gone(p.janitor)) << janitor_said();
  EXPECT_TRUE(living(victim)) << janitor_said();
  EXPECT_NE(state_of(victim), 'T') << janitor_said();  // not even stopped
  EXPECT_TRUE(wait_gone(p.sleeper)) << janitor_said();
  ::kill(victim, SIGKILL);
  ::waitpid(victim, nullptr, 0);
}

// Finding 7: an engine whose pipe to the janitor is closed (no "done") but which does not end by
// itself is killed, and its journalled setting restored; it does not stay changed.
TEST_F(JanitorAttack, AnEngineThatDoesNotEndIsKilledAndItsSettingRestored) {
  run_.knob = dir_.write("knob", "orig");
  run_.linger = true;

  const FakePids p = start_fake_run(run_);
  ASSERT_GT(p.janitor, 0);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (living(p.janitor) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  const bool engine_lived = living(p.engine);
  ::kill(p.engine, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(p.engine, &status, 0), p.engine);
  EXPECT_TRUE(wait_gone(p.janitor));
  EXPECT_FALSE(engine_lived) << janitor_said();
  EXPECT_EQ(read_file(run_.knob).value_or(""), "orig") << janitor_said();
  EXPECT_FALSE(fs::exists(run_.journal)) << janitor_said();
}

// A line the engine sent that is not in the plan's grammar is ignored, and said when the janitor
// cleans up (it was silently dropped before).
TEST_F(JanitorAttack, ALineOutsideThePlanIsIgnoredAndSaid) {
  run_.lines = {"server " + server(), "frobnicate /etc"};
  const FakePids p = start_fake_run(run_);
  ASSERT_GT(p.janitor, 0);
  ASSERT_TRUE(wait_gone(p.engine));
  ASSERT_TRUE(wait_gone(p.janitor)) << janitor_said();
  const std::string said = janitor_said();
  EXPECT_NE(said.find("ignored a line from the engine: "), std::string::npos) << said;
  EXPECT_NE(said.find("frobnicate"), std::string::npos) << said;
}

}  // namespace
}  // namespace xrunlab

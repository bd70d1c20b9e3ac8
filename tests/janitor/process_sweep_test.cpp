// SPDX-License-Identifier: GPL-2.0-or-later
// The janitor's kill: which processes belong to the run (pure, on hand-made tables), and a real
// tree - a root, its child in another process group, a grandchild that left for pid 1 but stays
// in the root's group - stopped and killed to the last one.
#include "engine/janitor/process_sweep.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "engine/base/proc_pid_stat.hpp"

namespace xrunlab {
namespace {

using namespace std::chrono_literals;

TEST(RunMembers, RootsTheirGroupsDescendantsAndCgroupTasks) {
  const std::vector<ProcRow> t = {
      {1, 0, 1, 'S'},        // init: never
      {100, 1, 100, 'S'},    // the janitor itself: never
      {200, 50, 200, 'S'},   // a root (its parent, the engine, is gone from the table)
      {201, 200, 201, 'S'},  // its child in its own group
      {202, 201, 202, 'S'},  // and grandchild
      {203, 1, 200, 'S'},    // left for init, still in the root's group
      {204, 203, 204, 'S'},  // below that one
      {205, 200, 205, 'Z'},  // a zombie: holds nothing
      {300, 1, 300, 'S'},    // unrelated
      {301, 300, 301, 'S'},  // unrelated
      {400, 1, 400, 'S'},    // in the run's cgroup
      {500, 1, 500, 'S'},    // taken in an earlier round (re-parented since)
      {501, 500, 501, 'S'},
  };
  const std::set<pid_t> got = run_members(t, {200, 999}, {500}, {400}, 100);
  EXPECT_EQ(got, (std::set<pid_t>{200, 201, 202, 203, 204, 400, 500, 501}));
}

TEST(RunMembers, NothingWithoutRoots) {
  const std::vector<ProcRow> t = {{1, 0, 1, 'S'}, {10, 1, 10, 'S'}};
  EXPECT_TRUE(run_members(t, {}, {}, {}, 10).empty());
  EXPECT_TRUE(run_members(t, {1}, {}, {1}, 10).empty());  // pid 1 is never taken
}

bool alive(pid_t pid) {
  const auto st = read_proc_pid_stat(pid);
  return st && st->state != 'Z';
}

char state_of(pid_t pid) {
  const auto st = read_proc_pid_stat(pid);
  return st ? st->state : '-';
}

TEST(ProcessSweep, ARealTreeIsKilledToTheLastProcess) {
  int pids[2];
  ASSERT_EQ(::pipe(pids), 0);
  const pid_t root = ::fork();
  ASSERT_GE(root, 0);
  if (root == 0) {
    ::setpgid(0, 0);
    // The grandchild's pids reach the test through the root, once the root has reaped `mid`:
    // a `mid` not yet reaped is one more process of the tree (the sweep killed 4, once in CI).
    int inner[2];
    if (::pipe(inner) != 0) ::_exit(1);
    // A child in its own group, and a grandchild that double-forks away but keeps the group.
    const pid_t own = ::fork();
    if (own == 0) {
      ::setpgid(0, 0);
      ::pause();
      ::_exit(0);
    }
    const pid_t mid = ::fork();
    if (mid == 0) {
      const pid_t away = ::fork();
      if (away == 0) {
        const pid_t me[2] = {own, ::getpid()};
        ssize_t n = ::write(inner[1], me, sizeof me);
        (void)n;
        ::pause();
        ::_exit(0);
      }
      ::_exit(0);  // `away` is re-parented (to init or the nearest subreaper)
    }
    ::waitpid(mid, nullptr, 0);
    pid_t relay[2] = {0, 0};
    if (::read(inner[0], relay, sizeof relay) != static_cast<ssize_t>(sizeof relay)) ::_exit(1);
    if (::write(pids[1], relay, sizeof relay) != static_cast<ssize_t>(sizeof relay)) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  ::close(pids[1]);
  pid_t found[2] = {0, 0};
  ASSERT_EQ(::read(pids[0], found, sizeof found), static_cast<ssize_t>(sizeof found));
  ::close(pids[0]);
  const pid_t own = found[0], away = found[1];
  ASSERT_TRUE(alive(own));
  ASSERT_TRUE(alive(away));

  const int fd = open_pidfd(root);
  ASSERT_GE(fd, 0);
  const SweepReport rep = sweep_run_processes({{root, fd}}, {}, 2000ms);
  EXPECT_TRUE(rep.left.empty());
  EXPECT_EQ(rep.killed.size(), 3u);  // root, own, away
  EXPECT_FALSE(alive(own));
  EXPECT_FALSE(alive(away));
  int status = 0;
  ASSERT_EQ(::waitpid(root, &status, 0), root);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ::close(fd);
}

TEST(ProcessSweep, AGoneRootKillsNothing) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  const int fd = open_pidfd(child);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const SweepReport rep = sweep_run_processes({{child, fd}}, {}, 100ms);
  EXPECT_TRUE(rep.killed.empty());
  if (fd >= 0) ::close(fd);
}

// Issue 43, pid reuse: a pidfd is opened on a pid only for the process that started at the time
// given (as announced, or as /proc showed it when the process was found); a pid whose start time
// differs - another process that got the pid - is never held, so never signalled.
TEST(OpenPidfdOf, OnlyTheProcessWithThatStartTimeIsHeld) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (;;) ::pause();
  }
  const auto st = read_proc_pid_stat(child);
  ASSERT_TRUE(st);
  int error = -1;
  EXPECT_EQ(open_pidfd_of(child, st->starttime + 1, &error), -1);
  EXPECT_EQ(error, ESRCH);
  EXPECT_EQ(open_pidfd_of(child, 0, &error), -1);  // unknown: never a match
  EXPECT_TRUE(alive(child));                       // untouched: neither killed
  EXPECT_NE(state_of(child), 'T');                 // nor stopped
  const int fd = open_pidfd_of(child, st->starttime, &error);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(error, 0);
  EXPECT_TRUE(pidfd_signal(fd, SIGKILL));
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(pidfd_signal(fd, 0));  // reaped: the pidfd names nobody
  ::close(fd);
  EXPECT_EQ(open_pidfd_of(child, st->starttime, &error), -1);  // reaped, whoever has it now
}

// A sweep given a root whose pidfd was refused (-1) signals nothing, even when the pid lives.
TEST(ProcessSweep, ARootNotHeldIsNotSignalled) {
  const pid_t other = ::fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    ::setpgid(0, 0);
    for (;;) ::pause();
  }
  const SweepReport rep = sweep_run_processes({{other, -1}}, {}, 100ms);
  EXPECT_TRUE(rep.killed.empty());
  EXPECT_TRUE(alive(other));
  EXPECT_NE(state_of(other), 'T');
  ::kill(other, SIGKILL);
  ::waitpid(other, nullptr, 0);
}

// Finding 7: a process that does not end is killed after the grace, and waited for.
TEST(WaitProcessEnd, AProcessThatDoesNotEndIsKilledAfterTheGrace) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_IGN);
    for (;;) ::pause();
  }
  const int fd = open_pidfd(child);
  ASSERT_GE(fd, 0);
  bool killed = false;
  EXPECT_TRUE(wait_process_end(fd, 50ms, 30000ms, &killed));
  EXPECT_TRUE(killed);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ::close(fd);
  EXPECT_TRUE(wait_process_end(-1, 0ms, 0ms, &killed));  // nothing to wait for
  EXPECT_FALSE(killed);
}

}  // namespace
}  // namespace xrunlab

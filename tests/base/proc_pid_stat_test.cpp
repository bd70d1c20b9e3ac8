// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/proc_pid_stat.hpp"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace xrunlab {
namespace {

// A real line (Linux 6.1, 52 fields) with COMM replaced.
std::string line_with_comm(const std::string& comm) {
  return "4242 (" + comm +
         ") S 17 4242 4242 0 -1 4194560 1271 0 3 0 "
         "345 67 0 0 20 -5 3 0 987654 12345678 1024 18446744073709551615 1 1 0 0 0 0 0 4096 "
         "17408 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}

void expect_fields(const ProcPidStat& s) {
  EXPECT_EQ(s.pid, 4242);
  EXPECT_EQ(s.state, 'S');
  EXPECT_EQ(s.ppid, 17);
  EXPECT_EQ(s.pgrp, 4242);
  EXPECT_EQ(s.minflt, 1271u);
  EXPECT_EQ(s.majflt, 3u);
  EXPECT_EQ(s.utime, 345u);
  EXPECT_EQ(s.stime, 67u);
  EXPECT_EQ(s.nice, -5);
  EXPECT_EQ(s.starttime, 987654u);
  EXPECT_EQ(s.processor, 1);
}

TEST(ParseProcPidStat, TheFieldsOfARealLine) {
  const auto s = parse_proc_pid_stat(line_with_comm("jackd"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->comm, "jackd");
  expect_fields(*s);
}

TEST(ParseProcPidStat, CommMayHoldSpacesParenthesesAndNewlines) {
  for (const std::string comm :
       {"a) b (c", "x) S 1 2 3 (", ")", "((", "two words", "new\nline", "", " ", "x\n) R 9 9"}) {
    const auto s = parse_proc_pid_stat(line_with_comm(comm));
    ASSERT_TRUE(s) << "comm '" << comm << "'";
    EXPECT_EQ(s->comm, comm);
    expect_fields(*s);
  }
}

TEST(ParseProcPidStat, AnIrqThreadLineGivesItsRtPriorityAndPolicy) {
  // irq/32-snd_hda_intel on a threadirqs kernel: SCHED_FIFO (1) at priority 50, fields 40-41.
  const auto s = parse_proc_pid_stat(
      "312 (irq/32-snd_hda_intel:card0) S 2 0 0 0 -1 2129984 0 0 0 0 0 52 0 0 -51 0 1 0 "
      "190 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 50 1 0 0 0 0 0 0 0 "
      "0 0 0 0 0\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->processor, 1);
  EXPECT_EQ(s->rt_priority, 50);
  EXPECT_EQ(s->policy, 1);
  const auto plain = parse_proc_pid_stat(line_with_comm("jackd"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->rt_priority, 0);
  EXPECT_EQ(plain->policy, 0);
}

TEST(ParseProcPidStat, AShortLineHasNoProcessor) {
  // Kernels before 2.6.x ended the line before field 39; so does a line cut there.
  const auto s = parse_proc_pid_stat(
      "7 (old) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 555 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->starttime, 555u);
  EXPECT_EQ(s->processor, -1);
  EXPECT_EQ(s->rt_priority, -1);
  EXPECT_EQ(s->policy, -1);
}

TEST(ParseProcPidStat, MalformedLinesAreRefused) {
  EXPECT_FALSE(parse_proc_pid_stat(""));
  EXPECT_FALSE(parse_proc_pid_stat("4242 jackd S 17"));              // no parentheses
  EXPECT_FALSE(parse_proc_pid_stat("4242 (jackd) S 17 4242 4242"));  // ends before field 22
  EXPECT_FALSE(parse_proc_pid_stat("x (jackd) S 17 4242 4242 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5"));
  EXPECT_FALSE(parse_proc_pid_stat("1 (a) SS 17 4242 4242 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5"));
  EXPECT_FALSE(parse_proc_pid_stat("1 (a) S 17 4242 4242 0 -1 0 0 0 0 0 x 2 0 0 20 0 1 0 5"));
  EXPECT_FALSE(parse_proc_pid_stat(") 1 (a"));
}

TEST(ReadProcPidStat, ThisProcess) {
  const auto s = read_proc_pid_stat(::getpid());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pid, ::getpid());
  EXPECT_EQ(s->ppid, ::getppid());
  EXPECT_EQ(s->pgrp, ::getpgrp());
  EXPECT_EQ(s->state, 'R');  // reading its own stat, it runs
  EXPECT_GT(s->starttime, 0u);
  EXPECT_GE(s->processor, 0);
  // The start time names this process: a second read agrees.
  EXPECT_EQ(read_proc_pid_stat(::getpid())->starttime, s->starttime);
}

TEST(ReadProcPidStat, AThreadWithAnAdversarialName) {
  std::optional<ProcPidStat> seen;
  pid_t tid = 0;
  std::thread t([&] {
    ::prctl(PR_SET_NAME, "a) b (c");
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    seen = read_proc_pid_stat(::getpid(), tid);
  });
  t.join();
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->pid, tid);
  EXPECT_EQ(seen->comm, "a) b (c");
  EXPECT_EQ(seen->state, 'R');
  EXPECT_EQ(seen->ppid, ::getppid());  // a thread's parent is its process's parent
}

TEST(ReadProcPidStat, GoneOrInvalid) {
  EXPECT_FALSE(read_proc_pid_stat(0));
  EXPECT_FALSE(read_proc_pid_stat(-1));
  EXPECT_FALSE(read_proc_pid_stat(::getpid(), -1));
  EXPECT_FALSE(read_proc_pid_stat(::getpid(), 1));  // pid 1 is no thread of this process
}

}  // namespace
}  // namespace xrunlab

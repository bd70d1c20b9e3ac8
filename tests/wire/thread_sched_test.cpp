// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/thread_sched.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

// Real kernel, no mocks: these tests change the scheduling of threads they start themselves and
// need root or CAP_SYS_NICE (the VM and CI run as root). Every thread is put back to SCHED_OTHER
// nice 0 and ended by ParkedThread's destructor, also when an assertion fails.

namespace xrunlab {
namespace {

// A std::thread that publishes its tid and blocks on a condition until destroyed.
class ParkedThread {
 public:
  ParkedThread() : thread_([this] { Run(); }) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return tid_ != 0; });
  }
  ~ParkedThread() {
    apply_thread_sched(tid_, ThreadTarget{});  // restore; a no-op if it is SCHED_OTHER 0
    {
      std::lock_guard<std::mutex> lock(mutex_);
      release_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  ParkedThread(const ParkedThread&) = delete;
  ParkedThread& operator=(const ParkedThread&) = delete;

  pid_t tid() const { return tid_; }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mutex_);
    tid_ = gettid();
    cv_.notify_all();
    cv_.wait(lock, [this] { return release_; });
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  pid_t tid_ = 0;
  bool release_ = false;
  std::thread thread_;  // last: starts after the members above exist
};

ThreadTarget Fifo(int prio) {
  ThreadTarget t;
  t.policy = kSchedFifo;
  t.rt_priority = prio;
  return t;
}

ThreadTarget Rr(int prio) {
  ThreadTarget t = Fifo(prio);
  t.policy = kSchedRr;
  return t;
}

ThreadTarget Fair(int policy, int nice) {
  ThreadTarget t;
  t.policy = policy;
  t.nice = nice;
  return t;
}

ThreadTarget Deadline(uint64_t runtime_ns, uint64_t deadline_ns, uint64_t period_ns) {
  ThreadTarget t;
  t.policy = kSchedDeadline;
  t.dl_runtime_ns = runtime_ns;
  t.dl_deadline_ns = deadline_ns;
  t.dl_period_ns = period_ns;
  return t;
}

ThreadSched ReadOrFail(pid_t tid) {
  std::string why;
  const auto s = read_thread_sched(getpid(), tid, &why);
  EXPECT_TRUE(s.has_value()) << why;
  return s.value_or(ThreadSched{});
}

// Applies `t` to a fresh thread, reads it back and checks it; returns what was read.
ThreadSched ApplyAndRead(ParkedThread& th, const ThreadTarget& t) {
  const std::string err = apply_thread_sched(th.tid(), t);
  EXPECT_EQ(err, "");
  const ThreadSched s = ReadOrFail(th.tid());
  EXPECT_EQ(check_thread_sched(s, t), "");
  EXPECT_EQ(s.pid, getpid());
  EXPECT_EQ(s.tid, th.tid());
  return s;
}

TEST(PolicyName, KnownAndUnknown) {
  EXPECT_EQ(policy_name(0), "SCHED_OTHER");
  EXPECT_EQ(policy_name(1), "SCHED_FIFO");
  EXPECT_EQ(policy_name(2), "SCHED_RR");
  EXPECT_EQ(policy_name(3), "SCHED_BATCH");
  EXPECT_EQ(policy_name(4), "SCHED_ISO");
  EXPECT_EQ(policy_name(5), "SCHED_IDLE");
  EXPECT_EQ(policy_name(6), "SCHED_DEADLINE");
  EXPECT_EQ(policy_name(7), "policy 7");
  EXPECT_EQ(policy_name(-1), "policy -1");
}

TEST(CpuList, RangesBothWays) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({3}), "3");
  EXPECT_EQ(format_cpu_list({0, 1, 4}), "0-1,4");
  EXPECT_EQ(format_cpu_list({7, 0, 2, 1, 2, 5, 6}), "0-2,5-7");
  EXPECT_EQ(parse_cpu_list("0-2,5-7\n"), (std::vector<int>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(parse_cpu_list("3"), (std::vector<int>{3}));
  EXPECT_EQ(parse_cpu_list(""), (std::vector<int>{}));
}

// What a person types after --cpus / --load-cpus: taskset -c's syntax, and a one-line reason
// naming the part at fault for everything else.
TEST(CpuList, CheckedParserTakesTasksetSyntaxSortedWithoutRepeats) {
  EXPECT_EQ(parse_cpu_list_checked("0", nullptr), (std::vector<int>{0}));
  EXPECT_EQ(parse_cpu_list_checked("0-1", nullptr), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_cpu_list_checked("0,2-3", nullptr), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(parse_cpu_list_checked("3,1,1-2", nullptr), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(parse_cpu_list_checked(" 5-5\n", nullptr), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list_checked("8191", nullptr), (std::vector<int>{8191}));
  // The formatter gives back what the parser takes.
  EXPECT_EQ(format_cpu_list(*parse_cpu_list_checked("4,0-2,7", nullptr)), "0-2,4,7");
}

TEST(CpuList, CheckedParserRefusesMalformedListsNamingThePart) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "an empty CPU list"},
      {" ", "an empty CPU list"},
      {"a", "'a' is not a CPU number or range"},
      {"0,", "'' is not a CPU number or range"},
      {",1", "'' is not a CPU number or range"},
      {"0-", "'0-' is not a CPU number or range"},
      {"-1", "'-1' is not a CPU number or range"},
      {"1-2-3", "'1-2-3' is not a CPU number or range"},
      {"0x1", "'0x1' is not a CPU number or range"},
      {"+1", "'+1' is not a CPU number or range"},
      {"0, 1", "' 1' is not a CPU number or range"},
      {"3-1", "'3-1' is a range that runs backwards"},
      {"8192", "'8192' is not a CPU number or range"},
      {"99999999999", "'99999999999' is not a CPU number or range"},
  };
  for (const auto& [text, reason] : bad) {
    std::string why;
    EXPECT_FALSE(parse_cpu_list_checked(text, &why).has_value()) << text;
    EXPECT_NE(why.find(reason), std::string::npos) << text << " -> " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  // The kernel's own lists stay lenient: a malformed one is empty rather than an error.
  EXPECT_EQ(parse_cpu_list("garbage"), (std::vector<int>{}));
}

TEST(CpuList, ReadAffinityOfThisProcessIsWhatSchedGetaffinitySays) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> expected;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) expected.push_back(c);
  }
  EXPECT_EQ(read_affinity(0), expected);
  EXPECT_EQ(read_affinity(getpid()), expected);
}

TEST(FormatThreadLine, SchedtoolLikeWithSignedNice) {
  ThreadSched s;
  s.pid = 1234;
  s.tid = 1240;
  s.process = "jackd";
  s.thread = "jackd";
  s.policy = kSchedFifo;
  s.rt_priority = 70;
  s.cpus = {0, 1};
  EXPECT_EQ(format_thread_line(s),
            "pid 1234 tid 1240 jackd/jackd  SCHED_FIFO prio 70 nice 0 cpus 0-1");
  s.policy = kSchedOther;
  s.rt_priority = 0;
  s.nice = -20;
  EXPECT_EQ(format_thread_line(s),
            "pid 1234 tid 1240 jackd/jackd  SCHED_OTHER prio 0 nice -20 cpus 0-1");
  s.policy = kSchedBatch;
  s.nice = 5;
  s.cpus = {0, 1, 4};
  EXPECT_EQ(format_thread_line(s),
            "pid 1234 tid 1240 jackd/jackd  SCHED_BATCH prio 0 nice +5 cpus 0-1,4");
  s.policy = kSchedDeadline;
  s.nice = 0;
  s.dl_runtime_ns = 300'000;
  s.dl_deadline_ns = 1'333'333;
  s.dl_period_ns = 1'333'333;
  s.flags = kSchedFlagReclaim;
  EXPECT_EQ(format_thread_line(s),
            "pid 1234 tid 1240 jackd/jackd  SCHED_DEADLINE runtime/deadline/period "
            "300/1333.333/1333.333 us reclaim nice 0 cpus 0-1,4");
}

TEST(CheckThreadSched, SaysWhatDiffers) {
  ThreadSched s;  // SCHED_OTHER nice 0
  EXPECT_EQ(check_thread_sched(s, ThreadTarget{}), "");
  EXPECT_EQ(check_thread_sched(s, Fifo(65)), "SCHED_OTHER nice 0, expected SCHED_FIFO 65");
  EXPECT_EQ(check_thread_sched(s, Fair(kSchedOther, -20)),
            "SCHED_OTHER nice 0, expected SCHED_OTHER nice -20");
  s.policy = kSchedFifo;
  s.rt_priority = 60;
  EXPECT_EQ(check_thread_sched(s, Fifo(65)), "SCHED_FIFO 60, expected SCHED_FIFO 65");
  EXPECT_EQ(check_thread_sched(s, Rr(60)), "SCHED_FIFO 60, expected SCHED_RR 60");
  s.policy = kSchedDeadline;
  s.rt_priority = 0;
  s.dl_runtime_ns = 100'000;
  s.dl_deadline_ns = s.dl_period_ns = 1'000'000;
  EXPECT_EQ(check_thread_sched(s, Deadline(100'000, 1'000'000, 1'000'000)), "");
  EXPECT_EQ(check_thread_sched(s, Deadline(100'000, 0, 1'000'000)), "");  // deadline = period
  EXPECT_EQ(check_thread_sched(s, Deadline(200'000, 1'000'000, 1'000'000)),
            "SCHED_DEADLINE 100/1000/1000 us, expected SCHED_DEADLINE 200/1000/1000 us");
  ThreadTarget reclaim = Deadline(100'000, 1'000'000, 1'000'000);
  reclaim.dl_flags = kSchedFlagReclaim;
  EXPECT_EQ(check_thread_sched(s, reclaim),
            "SCHED_DEADLINE 100/1000/1000 us, expected SCHED_DEADLINE 100/1000/1000 us reclaim");
  s.policy = kSchedIdle;
  s.nice = 3;  // SCHED_IDLE: only the class counts
  EXPECT_EQ(check_thread_sched(s, Fair(kSchedIdle, 0)), "");
}

TEST(ThreadSchedJson, Keys) {
  ThreadSched s;
  s.pid = 1;
  s.tid = 2;
  s.process = "p";
  s.thread = "t";
  s.policy = kSchedRr;
  s.rt_priority = 11;
  s.nice = -3;
  s.cpus = {0, 2};
  s.last_cpu = 2;
  s.minor_faults = 17;
  s.major_faults = 1;
  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j.at("pid"), 1);
  EXPECT_EQ(j.at("tid"), 2);
  EXPECT_EQ(j.at("process"), "p");
  EXPECT_EQ(j.at("thread"), "t");
  EXPECT_EQ(j.at("policy"), "SCHED_RR");
  EXPECT_EQ(j.at("policy_number"), 2);
  EXPECT_EQ(j.at("rt_priority"), 11);
  EXPECT_EQ(j.at("nice"), -3);
  EXPECT_EQ(j.at("dl_runtime_ns"), 0);
  EXPECT_EQ(j.at("dl_deadline_ns"), 0);
  EXPECT_EQ(j.at("dl_period_ns"), 0);
  EXPECT_EQ(j.at("flags"), 0);
  EXPECT_EQ(j.at("cpus"), nlohmann::json::array({0, 2}));
  EXPECT_EQ(j.at("last_cpu"), 2);
  EXPECT_EQ(j.at("minor_faults"), 17);
  EXPECT_EQ(j.at("major_faults"), 1);
  EXPECT_EQ(j.size(), 16u);
}

TEST(ReadThreadSched, FreshThreadIsOtherWithNamesAffinityAndLastCpu) {
  ParkedThread th;
  const ThreadSched s = ReadOrFail(th.tid());
  EXPECT_EQ(s.policy, kSchedOther);
  EXPECT_EQ(s.rt_priority, 0);
  EXPECT_EQ(s.dl_runtime_ns, 0u);  // fair threads' slice is not reported as a runtime
  EXPECT_FALSE(s.process.empty());
  EXPECT_EQ(s.thread, s.process);  // a std::thread inherits the comm
  EXPECT_FALSE(s.cpus.empty());
  EXPECT_GE(s.last_cpu, 0);
  EXPECT_EQ(format_cpu_list(s.cpus), format_cpu_list(ReadOrFail(getpid()).cpus));
}

TEST(ReadThreadSched, NonexistentThreadFailsWithReason) {
  std::string why;
  EXPECT_FALSE(read_thread_sched(getpid(), 1, &why).has_value());  // init: not our thread
  EXPECT_NE(why.find("no thread 1 in process"), std::string::npos) << why;
  std::ifstream pid_max_file("/proc/sys/kernel/pid_max");
  int pid_max = 0;
  pid_max_file >> pid_max;
  ASSERT_GT(pid_max, 0);  // pid_max itself is never allocated
  why.clear();
  EXPECT_FALSE(read_thread_sched(getpid(), pid_max, &why).has_value());
  EXPECT_NE(why.find(fmt::format("no thread {}", pid_max)), std::string::npos) << why;
  EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(read_thread_sched(0, 0, &why).has_value());
  EXPECT_FALSE(why.empty());
}

TEST(ApplyThreadSched, Fifo10) {
  ParkedThread th;
  const ThreadSched s = ApplyAndRead(th, Fifo(10));
  EXPECT_EQ(s.policy, kSchedFifo);
  EXPECT_EQ(s.rt_priority, 10);
  EXPECT_EQ(format_thread_line(s),
            fmt::format("pid {} tid {} {}/{}  SCHED_FIFO prio 10 nice 0 cpus {}", getpid(),
                        th.tid(), s.process, s.thread, format_cpu_list(s.cpus)));
  EXPECT_NE(check_thread_sched(s, Fifo(11)), "");
}

TEST(ApplyThreadSched, Rr11) {
  ParkedThread th;
  const ThreadSched s = ApplyAndRead(th, Rr(11));
  EXPECT_EQ(s.policy, kSchedRr);
  EXPECT_EQ(s.rt_priority, 11);
}

TEST(ApplyThreadSched, OtherNiceMinus20AndPlus19) {
  ParkedThread th;
  ThreadSched s = ApplyAndRead(th, Fair(kSchedOther, -20));
  EXPECT_EQ(s.policy, kSchedOther);
  EXPECT_EQ(s.nice, -20);
  EXPECT_EQ(format_thread_line(s),
            fmt::format("pid {} tid {} {}/{}  SCHED_OTHER prio 0 nice -20 cpus {}", getpid(),
                        th.tid(), s.process, s.thread, format_cpu_list(s.cpus)));
  s = ApplyAndRead(th, Fair(kSchedOther, 19));
  EXPECT_EQ(s.nice, 19);
  EXPECT_NE(format_thread_line(s).find("SCHED_OTHER prio 0 nice +19 cpus"), std::string::npos);
  // Only this thread changed: nice is per thread with sched_setattr.
  EXPECT_EQ(ReadOrFail(getpid()).nice, 0);
}

TEST(ApplyThreadSched, BatchNice5) {
  ParkedThread th;
  const ThreadSched s = ApplyAndRead(th, Fair(kSchedBatch, 5));
  EXPECT_EQ(s.policy, kSchedBatch);
  EXPECT_EQ(s.nice, 5);
  EXPECT_NE(format_thread_line(s).find("SCHED_BATCH prio 0 nice +5 cpus"), std::string::npos);
}

TEST(ApplyThreadSched, Idle) {
  ParkedThread th;
  const ThreadSched s = ApplyAndRead(th, Fair(kSchedIdle, 0));
  EXPECT_EQ(s.policy, kSchedIdle);
}

TEST(ApplyThreadSched, FifoKeepsNiceAndGoesBack) {
  ParkedThread th;
  ApplyAndRead(th, Fair(kSchedOther, 7));
  ThreadSched s = ApplyAndRead(th, Fifo(12));
  EXPECT_EQ(s.nice, 7);  // an RT thread keeps its nice value (getpriority)
  s = ApplyAndRead(th, ThreadTarget{});
  EXPECT_EQ(s.policy, kSchedOther);
  EXPECT_EQ(s.nice, 0);
}

TEST(ApplyThreadSched, Deadline100usEvery1ms) {
  ParkedThread th;
  const ThreadTarget t = Deadline(100'000, 1'000'000, 1'000'000);
  const std::string err = apply_thread_sched(th.tid(), t);
  if (err.find("(EBUSY)") != std::string::npos || err.find("(EPERM)") != std::string::npos) {
    GTEST_SKIP() << "the kernel refused SCHED_DEADLINE: " << err;
  }
  ASSERT_EQ(err, "");
  const ThreadSched s = ReadOrFail(th.tid());
  EXPECT_EQ(check_thread_sched(s, t), "");
  EXPECT_EQ(s.policy, kSchedDeadline);
  EXPECT_EQ(s.dl_runtime_ns, 100'000u);
  EXPECT_EQ(s.dl_deadline_ns, 1'000'000u);
  EXPECT_EQ(s.dl_period_ns, 1'000'000u);
  EXPECT_EQ(format_thread_line(s),
            fmt::format("pid {} tid {} {}/{}  SCHED_DEADLINE runtime/deadline/period "
                        "100/1000/1000 us nice 0 cpus {}",
                        getpid(), th.tid(), s.process, s.thread, format_cpu_list(s.cpus)));
  // Back to SCHED_OTHER releases the bandwidth.
  EXPECT_EQ(apply_thread_sched(th.tid(), ThreadTarget{}), "");
  EXPECT_EQ(ReadOrFail(th.tid()).policy, kSchedOther);
}

TEST(ApplyThreadSched, DeadlineWithNarrowAffinityIsExplained) {
  ParkedThread th;
  const ThreadSched before = ReadOrFail(th.tid());
  if (before.cpus.size() < 2) GTEST_SKIP() << "needs a thread allowed on 2 CPUs or more";
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(before.cpus.front(), &one);
  ASSERT_EQ(sched_setaffinity(th.tid(), sizeof one, &one), 0);
  const std::string err = apply_thread_sched(th.tid(), Deadline(100'000, 1'000'000, 1'000'000));
  if (err.empty()) {  // e.g. sched_rt_runtime_us = -1 disables deadline admission control
    apply_thread_sched(th.tid(), ThreadTarget{});
    GTEST_SKIP() << "the kernel admitted SCHED_DEADLINE on a single CPU";
  }
  EXPECT_NE(err.find(fmt::format("tid {}", th.tid())), std::string::npos) << err;
  EXPECT_NE(err.find("SCHED_DEADLINE 100/1000/1000 us"), std::string::npos) << err;
  EXPECT_NE(err.find("(EPERM)"), std::string::npos) << err;
  EXPECT_NE(err.find("affinity"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

TEST(ApplyThreadSched, Policy4IsIsoOrExplained) {
  ParkedThread th;
  ThreadTarget iso;
  iso.policy = kSchedIso;
  const std::string err = apply_thread_sched(th.tid(), iso);
  if (err.empty()) {  // a -ck / BFS / MuQSS kernel
    EXPECT_EQ(ReadOrFail(th.tid()).policy, kSchedIso);
    return;
  }
  EXPECT_NE(err.find("SCHED_ISO"), std::string::npos) << err;
  EXPECT_NE(err.find("this kernel has no SCHED_ISO"), std::string::npos) << err;
  EXPECT_NE(err.find("(EINVAL)"), std::string::npos) << err;
  EXPECT_NE(err.find("iso-emu"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_EQ(ReadOrFail(th.tid()).policy, kSchedOther);  // unchanged
}

TEST(ApplyThreadSched, RefusesOutOfRangeValuesAndMissingThreads) {
  ParkedThread th;
  std::string err = apply_thread_sched(th.tid(), Fifo(0));
  EXPECT_NE(err.find("1..99"), std::string::npos) << err;
  err = apply_thread_sched(th.tid(), Fifo(100));
  EXPECT_NE(err.find("1..99"), std::string::npos) << err;
  err = apply_thread_sched(th.tid(), Fair(kSchedOther, -21));
  EXPECT_NE(err.find("-20..19"), std::string::npos) << err;
  err = apply_thread_sched(th.tid(), Deadline(2'000'000, 1'000'000, 1'000'000));
  EXPECT_NE(err.find("(EINVAL)"), std::string::npos) << err;
  EXPECT_NE(err.find("runtime <= deadline <= period"), std::string::npos) << err;
  EXPECT_EQ(ReadOrFail(th.tid()).policy, kSchedOther);

  std::ifstream pid_max_file("/proc/sys/kernel/pid_max");
  int pid_max = 0;
  pid_max_file >> pid_max;
  err = apply_thread_sched(pid_max, Fifo(10));
  EXPECT_NE(err.find("(ESRCH)"), std::string::npos) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  EXPECT_NE(apply_thread_sched(0, Fifo(10)), "");  // never "the calling thread"
}

TEST(ListThreads, ContainsTheTestThreads) {
  ParkedThread a, b;
  const std::vector<pid_t> tids = list_threads(getpid());
  EXPECT_TRUE(std::is_sorted(tids.begin(), tids.end()));
  for (const pid_t tid : {getpid(), a.tid(), b.tid()}) {
    EXPECT_NE(std::find(tids.begin(), tids.end(), tid), tids.end()) << tid;
  }
  EXPECT_TRUE(list_threads(-1).empty());
}

TEST(FindRtThread, FindsTheOneAtThePriorityAndRefusesAmbiguity) {
  ParkedThread fifo, rr, other;
  ASSERT_EQ(apply_thread_sched(fifo.tid(), Fifo(21)), "");
  ASSERT_EQ(apply_thread_sched(rr.tid(), Rr(22)), "");
  std::string why;
  EXPECT_EQ(find_rt_thread(getpid(), 21, &why), std::optional<pid_t>(fifo.tid())) << why;
  EXPECT_EQ(find_rt_thread(getpid(), 22, &why), std::optional<pid_t>(rr.tid())) << why;

  why.clear();
  EXPECT_FALSE(find_rt_thread(getpid(), 23, &why).has_value());
  EXPECT_NE(why.find("no thread of process"), std::string::npos) << why;
  EXPECT_NE(why.find(fmt::format("tid {}", fifo.tid())), std::string::npos) << why;  // listed

  ASSERT_EQ(apply_thread_sched(other.tid(), Fifo(21)), "");
  why.clear();
  EXPECT_FALSE(find_rt_thread(getpid(), 21, &why).has_value());
  EXPECT_NE(why.find("2 threads"), std::string::npos) << why;
  EXPECT_NE(why.find(fmt::format("tid {}", fifo.tid())), std::string::npos) << why;
  EXPECT_NE(why.find(fmt::format("tid {}", other.tid())), std::string::npos) << why;

  why.clear();
  EXPECT_FALSE(find_rt_thread(-1, 21, &why).has_value());
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace xrunlab

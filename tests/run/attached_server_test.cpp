// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/attached_server.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "tests/support/files.hpp"
#include "tests/support/jack_registry_image.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::registry_image;
using testing_support::TempDir;
using testing_support::write_text;

TEST(AttachedServer, NoRegistryIsUnknownNeverAssumed) {
  TempDir dir("attached");
  const AttachedServer s = read_attached_server("pw", dir.file("jack-shm-registry"));
  EXPECT_FALSE(s.pid.has_value());
  EXPECT_EQ(attached_scheduling_label("SCHED_FIFO 65", s),
            "SCHED_FIFO 65 (clients); attached server 'pw': threads unknown (no JACK2 server "
            "registry (" +
                dir.file("jack-shm-registry") + "), as under PipeWire's JACK)");
}

TEST(AttachedServer, ANameNotInTheRegistryIsUnknown) {
  TempDir dir("attached");
  const std::string path = dir.file("jack-shm-registry");
  write_text(path, registry_image({{::getpid(), "jack-0:other:"}}));
  const AttachedServer s = read_attached_server("mine", path);
  EXPECT_FALSE(s.pid.has_value());
  EXPECT_EQ(describe_attached_server(s),
            "attached server 'mine': threads unknown (not in JACK2's server registry "
            "(PipeWire's JACK keeps none))");
  write_text(path, "not a registry");
  EXPECT_NE(describe_attached_server(read_attached_server("mine", path))
                .find("threads unknown (the server registry is unreadable: "),
            std::string::npos);
}

// This test process stands in for the server: its threads are read from /proc as they are.
TEST(AttachedServer, ItsThreadsAsTheKernelShowsThem) {
  TempDir dir("attached");
  const std::string path = dir.file("jack-shm-registry");
  write_text(path, registry_image({{::getpid(), "jack-0:srv:"}}));
  AttachedServer s = read_attached_server("srv", path);
  ASSERT_EQ(s.pid, ::getpid());
  EXPECT_EQ(s.why, "");
  EXPECT_TRUE(s.rt_threads.empty());  // a test process has no realtime thread of its own
  EXPECT_EQ(describe_attached_server(s),
            "attached server 'srv' (pid " + std::to_string(::getpid()) + "): no realtime thread");

  // One thread at SCHED_FIFO 11, where permitted (root or an rtprio limit).
  std::atomic<bool> set{false}, done{false}, permitted{true};
  std::thread rt([&] {
    sched_param p{};
    p.sched_priority = 11;
    permitted = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
    set = true;
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  while (!set) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s = read_attached_server("srv", path);
  done = true;
  rt.join();
  if (!permitted) GTEST_SKIP() << "no permission for SCHED_FIFO here";
  ASSERT_EQ(s.rt_threads.size(), 1u);
  EXPECT_EQ(describe_attached_server(s),
            "attached server 'srv' (pid " + std::to_string(::getpid()) + "): SCHED_FIFO 11");
}

TEST(AttachedServer, SeveralRealtimeThreadsShowTheHighest) {
  AttachedServer s;
  s.name = "jackd-user";
  s.pid = 42;
  ThreadSched a, b;
  a.policy = 1;  // SCHED_FIFO
  a.rt_priority = 70;
  b.policy = 1;
  b.rt_priority = 10;
  s.rt_threads = {a, b};
  EXPECT_EQ(describe_attached_server(s),
            "attached server 'jackd-user' (pid 42): SCHED_FIFO 70 (2 realtime threads, highest "
            "shown)");
  s.why = "its process 42 is not readable in /proc";
  EXPECT_EQ(describe_attached_server(s),
            "attached server 'jackd-user' (pid 42): threads unknown (its process 42 is not "
            "readable in /proc)");
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/pipewire.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "engine/backend/backend.hpp"
#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

TEST(Pipewire, BackendSpecTakesNoArgument) {
  EXPECT_EQ(parse_backend("pipewire").kind, BackendSpec::Kind::kPipewire);
  try {
    parse_backend("pipewire:x");
    ADD_FAILURE() << "pipewire:x was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("--backend pipewire:x"), std::string::npos);
  }
  EXPECT_EQ(make_backend(parse_backend("pipewire"))->name(), "pipewire");
  EXPECT_EQ(make_backend(parse_backend("pipewire"))->server_program(), "pipewire");
}

TEST(Pipewire, ConfigFixesTheClockAndHasNoDbusAndOneDummyDriver) {
  PipewireConfig c;
  c.core_name = "xrunlab-42-0";
  c.rate = 44100;
  c.quantum = 128;
  c.rt_priority = 70;
  const std::string t = pipewire_config_text(c);
  for (const char* want :
       {"core.name = \"xrunlab-42-0\"", "support.dbus = false", "default.clock.rate = 44100",
        "default.clock.allowed-rates = [ 44100 ]", "default.clock.quantum = 128",
        "default.clock.min-quantum = 128", "default.clock.max-quantum = 128",
        "libpipewire-module-protocol-native", "libpipewire-module-client-node",
        "libpipewire-module-adapter", "libpipewire-module-metadata",
        "libpipewire-module-spa-node-factory", "libpipewire-module-link-factory",
        "factory.name = support.node.driver", "node.name = Dummy-Driver", "priority.driver",
        "libpipewire-module-rt", "rt.prio = 70"}) {
    EXPECT_NE(t.find(want), std::string::npos) << want << "\n" << t;
  }
  size_t drivers = 0;
  for (size_t at = t.find("Dummy-Driver"); at != std::string::npos;
       at = t.find("Dummy-Driver", at + 1)) {
    ++drivers;
  }
  EXPECT_EQ(drivers, 1u);
  // No realtime: the rt module is left out, nothing else changes.
  c.rt_priority = 0;
  EXPECT_EQ(pipewire_config_text(c).find("module-rt"), std::string::npos);
  EXPECT_NE(pipewire_config_text(c).find("Dummy-Driver"), std::string::npos);
}

TEST(Pipewire, FindsTheMappedLibjackAndTellsPipewiresFromJack2s) {
  const std::string maps =
      "7f00-7f01 r--p 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libjackserver.so.0.1.0\n"
      "7f01-7f02 r-xp 00000000 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f02-7f03 r--p 00000000 08:01 3 /usr/lib/x86_64-linux-gnu/libjack.so.0.1.0\n"
      "7f03-7f04 rw-p 00000000 00:00 0 \n";
  EXPECT_EQ(mapped_library(maps, "libjack.so"), "/usr/lib/x86_64-linux-gnu/libjack.so.0.1.0");
  EXPECT_EQ(mapped_library(maps, "libsndfile.so"), std::nullopt);
  EXPECT_FALSE(is_pipewire_libjack("/usr/lib/x86_64-linux-gnu/libjack.so.0.1.0"));
  EXPECT_TRUE(
      is_pipewire_libjack("/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack/libjack.so.0.365.0"));
  EXPECT_EQ(pipewire_jack_dir_beside("/usr/lib/x86_64-linux-gnu/libjack.so.0.1.0"),
            "/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack");
}

TEST(Pipewire, VersionComesFromTheLinkedLibrary) {
  EXPECT_EQ(parse_pipewire_version("pipewire\nCompiled with libpipewire 0.3.64\nLinked with "
                                   "libpipewire 0.3.65\n"),
            "0.3.65");
  EXPECT_EQ(parse_pipewire_version("pipewire\nCompiled with libpipewire 0.3.65\n"), "0.3.65");
  EXPECT_EQ(parse_pipewire_version("usage: pipewire\n"), std::nullopt);
}

TEST(Pipewire, ThreadsAreReadNotAssumed) {
  // This test process: its main thread is left out, a second thread is read as it is.
  const PipewireThreads none = read_pipewire_threads(::getpid());
  EXPECT_TRUE(none.data_loop.empty());
  EXPECT_NE(describe_pipewire_threads(none).find("PipeWire data loop: unknown ("),
            std::string::npos);
  const PipewireThreads gone = read_pipewire_threads(999999999);
  EXPECT_NE(gone.why.find("not readable"), std::string::npos) << gone.why;

  PipewireThreads t;
  t.pid = 10;
  ThreadSched fifo;
  fifo.pid = 10;
  fifo.tid = 11;
  fifo.thread = "data-loop.0";
  fifo.policy = kSchedFifo;
  fifo.rt_priority = 70;
  t.data_loop.push_back(fifo);
  EXPECT_EQ(describe_pipewire_threads(t),
            "PipeWire data loop (pid 10, tid 11): SCHED_FIFO 70 (read from the kernel)");
  const std::vector<PipewireThreadRecord> records = pipewire_thread_records(t);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].pid, 10);
  EXPECT_EQ(records[0].tid, 11);
  EXPECT_EQ(records[0].policy, "SCHED_FIFO");
  EXPECT_EQ(records[0].priority, 70);
  EXPECT_EQ(records[0].name, "data-loop.0");
  t.data_loop[0].policy = 0;
  t.data_loop[0].rt_priority = 0;
  t.data_loop[0].nice = -11;
  EXPECT_EQ(describe_pipewire_threads(t),
            "PipeWire data loop (pid 10, tid 11): SCHED_OTHER nice -11 (read from the kernel)");
}

TEST(Pipewire, StaleRuntimeFoldersOfDeadRunsAreRemovedAndLiveOnesKept) {
  TempDir tmp("pwstale");
  const std::string dead = tmp.str() + "/xrunlab-pipewire-xrunlab-999999999-0.abc123";
  const std::string live =
      tmp.str() + "/xrunlab-pipewire-xrunlab-" + std::to_string(::getpid()) + "-0.abc123";
  const std::string other = tmp.str() + "/something-else";
  for (const std::string& d : {dead, live, other}) std::filesystem::create_directories(d);
  EXPECT_EQ(remove_stale_pipewire_dirs(tmp.str()), std::vector<std::string>{dead});
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(other));
}

// Issue 43: the folders' names are predictable, so another user can make one first. A folder of
// another user, or a symbolic link, under such a name is left as it is (with what is in it).
TEST(Pipewire, AStaleFolderNamedLikeOursButNotOursIsLeftAlone) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a folder of another user";
  TempDir tmp("pwforeign");
  const std::string foreign = tmp.str() + "/xrunlab-pipewire-xrunlab-999999999-0.evil";
  const std::string link = tmp.str() + "/xrunlab-pipewire-xrunlab-999999998-0.link";
  const std::string victim = tmp.str() + "/victim";
  std::filesystem::create_directories(foreign);
  tmp.write("xrunlab-pipewire-xrunlab-999999999-0.evil/keep", "x");
  ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown((foreign + "/keep").c_str(), 65534, 65534), 0);
  tmp.write("victim/keep", "x");
  tmp.link("xrunlab-pipewire-xrunlab-999999998-0.link", victim);
  EXPECT_TRUE(remove_stale_pipewire_dirs(tmp.str()).empty());
  EXPECT_TRUE(std::filesystem::exists(foreign + "/keep"));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_TRUE(std::filesystem::exists(victim + "/keep"));
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/jack_registry.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>

#include "tests/support/jack_registry_image.hpp"

namespace xrunlab {
namespace {

using testing_support::registry_image;

namespace fs = std::filesystem;

TEST(JackRegistry, ParsesTheServerTable) {
  const auto entries = parse_jack_registry(
      registry_image({{123, "jack-0:xrunlab-9-0:"}, {456, "jack-0:default:"}}), nullptr);
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 8u);
  EXPECT_EQ((*entries)[0].pid, 123);
  EXPECT_EQ((*entries)[0].name, "jack-0:xrunlab-9-0:");
  EXPECT_EQ((*entries)[1].name, "jack-0:default:");
  EXPECT_EQ((*entries)[2].pid, 0);
}

TEST(JackRegistry, RefusesAnUnknownLayout) {
  std::string why;
  std::string img = registry_image({});
  img[0] = 'X';
  EXPECT_FALSE(parse_jack_registry(img, &why));
  EXPECT_NE(why.find("magic"), std::string::npos);
  EXPECT_FALSE(parse_jack_registry("short", &why));
  img = registry_image({});
  const uint32_t other_len = 1234;
  std::memcpy(img.data() + 16, &other_len, 4);
  EXPECT_FALSE(parse_jack_registry(img, &why));
}

TEST(JackRegistry, FindsTheServerOfLeftoverFiles) {
  EXPECT_EQ(xrunlab_server_of_file("jack_sem.0_xrunlab-11058-0_xrunlab-11058-0-c01", 0),
            "xrunlab-11058-0");
  EXPECT_EQ(xrunlab_server_of_file("jack_sem.0_xrunlab-11058-0_system", 0), "xrunlab-11058-0");
  EXPECT_EQ(xrunlab_server_of_file("jack_xrunlab-18777-0_0_0", 0), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-vcard-xrunlab-18777-0", 0), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-vcard-xrunlab-18777-0x", 0), std::nullopt);
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-vcard-other", 0), std::nullopt);
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-cycles-xrunlab-18777-0", 0), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-cycles-other", 0), std::nullopt);
  EXPECT_EQ(xrunlab_server_of_file("jack_xrunlab-18777-12_1000_3", 1000), "xrunlab-18777-12");
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-18777-0_0_0", 1000));  // another user's
  EXPECT_FALSE(xrunlab_server_of_file("jack_sem.0_default_system", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_default_0_0", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack-shm-registry", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-1-0_0_0x", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_sem.0_xrunlab-1-0", 0));
  // A client's notification socket: jack_<client name>_<uid>_0, the client named after the run.
  EXPECT_EQ(xrunlab_server_of_file("jack_xrunlab-18777-0-c01_1000_0", 1000), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("jack_xrunlab-18777-0-monitor_0_0", 0), "xrunlab-18777-0");
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-18777-0-c01_1000_0", 0));  // another user's
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-18777-0-_0_0", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-18777-0-c 1_0_0", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-c01_0_0", 0));  // no run in the name
}

TEST(JackRegistry, OnlyXrunlabServersOfThisUserQualify) {
  EXPECT_TRUE(is_xrunlab_entry("jack-1000:xrunlab-42-0:", 1000));
  EXPECT_FALSE(is_xrunlab_entry("jack-1000:xrunlab-42-0:", 0));
  EXPECT_FALSE(is_xrunlab_entry("jack-1000:default:", 1000));
  EXPECT_FALSE(is_xrunlab_entry("jack-1000:myxrunlab-1-0:", 1000));
}

// In a scratch folder standing in for /dev/shm (no JACK semaphore lock is needed to read a
// registry that is not there): dead entries are cleared, live and foreign ones kept, and only
// semaphore files of dead xrunlab runs are removed.
TEST(JackRegistry, ReclaimsDeadXrunlabEntriesAndFilesOnly) {
  const fs::path dir = fs::temp_directory_path() / ("xrunlab-registry-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(getuid());
  const pid_t dead = 999999;  // above the default pid_max: never a live process
  const pid_t self = getpid();
  {
    std::ofstream(dir / "jack-shm-registry", std::ios::binary)
        << registry_image({{dead, "jack-" + uid + ":xrunlab-" + std::to_string(dead) + "-0:"},
                           {self, "jack-" + uid + ":xrunlab-7-0:"},
                           {dead, "jack-" + uid + ":default:"},
                           // jackd gone, its run still alive and stopping it: the run's own
                           {dead, "jack-" + uid + ":xrunlab-" + std::to_string(self) + "-0:"},
                           // the same, but it is the finished server of the run asking
                           {dead, "jack-" + uid + ":xrunlab-" + std::to_string(self) + "-1:"}});
  }
  const std::string dead_sem = "jack_sem." + uid + "_xrunlab-" + std::to_string(dead) + "-0_c01";
  const std::string live_sem = "jack_sem." + uid + "_xrunlab-" + std::to_string(self) + "-0_c01";
  const std::string finished = "jack_sem." + uid + "_xrunlab-" + std::to_string(self) + "-1_c01";
  const std::string foreign = "jack_sem." + uid + "_default_system";
  const std::string dead_socket = "jack_xrunlab-" + std::to_string(dead) + "-0_" + uid + "_0";
  // Notification sockets of a killed run's client and of a live run's monitor.
  const std::string dead_client = "jack_xrunlab-" + std::to_string(dead) + "-0-c01_" + uid + "_0";
  const std::string live_client =
      "jack_xrunlab-" + std::to_string(self) + "-0-monitor_" + uid + "_0";
  for (const auto& f :
       {dead_sem, live_sem, finished, foreign, dead_socket, dead_client, live_client}) {
    std::ofstream(dir / f) << "";
  }

  const ReclaimResult r =
      reclaim_stale_xrunlab_servers(dir.string(), "xrunlab-" + std::to_string(self) + "-1");
  EXPECT_EQ(r.reclaimed, (std::vector<std::string>{"xrunlab-" + std::to_string(dead) + "-0",
                                                   "xrunlab-" + std::to_string(self) + "-1"}));
  EXPECT_FALSE(fs::exists(dir / dead_sem));
  EXPECT_FALSE(fs::exists(dir / dead_socket));
  EXPECT_FALSE(fs::exists(dir / dead_client));
  EXPECT_TRUE(fs::exists(dir / live_client));
  EXPECT_FALSE(fs::exists(dir / finished));
  EXPECT_TRUE(fs::exists(dir / live_sem));
  EXPECT_TRUE(fs::exists(dir / foreign));

  std::ifstream in(dir / "jack-shm-registry", std::ios::binary);
  const std::string img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto entries = parse_jack_registry(img, nullptr);
  ASSERT_TRUE(entries);
  EXPECT_EQ((*entries)[0].pid, 0);  // reclaimed
  EXPECT_EQ((*entries)[0].name, "");
  EXPECT_EQ((*entries)[1].pid, self);                          // alive: kept
  EXPECT_EQ((*entries)[2].name, "jack-" + uid + ":default:");  // not ours: kept although dead
  EXPECT_EQ((*entries)[3].pid, dead);                          // a live run's: kept
  EXPECT_EQ((*entries)[4].pid, 0);                             // the finished one: freed
  fs::remove_all(dir);
}

// A full registry image (servers and 256 segment entries of 268 bytes) with `segments`
// {allocator, id} in entries 0, 1, ...
std::string full_image(const std::vector<std::pair<int32_t, std::string>>& servers,
                       const std::vector<std::pair<int32_t, std::string>>& segments) {
  constexpr size_t kHeader = 24 + 8 * 264, kEntry = 268;
  std::string img = registry_image(servers);
  img.resize(kHeader + 256 * kEntry, '\0');
  for (size_t i = 0; i < 256; ++i) {
    const int16_t index = static_cast<int16_t>(i);
    std::memcpy(img.data() + kHeader + i * kEntry, &index, 2);
  }
  for (size_t i = 0; i < segments.size(); ++i) {
    char* e = img.data() + kHeader + i * kEntry;
    const uint32_t size = 4096;
    std::memcpy(e + 4, &segments[i].first, 4);
    std::memcpy(e + 8, &size, 4);
    std::memcpy(e + 12, segments[i].second.data(), segments[i].second.size());
  }
  return img;
}

pid_t dead_pid() {
  const pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  ::waitpid(p, nullptr, 0);
  return p;
}

TEST(JackRegistry, ParsesTheSegmentTable) {
  const auto segs = parse_jack_segments(full_image({}, {{77, "/jack-0-0"}, {0, ""}}), nullptr);
  ASSERT_TRUE(segs);
  ASSERT_EQ(segs->size(), 256u);
  EXPECT_EQ((*segs)[0].allocator, 77);
  EXPECT_EQ((*segs)[0].id, "/jack-0-0");
  EXPECT_EQ((*segs)[0].size, 4096u);
  EXPECT_EQ((*segs)[1].index, 1);
  EXPECT_EQ((*segs)[1].allocator, 0);
  std::string why;
  EXPECT_FALSE(parse_jack_segments(registry_image({}), &why));  // no room for the segments
  EXPECT_NE(why.find("too small"), std::string::npos) << why;
}

TEST(JackRegistry, ADeadServerOfTheRunIsReclaimedAndNothingElse) {
  const fs::path dir =
      fs::temp_directory_path() / ("xrunlab-reclaim-run-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(::getuid());
  const pid_t jackd = dead_pid(), other_jackd = dead_pid(), self = ::getpid();
  const std::string server = "xrunlab-" + std::to_string(jackd) + "-0";
  const std::string other = "xrunlab-" + std::to_string(other_jackd) + "-0";
  {
    std::ofstream out(dir / "jack-shm-registry", std::ios::binary);
    out << full_image({{jackd, "jack-" + uid + ":" + server + ":"},
                       {other_jackd, "jack-" + uid + ":" + other + ":"}},
                      {{jackd, "/jack-" + uid + "-0"},
                       {self, "/jack-" + uid + "-1"},           // the run's, but alive
                       {other_jackd, "/jack-" + uid + "-2"}});  // another dead run's
  }
  const std::vector<std::string> files = {
      "jack-" + uid + "-0",      "jack-" + uid + "-1",
      "jack-" + uid + "-2",      "jack_sem." + uid + "_" + server + "_system",
      "xrunlab-vcard-" + server, "jack_sem." + uid + "_" + other + "_system"};
  for (const std::string& f : files) std::ofstream(dir / f) << "x";

  const ReclaimResult r = reclaim_dead_server(dir.string(), server, {jackd, self});
  EXPECT_EQ(r.reclaimed, std::vector<std::string>{server});
  EXPECT_EQ(r.removed_files.size(), 3u);
  EXPECT_FALSE(fs::exists(dir / files[0]));
  EXPECT_TRUE(fs::exists(dir / files[1]));
  EXPECT_TRUE(fs::exists(dir / files[2]));
  EXPECT_FALSE(fs::exists(dir / files[3]));
  EXPECT_FALSE(fs::exists(dir / files[4]));
  EXPECT_TRUE(fs::exists(dir / files[5]));

  std::ifstream in(dir / "jack-shm-registry", std::ios::binary);
  const std::string img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto servers = parse_jack_registry(img, nullptr);
  const auto segs = parse_jack_segments(img, nullptr);
  ASSERT_TRUE(servers && segs);
  EXPECT_EQ((*servers)[0].pid, 0);
  EXPECT_EQ((*servers)[1].pid, other_jackd);  // another run's: its own janitor or next start
  EXPECT_EQ((*segs)[0].allocator, 0);
  EXPECT_EQ((*segs)[0].id, "");
  EXPECT_EQ((*segs)[0].index, 0);
  EXPECT_EQ((*segs)[1].allocator, self);
  EXPECT_EQ((*segs)[2].allocator, other_jackd);
  fs::remove_all(dir);
}

// Issue 43: anyone can create the registry before JACK does, and name in it any file of the shm
// folder as a segment of a dead process of the run. A registry that is not root's nor this
// user's is refused whole (one line naming it); a segment file that is not this user's is never
// unlinked, whatever the registry says; a registry that is a symbolic link is not followed.
TEST(JackRegistryAttack, ARegistryOfAnotherUserIsRefusedAndTheSegmentItNamesKept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file of another user";
  const fs::path dir =
      fs::temp_directory_path() / ("xrunlab-forged-registry-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(::getuid());
  const pid_t jackd = dead_pid();
  const std::string server = "xrunlab-" + std::to_string(jackd) + "-0";
  const fs::path registry = dir / "jack-shm-registry";
  std::ofstream(registry, std::ios::binary) << full_image(
      {{jackd, "jack-" + uid + ":" + server + ":"}}, {{jackd, "/jack-" + uid + "-0"}});
  ASSERT_EQ(::chown(registry.c_str(), 65534, 65534), 0);
  std::ofstream(dir / ("jack-" + uid + "-0")) << "a file of this user the forger wants gone";

  const ReclaimResult r = reclaim_dead_server(dir.string(), server, {jackd});
  EXPECT_TRUE(fs::exists(dir / ("jack-" + uid + "-0")));
  EXPECT_TRUE(r.reclaimed.empty());
  EXPECT_EQ(r.warning, "not using JACK's registry " + registry.string() +
                           ": it belongs to uid 65534, not to root or uid " + uid +
                           " (remove it if no JACK program runs)");
  const ReclaimResult s = reclaim_stale_xrunlab_servers(dir.string(), server);
  EXPECT_TRUE(s.reclaimed.empty());
  EXPECT_EQ(s.warning, r.warning);
  fs::remove_all(dir);
}

TEST(JackRegistryAttack, ASegmentFileOfAnotherUserIsNotUnlinked) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file of another user";
  const fs::path dir =
      fs::temp_directory_path() / ("xrunlab-foreign-segment-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(::getuid());
  const pid_t jackd = dead_pid();
  const std::string server = "xrunlab-" + std::to_string(jackd) + "-0";
  std::ofstream(dir / "jack-shm-registry", std::ios::binary)
      << full_image({{jackd, "jack-" + uid + ":" + server + ":"}},
                    {{jackd, "/jack-" + uid + "-0"}, {jackd, "/jack-" + uid + "-1"}});
  const fs::path foreign = dir / ("jack-" + uid + "-0"), own = dir / ("jack-" + uid + "-1");
  std::ofstream(foreign) << "x";
  ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  std::ofstream(own) << "x";

  const ReclaimResult r = reclaim_dead_server(dir.string(), server, {jackd});
  EXPECT_TRUE(fs::exists(foreign));
  EXPECT_FALSE(fs::exists(own));
  EXPECT_EQ(r.reclaimed, std::vector<std::string>{server});
  fs::remove_all(dir);
}

TEST(JackRegistryAttack, ARegistryThatIsASymbolicLinkIsNotFollowed) {
  const fs::path dir =
      fs::temp_directory_path() / ("xrunlab-linked-registry-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(::getuid());
  const pid_t jackd = dead_pid();
  const std::string server = "xrunlab-" + std::to_string(jackd) + "-0";
  std::ofstream(dir / "elsewhere", std::ios::binary) << full_image(
      {{jackd, "jack-" + uid + ":" + server + ":"}}, {{jackd, "/jack-" + uid + "-0"}});
  fs::create_symlink(dir / "elsewhere", dir / "jack-shm-registry");
  std::ofstream(dir / ("jack-" + uid + "-0")) << "x";

  const ReclaimResult r = reclaim_dead_server(dir.string(), server, {jackd});
  EXPECT_TRUE(fs::exists(dir / ("jack-" + uid + "-0")));
  EXPECT_TRUE(r.reclaimed.empty());
  EXPECT_EQ(r.warning, "not using JACK's registry " + (dir / "jack-shm-registry").string() +
                           ": it is a symbolic link (remove it if no JACK program runs)");
  fs::remove_all(dir);
}

// Issue 43: JACK's registry semaphore is open to every user, so anyone can take it and keep it.
// The clean-up waits for it a bounded time, then gives up with one line naming the semaphore and
// its holder, and touches nothing. A private key stands in for JACK's, so no JACK program of
// another test waits on it.
TEST(JackRegistryAttack, AHeldRegistryLockIsWaitedForABoundedTimeNamingItsHolder) {
  const key_t key = static_cast<key_t>(0x58520000 | (::getpid() & 0xffff));
  const int sem = ::semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
  ASSERT_GE(sem, 0) << "semaphore key " << key << " is taken";
  ASSERT_EQ(::semctl(sem, 0, SETVAL, 1), 0);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    sembuf take{0, -1, 0};  // no SEM_UNDO: held until the semaphore is removed
    if (::semop(sem, &take, 1) != 0) ::_exit(1);
    ssize_t n = ::write(ready[1], "x", 1);
    (void)n;
    for (;;) ::pause();
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  ::close(ready[1]);

  const fs::path dir =
      fs::temp_directory_path() / ("xrunlab-held-lock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(::getuid());
  const pid_t jackd = dead_pid();
  const std::string server = "xrunlab-" + std::to_string(jackd) + "-0";
  const std::string image =
      full_image({{jackd, "jack-" + uid + ":" + server + ":"}}, {{jackd, "/jack-" + uid + "-0"}});
  std::ofstream(dir / "jack-shm-registry", std::ios::binary) << image;
  std::ofstream(dir / ("jack-" + uid + "-0")) << "x";

  const RegistryLockSpec spec{key, std::chrono::milliseconds(300)};
  auto both = std::async(std::launch::async, [&] {
    return std::make_pair(reclaim_stale_xrunlab_servers(dir.string(), server, spec),
                          reclaim_dead_server(dir.string(), server, {jackd}, spec));
  });
  const bool ended = both.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  if (!ended) ::semctl(sem, 0, IPC_RMID);  // a wait without end: this ends it
  ASSERT_TRUE(ended) << "the clean-up waited for the held lock without end";
  const auto [stale, dead] = both.get();
  char hex[16];
  std::snprintf(hex, sizeof hex, "%#x", static_cast<unsigned>(key));
  const std::string line = std::string("JACK's registry lock (System V semaphore key ") + hex +
                           ") is held by pid " + std::to_string(holder) +
                           " for more than 300 ms; end that process, or remove the semaphore "
                           "(ipcrm -S " +
                           hex + ") if no JACK program runs";
  EXPECT_TRUE(stale.lock_timed_out);
  EXPECT_EQ(stale.warning, line);
  EXPECT_TRUE(stale.reclaimed.empty());
  EXPECT_TRUE(dead.lock_timed_out);
  EXPECT_EQ(dead.warning, line);
  EXPECT_TRUE(dead.reclaimed.empty());
  EXPECT_TRUE(fs::exists(dir / ("jack-" + uid + "-0")));  // nothing touched
  std::ifstream in(dir / "jack-shm-registry", std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()),
            image);

  ::semctl(sem, 0, IPC_RMID);
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  fs::remove_all(dir);
}

// JACK's metadata database: a folder of Berkeley DB files that every JACK program maps. Removed
// only when no process maps one of them (fake /proc folders, then the real /proc).
TEST(JackMetadataDb, IsRemovedOnlyWhenNoProcessMapsIt) {
  const fs::path dir = fs::temp_directory_path() / ("xrunlab-jackdb-" + std::to_string(getpid()));
  const fs::path shm = dir / "shm", proc = dir / "proc";
  const uid_t uid = getuid();
  const fs::path db = shm / ("jack_db-" + std::to_string(uid));
  auto make_db = [&] {
    fs::create_directories(db);
    // and the temporary file of a metadata.db whose creation was killed
    for (const char* f : {"metadata.db", "__db.001", "__db.002", "__db.003", "__db.metadata.db"}) {
      std::ofstream(db / f) << "x";
    }
  };
  make_db();
  fs::create_directories(proc / "4242");
  fs::create_directories(proc / "self-not-a-pid");
  std::ofstream(proc / "4242" / "maps")
      << "7f00-7f01 r--p 00000000 00:1a 5 /usr/lib/libjack.so.0\n"
      << "7f01-7f02 rw-s 00000000 00:1a 6 " << (db / "__db.001").string() << "\n";
  pid_t user = 0;
  EXPECT_EQ(remove_unused_jack_metadata_db(shm.string(), uid, proc.string(), &user), "");
  EXPECT_EQ(user, 4242);
  EXPECT_TRUE(fs::exists(db / "__db.001"));

  // The same process with the database unmapped: nobody is inside it, it goes.
  std::ofstream(proc / "4242" / "maps") << "7f00-7f01 r--p 00000000 00:1a 5 /usr/lib/libjack.so\n";
  EXPECT_EQ(remove_unused_jack_metadata_db(shm.string(), uid, proc.string()), db.string());
  EXPECT_FALSE(fs::exists(db));
  EXPECT_EQ(remove_unused_jack_metadata_db(shm.string(), uid, proc.string()), "");  // none left

  // Another user's folder name is not looked at.
  fs::create_directories(shm / ("jack_db-" + std::to_string(uid + 1)));
  EXPECT_EQ(remove_unused_jack_metadata_db(shm.string(), uid + 1, proc.string()), "");

  // The real /proc: this test maps one of the files, as a JACK program does.
  make_db();
  const int fd = ::open((db / "__db.002").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* map = ::mmap(nullptr, 1, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  ::close(fd);
  user = 0;
  EXPECT_EQ(remove_unused_jack_metadata_db(shm.string(), uid, "/proc", &user), "");
  EXPECT_EQ(user, getpid());
  ::munmap(map, 1);
  EXPECT_EQ(remove_unused_jack_metadata_db(shm.string(), uid, "/proc"), db.string());
  EXPECT_FALSE(fs::exists(db));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xrunlab

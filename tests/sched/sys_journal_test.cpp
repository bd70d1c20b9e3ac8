// SPDX-License-Identifier: GPL-2.0-or-later
// SysJournal against a temporary folder standing in for /sys and /proc/sys (plain files and
// folders) and another one for the journal folder.
#include "engine/sched/sys_journal.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "engine/base/text.hpp"
#include "tests/support/files.hpp"

namespace xrunlab {
namespace {

using testing_support::path_exists;
using testing_support::read_text_or_empty;
using testing_support::write_text;

namespace fs = std::filesystem;

std::string journal_text(pid_t pid, const nlohmann::json& entries,
                         nlohmann::json extra_owner = nlohmann::json::object()) {
  nlohmann::json owner = {{"pid", pid}};
  owner.update(extra_owner);
  return nlohmann::json{
      {"format", "xrunlab-sys-journal"}, {"version", 1}, {"owner", owner}, {"entries", entries}}
      .dump();
}

// A pid that no process has: pid_max on Linux is at most 4194304.
constexpr pid_t kDeadPid = 4194304 + 1000;

class SysJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/xrunlab-sys-journal-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    sys_ = root_ + "/sys";
    run_ = root_ + "/run";
    fs::create_directory(sys_);
    fs::create_directory(run_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A journal file name as another process of this uid would have it.
  std::string journal_of(pid_t pid) const {
    return run_ + "/journal-" + std::to_string(::geteuid()) + "-" + std::to_string(pid) + ".json";
  }

  std::string root_, sys_, run_;
};

TEST_F(SysJournalTest, DefaultPathIsPerUidAndPid) {
  const std::string p = SysJournal::default_journal_path();
  const std::string name =
      "journal-" + std::to_string(::geteuid()) + "-" + std::to_string(::getpid()) + ".json";
  EXPECT_EQ(p.substr(p.size() - name.size()), name);
  if (::geteuid() == 0) {
    EXPECT_EQ(p, "/run/xrunlab/" + name);
  }
}

TEST_F(SysJournalTest, WriteThenRestoreGivesBackOldValues) {
  write_text(sys_ + "/a", "1\n");
  write_text(sys_ + "/b", "4\t4\t1\t7\n");
  SysJournal j(SysJournal::journal_path_in(run_));
  j.write_setting(sys_ + "/a", "2");
  j.write_setting(sys_ + "/b", "1 1 1 1");
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "2");
  EXPECT_EQ(read_text_or_empty(sys_ + "/b"), "1 1 1 1");

  // The journal on disk holds the owner and the entries, in order, before anything else.
  const auto journal = nlohmann::json::parse(read_text_or_empty(j.journal_path()));
  EXPECT_EQ(journal["owner"]["pid"].get<pid_t>(), ::getpid());
  ASSERT_EQ(journal["entries"].size(), 2u);
  EXPECT_EQ(journal["entries"][0]["kind"], "write");
  EXPECT_EQ(journal["entries"][0]["path"], sys_ + "/a");
  EXPECT_EQ(journal["entries"][0]["old_value"], "1");
  EXPECT_EQ(journal["entries"][0]["new_value"], "2");
  EXPECT_EQ(journal["entries"][1]["old_value"], "4\t4\t1\t7");
  ASSERT_EQ(j.entries().size(), 2u);

  EXPECT_TRUE(j.restore_all().empty());
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "1");
  EXPECT_EQ(read_text_or_empty(sys_ + "/b"), "4\t4\t1\t7");
  EXPECT_FALSE(path_exists(j.journal_path()));
  EXPECT_TRUE(j.entries().empty());
}

TEST_F(SysJournalTest, NothingIsWrittenBeforeTheFirstChange) {
  SysJournal j(SysJournal::journal_path_in(run_));
  EXPECT_FALSE(path_exists(j.journal_path()));
  EXPECT_TRUE(j.restore_all().empty());
}

TEST_F(SysJournalTest, RestoreIsLifo) {
  write_text(sys_ + "/a", "1");
  SysJournal j(SysJournal::journal_path_in(run_));
  j.make_dir(sys_ + "/g");
  j.make_dir(sys_ + "/g/h");  // only removable before g
  j.write_setting(sys_ + "/a", "2");
  j.write_setting(sys_ + "/a", "3");  // undone first: 3 -> 2, then 2 -> 1
  EXPECT_TRUE(path_exists(sys_ + "/g/h"));
  const auto problems = j.restore_all();
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "1");
  EXPECT_FALSE(path_exists(sys_ + "/g"));
}

TEST_F(SysJournalTest, FailedChangeThrowsNamingThePathAndLeavesNoEntry) {
  SysJournal j(SysJournal::journal_path_in(run_));
  try {
    j.write_setting(sys_ + "/missing", "1");
    FAIL() << "no exception";
  } catch (const SysChangeError& e) {
    EXPECT_TRUE(contains(e.what(), sys_ + "/missing")) << e.what();
    EXPECT_EQ(e.code(), ExitCode::kRunFailed);
    EXPECT_EQ(e.error_number(), ENOENT);
  }
  // Readable, so journalled first, but the kernel refuses the write (EIO): entry taken out.
  EXPECT_THROW(j.write_setting("/proc/version", "x"), Error);
  EXPECT_TRUE(j.entries().empty());
  EXPECT_FALSE(path_exists(j.journal_path()));

  write_text(sys_ + "/a", "1");
  j.write_setting(sys_ + "/a", "2");
  fs::create_directory(sys_ + "/taken");
  EXPECT_THROW(j.make_dir(sys_ + "/taken"), Error);  // not ours: never journalled for removal
  EXPECT_THROW(j.make_dir(sys_ + "/no/such/parent"), Error);
  ASSERT_EQ(j.entries().size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(read_text_or_empty(j.journal_path()))["entries"].size(), 1u);
  EXPECT_TRUE(j.restore_all().empty());
  EXPECT_TRUE(path_exists(sys_ + "/taken"));
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "1");
}

TEST_F(SysJournalTest, LaterChangeBySomeoneElseIsNotOverwritten) {
  write_text(sys_ + "/a", "1");
  SysJournal j(SysJournal::journal_path_in(run_));
  j.write_setting(sys_ + "/a", "2");
  write_text(sys_ + "/a", "5");
  const auto problems = j.restore_all();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(contains(problems[0], "'5'")) << problems[0];
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "5");
}

TEST_F(SysJournalTest, DestructorRestores) {
  write_text(sys_ + "/a", "1");
  {
    SysJournal j(SysJournal::journal_path_in(run_));
    j.write_setting(sys_ + "/a", "2");
  }
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "1");
  EXPECT_FALSE(path_exists(SysJournal::journal_path_in(run_)));
}

TEST_F(SysJournalTest, ForkedChildDoesNotRestoreItsParentsChanges) {
  write_text(sys_ + "/a", "1");
  SysJournal j(SysJournal::journal_path_in(run_));
  j.write_setting(sys_ + "/a", "2");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool refused = !j.restore_all().empty();
    ::_exit(refused && read_text_or_empty(sys_ + "/a") == "2" ? 0
                                                              : 1);  // destructor not run: _exit
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "2");
  EXPECT_TRUE(j.restore_all().empty());
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "1");
}

// The engine crashes: a child journals two changes and _exit()s without restoring. It is still
// a zombie (not reaped) when the next "start" recovers: a zombie counts as dead.
TEST_F(SysJournalTest, JournalOfACrashedRunIsRestoredAtTheNextStart) {
  write_text(sys_ + "/a", "1");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      SysJournal j(SysJournal::journal_path_in(run_));
      j.write_setting(sys_ + "/a", "crashed");
      j.make_dir(sys_ + "/g");
      ::_exit(0);  // crash: no restore, no destructor
    } catch (...) {
      ::_exit(2);
    }
  }
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  ASSERT_EQ(info.si_status, 0);
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "crashed");
  EXPECT_TRUE(path_exists(sys_ + "/g"));
  EXPECT_TRUE(path_exists(journal_of(child)));

  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 2u);
  const std::string by = "left by a crashed run (pid " + std::to_string(child) + ")";
  EXPECT_TRUE(contains(lines[0], "restored " + sys_ + "/g")) << lines[0];
  EXPECT_TRUE(contains(lines[0], by)) << lines[0];
  EXPECT_TRUE(contains(lines[1], "restored " + sys_ + "/a to '1'")) << lines[1];
  EXPECT_TRUE(contains(lines[1], by)) << lines[1];
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "1");
  EXPECT_FALSE(path_exists(sys_ + "/g"));
  EXPECT_FALSE(path_exists(journal_of(child)));
  EXPECT_TRUE(next.recover_stale().empty());  // done once
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
}

// The janitor's way: one dead owner's journal, named, restored; another dead one's is left for
// the next start, a live owner's is never touched.
TEST_F(SysJournalTest, RecoverDeadOwnerRestoresOnlyThatJournal) {
  write_text(sys_ + "/a", "new");
  write_text(sys_ + "/b", "new");
  write_text(journal_of(kDeadPid), journal_text(kDeadPid, {{{"kind", "write"},
                                                            {"path", sys_ + "/a"},
                                                            {"old_value", "old"},
                                                            {"new_value", "new"}}}));
  write_text(journal_of(kDeadPid + 1), journal_text(kDeadPid + 1, {{{"kind", "write"},
                                                                    {"path", sys_ + "/b"},
                                                                    {"old_value", "old"},
                                                                    {"new_value", "new"}}}));
  const auto lines =
      SysJournal::recover_dead_owner(journal_of(kDeadPid), "left by the killed engine");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(contains(lines[0], "left by the killed engine (pid " + std::to_string(kDeadPid)))
      << lines[0];
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "old");
  EXPECT_EQ(read_text_or_empty(sys_ + "/b"), "new");
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
  EXPECT_TRUE(path_exists(journal_of(kDeadPid + 1)));
  EXPECT_TRUE(SysJournal::recover_dead_owner(journal_of(kDeadPid), "x").empty());  // gone
  const auto entries = SysJournal::read_entries(journal_of(kDeadPid + 1));
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].path, sys_ + "/b");
  EXPECT_FALSE(SysJournal::read_entries(journal_of(kDeadPid)));

  // A live owner (this process) keeps its journal.
  SysJournal mine(SysJournal::journal_path_in(run_));
  mine.write_setting(sys_ + "/b", "mine");
  EXPECT_TRUE(SysJournal::recover_dead_owner(mine.journal_path(), "x").empty());
  EXPECT_EQ(read_text_or_empty(sys_ + "/b"), "mine");
  EXPECT_TRUE(mine.restore_all().empty());
}

TEST_F(SysJournalTest, HandWrittenJournalOfADeadPidIsRestored) {
  write_text(sys_ + "/a", "new");
  write_text(journal_of(kDeadPid), journal_text(kDeadPid, {{{"kind", "write"},
                                                            {"path", sys_ + "/a"},
                                                            {"old_value", "old"},
                                                            {"new_value", "new"}}}));
  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(contains(lines[0], "(pid " + std::to_string(kDeadPid) + ")")) << lines[0];
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "old");
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
}

TEST_F(SysJournalTest, JournalOfALiveRunIsLeftAlone) {
  const pid_t other = ::fork();  // another xrunlab run, still going
  ASSERT_GE(other, 0);
  if (other == 0) {
    for (;;) ::pause();
  }
  write_text(sys_ + "/a", "new");
  const std::string text = journal_text(
      other,
      {{{"kind", "write"}, {"path", sys_ + "/a"}, {"old_value", "old"}, {"new_value", "new"}}});
  write_text(journal_of(other), text);
  SysJournal next(SysJournal::journal_path_in(run_));
  EXPECT_TRUE(next.recover_stale().empty());
  EXPECT_EQ(read_text_or_empty(journal_of(other)), text);
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "new");

  // Same pid, but another start time: the pid was reused, the journal's owner is dead.
  write_text(
      journal_of(other),
      journal_text(
          other,
          {{{"kind", "write"}, {"path", sys_ + "/a"}, {"old_value", "old"}, {"new_value", "new"}}},
          {{"start_time", 1}}));
  EXPECT_EQ(next.recover_stale().size(), 1u);
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "old");

  ::kill(other, SIGKILL);
  ASSERT_EQ(::waitpid(other, nullptr, 0), other);
}

TEST_F(SysJournalTest, LiveRunsJournalWithAKindThisVersionDoesNotKnowIsLeftAloneNotSetAside) {
  // A newer xrunlab journals kinds this one cannot restore: while it runs, its journal is its.
  const pid_t other = ::fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    for (;;) ::pause();
  }
  const std::string text = journal_text(other, {{{"kind", "kind-from-the-future"},
                                                 {"path", sys_ + "/x"},
                                                 {"old_value", ""},
                                                 {"new_value", ""}}});
  write_text(journal_of(other), text);
  SysJournal next(SysJournal::journal_path_in(run_));
  EXPECT_TRUE(next.recover_stale().empty());
  EXPECT_EQ(read_text_or_empty(journal_of(other)), text);
  EXPECT_FALSE(path_exists(journal_of(other) + ".corrupt"));
  ::kill(other, SIGKILL);
  ASSERT_EQ(::waitpid(other, nullptr, 0), other);
}

TEST_F(SysJournalTest, CorruptJournalIsSetAsideWithOneLine) {
  write_text(journal_of(kDeadPid), "{\"format\": \"xrunlab-sys-jour");
  write_text(journal_of(kDeadPid + 1), journal_text(kDeadPid + 1, {{{"kind", "format-disk"}}}));
  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& line : lines) {
    EXPECT_TRUE(contains(line, "cannot be read")) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
  EXPECT_TRUE(path_exists(journal_of(kDeadPid) + ".corrupt"));
  EXPECT_TRUE(path_exists(journal_of(kDeadPid + 1) + ".corrupt"));
  EXPECT_TRUE(next.recover_stale().empty());  // set aside: not reported again
}

TEST_F(SysJournalTest, JournalFromBeforeTheLastRebootIsDiscarded) {
  write_text(sys_ + "/a", "default-after-boot");
  write_text(
      journal_of(kDeadPid),
      journal_text(
          kDeadPid,
          {{{"kind", "write"}, {"path", sys_ + "/a"}, {"old_value", "old"}, {"new_value", "new"}}},
          {{"boot_id", "00000000-0000-0000-0000-000000000000"}}));
  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(contains(lines[0], "reboot")) << lines[0];
  EXPECT_EQ(read_text_or_empty(sys_ + "/a"), "default-after-boot");
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
}

TEST_F(SysJournalTest, UnrestorableCrashedJournalIsKeptAsFailed) {
  fs::create_directory(sys_ + "/g");
  write_text(sys_ + "/g/file", "keeps the folder from being removed");
  write_text(journal_of(kDeadPid),
             journal_text(kDeadPid, {{{"kind", "mkdir"}, {"path", sys_ + "/g"}}}));
  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(contains(lines[0], "cannot remove " + sys_ + "/g")) << lines[0];
  EXPECT_TRUE(path_exists(journal_of(kDeadPid) + ".failed"));
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
}

// "mount": a tmpfs stands in for tracefs (the same mount(2) without a device). Needs root, as
// the tests here have; skipped otherwise.
bool is_mount_point(const std::string& path) {
  struct stat a {
  }, b{};
  if (::stat(path.c_str(), &a) != 0 || ::stat((path + "/..").c_str(), &b) != 0) return false;
  return a.st_dev != b.st_dev;
}

TEST_F(SysJournalTest, MountedFileSystemIsUnmountedByRestoreAllAndAnInstanceInsideGoesFirst) {
  if (::geteuid() != 0) GTEST_SKIP() << "mount(2) needs root";
  const std::string mnt = sys_ + "/tracing";
  fs::create_directory(mnt);
  SysJournal journal(SysJournal::journal_path_in(run_));
  journal.mount_fs("tmpfs", mnt);
  ASSERT_TRUE(is_mount_point(mnt));
  fs::create_directory(mnt + "/instances");
  journal.make_dir(mnt + "/instances/xrunlab-1");
  ASSERT_EQ(journal.entries().size(), 2u);
  EXPECT_EQ(journal.entries()[0].kind, "mount");
  EXPECT_EQ(journal.entries()[0].old_value, "tmpfs");
  EXPECT_TRUE(journal.restore_all().empty());
  EXPECT_FALSE(is_mount_point(mnt));
  EXPECT_FALSE(path_exists(journal.journal_path()));
}

TEST_F(SysJournalTest, MountOfACrashedRunIsUnmountedAtTheNextStart) {
  if (::geteuid() != 0) GTEST_SKIP() << "mount(2) needs root";
  const std::string mnt = sys_ + "/tracing";
  fs::create_directory(mnt);
  ASSERT_EQ(::mount("nodev", mnt.c_str(), "tmpfs", 0, nullptr), 0);
  ASSERT_TRUE(is_mount_point(mnt));
  write_text(
      journal_of(kDeadPid),
      journal_text(
          kDeadPid,
          nlohmann::json::array(
              {{{"kind", "mount"}, {"path", mnt}, {"old_value", "tmpfs"}, {"new_value", ""}}})));
  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("unmounted the tmpfs left by a crashed run"), std::string::npos)
      << lines[0];
  EXPECT_FALSE(is_mount_point(mnt));
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
}

TEST_F(SysJournalTest, MountWithAnotherRunsTraceInstanceInsideStaysMountedAndThatIsSaid) {
  if (::geteuid() != 0) GTEST_SKIP() << "mount(2) needs root";
  const std::string mnt = sys_ + "/tracing";
  fs::create_directory(mnt);
  SysJournal journal(SysJournal::journal_path_in(run_));
  journal.mount_fs("tmpfs", mnt);
  fs::create_directories(mnt + "/instances/xrunlab-424242");  // another run's, not journalled
  const auto problems = journal.restore_all();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("left " + mnt + " mounted"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("xrunlab-424242"), std::string::npos) << problems[0];
  EXPECT_TRUE(is_mount_point(mnt));
  ASSERT_EQ(::umount2(mnt.c_str(), 0), 0);
}

TEST_F(SysJournalTest, FailedMountThrowsNamingThePathAndLeavesNoEntry) {
  SysJournal journal(SysJournal::journal_path_in(run_));
  const std::string missing = sys_ + "/no-such-folder";
  try {
    journal.mount_fs("tmpfs", missing);
    FAIL() << "mount_fs on a missing folder did not throw";
  } catch (const SysChangeError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_TRUE(journal.entries().empty());
  EXPECT_FALSE(path_exists(journal.journal_path()));
}

// "netns": a file bind-mounted onto the journalled path stands in for `ip netns add`'s bind
// mount of a namespace (the same lazy umount and unlink take both away).
bool is_bind_mounted_file(const std::string& path) {
  const std::string mountinfo = read_text_or_empty("/proc/self/mountinfo");
  return mountinfo.find(" " + path + " ") != std::string::npos;
}

TEST_F(SysJournalTest, NetworkNamespaceIsJournalledBeforeItIsMadeAndRemovedByRestoreAll) {
  if (::geteuid() != 0) GTEST_SKIP() << "mount(2) needs root";
  const std::string source = sys_ + "/ns-source";
  write_text(source, "");
  const std::string path = sys_ + "/xrunlab-ping-1";
  SysJournal journal(SysJournal::journal_path_in(run_));
  journal.make_netns(path, [&] {
    // Made only once the journal names it.
    ASSERT_TRUE(contains(read_text_or_empty(journal.journal_path()), "\"netns\""));
    write_text(path, "");
    ASSERT_EQ(::mount(source.c_str(), path.c_str(), nullptr, MS_BIND, nullptr), 0);
  });
  ASSERT_EQ(journal.entries().size(), 1u);
  EXPECT_EQ(journal.entries()[0].kind, "netns");
  ASSERT_TRUE(is_bind_mounted_file(path));
  EXPECT_TRUE(journal.restore_all().empty());
  EXPECT_FALSE(is_bind_mounted_file(path));
  EXPECT_FALSE(path_exists(path));
  EXPECT_FALSE(path_exists(journal.journal_path()));
}

TEST_F(SysJournalTest, NetworkNamespaceWhoseMakingFailedIsTakenAwayAndLeavesNoEntry) {
  const std::string path = sys_ + "/xrunlab-ping-2";
  SysJournal journal(SysJournal::journal_path_in(run_));
  EXPECT_THROW(journal.make_netns(path,
                                  [&] {
                                    write_text(path, "");  // half made, then it fails
                                    throw Error(ExitCode::kRunFailed, "ip netns add failed");
                                  }),
               Error);
  EXPECT_TRUE(journal.entries().empty());
  EXPECT_FALSE(path_exists(path));
  EXPECT_FALSE(path_exists(journal.journal_path()));
  // A name that exists already is not taken over.
  write_text(path, "");
  EXPECT_THROW(journal.make_netns(path, [] {}), SysChangeError);
  EXPECT_TRUE(path_exists(path));
}

TEST_F(SysJournalTest, NetworkNamespaceOfACrashedRunIsRemovedAtTheNextStart) {
  const std::string path = sys_ + "/xrunlab-ping-3";
  write_text(path, "");
  write_text(journal_of(kDeadPid),
             journal_text(
                 kDeadPid,
                 nlohmann::json::array(
                     {{{"kind", "netns"}, {"path", path}, {"old_value", ""}, {"new_value", ""}}})));
  SysJournal next(SysJournal::journal_path_in(run_));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("removed the network namespace left by a crashed run"), std::string::npos)
      << lines[0];
  EXPECT_FALSE(path_exists(path));
  EXPECT_FALSE(path_exists(journal_of(kDeadPid)));
}

}  // namespace
}  // namespace xrunlab

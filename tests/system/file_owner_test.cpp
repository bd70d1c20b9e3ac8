// SPDX-License-Identifier: GPL-2.0-or-later
// Under sudo, what the run created goes to the invoking user; nothing else is touched.
#include "engine/system/file_owner.hpp"

#include <ftw.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

TEST(InvokingUser, OnlyRootWithANonRootSudoUser) {
  const auto u = invoking_user_from(0, "1000", "1001");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->uid, 1000u);
  EXPECT_EQ(u->gid, 1001u);
  EXPECT_FALSE(invoking_user_from(1000, "1000", "1000")) << "not root: nothing to hand over";
  EXPECT_FALSE(invoking_user_from(0, "0", "0")) << "sudo by root itself";
  EXPECT_FALSE(invoking_user_from(0, nullptr, "1000"));
  EXPECT_FALSE(invoking_user_from(0, "1000", nullptr));
  EXPECT_FALSE(invoking_user_from(0, "", "1000"));
  EXPECT_FALSE(invoking_user_from(0, "10x", "1000"));
  EXPECT_FALSE(invoking_user_from(0, "1000", "-1"));
}

struct Owner {
  uid_t uid;
  gid_t gid;
};
Owner owner_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return {st.st_uid, st.st_gid};
}

// Root only (chown): recorded folders with all their content, recorded files, and nothing else:
// not the folder around them, not a file beside them, not what a symbolic link points to.
TEST(HandOver, RecordedFoldersWithTheirContentAndRecordedFilesOnly) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir("owner");
  const std::string outside = dir.write("outside.txt", "not ours");
  const std::string existing = dir.write("old/keep.txt", "was there");
  const std::string mine = dir.write("old/written.txt", "ours");
  dir.write("new/a/b.txt", "ours");
  dir.write("new/c.txt", "ours");
  dir.link("new/link", outside);
  hand_over_folder(dir.file("new"));
  hand_over_file(mine);
  hand_over_file(dir.file("old/gone.txt"));  // never made: not a problem
  const InvokingUser nobody{65534, 65534};
  EXPECT_EQ(hand_over_recorded(nobody), std::vector<std::string>{});
  for (const std::string& p : {dir.file("new"), dir.file("new/a"), dir.file("new/a/b.txt"),
                               dir.file("new/c.txt"), dir.file("new/link"), mine}) {
    EXPECT_EQ(owner_of(p).uid, 65534u) << p;
    EXPECT_EQ(owner_of(p).gid, 65534u) << p;
  }
  for (const std::string& p : {dir.str(), dir.file("old"), existing, outside}) {
    EXPECT_EQ(owner_of(p).uid, 0u) << p;
    EXPECT_EQ(owner_of(p).gid, 0u) << p;
  }
  // Handed over once: a second call has nothing left to do.
  ASSERT_EQ(::lchown(mine.c_str(), 0, 0), 0);
  EXPECT_EQ(hand_over_recorded(nobody), std::vector<std::string>{});
  EXPECT_EQ(owner_of(mine).uid, 0u);
}

// The attack on the hand-over: while root gives the run's folder away, a name in it is swapped
// for a symbolic link to a folder of root's (as its new owner could once it owns the folder).
// With a walk by path (nftw, lchown of "top/sub/f") the swapped-in link was followed and root's
// own file given away; walked through fds, depth first, only the link itself ever changes.
TEST(HandOver, ANameSwappedForALinkDuringTheWalkIsNeverFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir("owner-race");
  const std::string victim = dir.write("victim/f", "root's");
  dir.write("run/sub/f", "ours");
  std::atomic<bool> stop{false};
  std::thread racer([&] {
    const std::string sub = dir.file("run/sub");
    const std::string aside = dir.file("run/sub.aside");
    const std::string target = dir.file("victim");
    while (!stop.load()) {
      if (::rename(sub.c_str(), aside.c_str()) != 0) continue;
      ::symlink(target.c_str(), sub.c_str());
      ::unlink(sub.c_str());
      ::rename(aside.c_str(), sub.c_str());
    }
  });
  const InvokingUser nobody{65534, 65534};
  int given_away = 0;
  for (int i = 0; i < 3000 && given_away == 0; ++i) {
    hand_over_folder(dir.file("run"));
    hand_over_recorded(nobody);
    if (owner_of(victim).uid != 0 || owner_of(dir.file("victim")).uid != 0) ++given_away;
  }
  stop = true;
  racer.join();
  EXPECT_EQ(given_away, 0) << "root's file behind the link was handed over";
  EXPECT_EQ(owner_of(victim).uid, 0u);
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// remove_owned_tree: a folder found by its predictable name in /tmp goes only when it is a
// folder of the given user; another user's folder (made first, with a file in it), a symbolic
// link and a file under that name are left, each with one line saying why. (remove_tree itself
// is tested with the scratch folder, tests/loads/scratch_folder_test.cpp.)
#include "engine/base/remove_tree.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;
namespace fs = std::filesystem;

TEST(RemoveOwnedTree, AFolderOfTheOwnerGoesWithEverythingInIt) {
  TempDir tmp("owned");
  tmp.write("mine/sub/file", "x");
  tmp.link("mine/link", "/etc");
  EXPECT_EQ(remove_owned_tree(tmp.file("mine"), ::geteuid()), "");
  EXPECT_FALSE(fs::exists(tmp.file("mine")));
  EXPECT_TRUE(fs::exists("/etc"));
  EXPECT_EQ(remove_owned_tree(tmp.file("mine"), ::geteuid()), "");  // gone: fine
}

TEST(RemoveOwnedTree, AFolderOfAnotherUserIsLeftWithWhatIsInIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a folder of another user";
  TempDir tmp("owned");
  const std::string dir = tmp.file("theirs");
  tmp.write("theirs/keep", "x");
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  EXPECT_EQ(remove_owned_tree(dir, 0), "not removing '" + dir +
                                           "': it belongs to uid 65534, not to uid 0; remove it "
                                           "by hand if it is not in use");
  EXPECT_TRUE(fs::exists(dir + "/keep"));
}

TEST(RemoveOwnedTree, ALinkOrAFileIsLeft) {
  TempDir tmp("owned");
  tmp.write("target/keep", "x");
  tmp.link("link", tmp.file("target"));
  const std::string file = tmp.write("file", "x");
  EXPECT_EQ(remove_owned_tree(tmp.file("link"), ::geteuid()),
            "not removing '" + tmp.file("link") +
                "': it is a symbolic link; remove it by hand if it is not in use");
  EXPECT_EQ(
      remove_owned_tree(file, ::geteuid()),
      "not removing '" + file + "': it is not a folder; remove it by hand if it is not in use");
  EXPECT_TRUE(fs::is_symlink(tmp.file("link")));
  EXPECT_TRUE(fs::exists(tmp.file("target/keep")));
  EXPECT_TRUE(fs::exists(file));
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/scratch_folder.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "engine/base/errno_text.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using load_tool::canonical;
using load_tool::check_scratch;
using load_tool::mkdir_p;
using testing_support::path_exists;
using testing_support::read_text_or_empty;
using testing_support::TempDir;

bool is_folder(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// `levels` folders "d" inside each other below `top`; returns the deepest.
std::string nest(const std::string& top, int levels) {
  std::string path = top;
  for (int i = 0; i < levels; ++i) {
    path += "/d";
    if (::mkdir(path.c_str(), 0755) != 0) return "";
  }
  return path;
}

TEST(RemoveTree, RemovesFilesFoldersAndLinksBelow) {
  TempDir tmp;
  const std::string dir = tmp.file("scratch");
  tmp.write("scratch/a/b/c/file", "x");
  tmp.write("scratch/a/.hidden", "y");
  tmp.write("scratch/top", "z");
  ASSERT_EQ(::mkdir(tmp.file("scratch/empty").c_str(), 0755), 0);
  tmp.write("kept/keep.txt", "keep");
  tmp.link("scratch/a/to-kept", tmp.file("kept"));
  tmp.link("scratch/dangling", tmp.file("nowhere"));

  EXPECT_EQ(remove_tree(dir), "");
  EXPECT_FALSE(path_exists(dir));
  EXPECT_EQ(read_text_or_empty(tmp.file("kept/keep.txt")), "keep");
}

TEST(RemoveTree, AMissingFolderIsNotAnError) {
  TempDir tmp;
  EXPECT_EQ(remove_tree(tmp.file("absent")), "");
  EXPECT_EQ(remove_tree(tmp.file("absent/below")), "");
}

TEST(RemoveTree, RefusesWhatIsNotAFolder) {
  TempDir tmp;
  const std::string file = tmp.write("file", "x");
  EXPECT_EQ(remove_tree(file), "not removing '" + file + "': it is not a folder");
  EXPECT_TRUE(path_exists(file));

  ASSERT_EQ(::mkdir(tmp.file("target").c_str(), 0755), 0);
  tmp.write("target/keep.txt", "keep");
  tmp.link("link", tmp.file("target"));
  EXPECT_EQ(remove_tree(tmp.file("link")),
            "not removing '" + tmp.file("link") + "': it is a symbolic link");
  EXPECT_TRUE(path_exists(tmp.file("link")));
  EXPECT_EQ(read_text_or_empty(tmp.file("target/keep.txt")), "keep");

  EXPECT_EQ(remove_tree(""), "refusing to remove an empty path");
}

// The recursion is bounded: 256 folders below the top one are removed, 257 are refused and the
// deepest folders stay (nothing is left half-listed).
TEST(RemoveTree, NestingIsBounded) {
  TempDir tmp;
  const std::string ok = tmp.file("ok");
  ASSERT_EQ(::mkdir(ok.c_str(), 0755), 0);
  ASSERT_NE(nest(ok, 256), "");
  EXPECT_EQ(remove_tree(ok), "");
  EXPECT_FALSE(path_exists(ok));

  const std::string deep = tmp.file("deep");
  ASSERT_EQ(::mkdir(deep.c_str(), 0755), 0);
  const std::string deepest = nest(deep, 257);
  ASSERT_NE(deepest, "");
  tmp.write("deep/top.txt", "x");
  EXPECT_EQ(remove_tree(deep), "'" + deepest + "' is nested too deeply");
  EXPECT_TRUE(is_folder(deepest));
  EXPECT_FALSE(path_exists(deep + "/top.txt")) << "what could be removed is removed";
}

TEST(CheckScratch, AbsentOrAnEmptyFolderIsFine) {
  TempDir tmp;
  bool exists = true;
  EXPECT_EQ(check_scratch(tmp.file("new"), &exists), "");
  EXPECT_FALSE(exists);
  EXPECT_EQ(check_scratch(tmp.file("new/below"), &exists), "");
  EXPECT_FALSE(exists);

  ASSERT_EQ(::mkdir(tmp.file("empty").c_str(), 0755), 0);
  EXPECT_EQ(check_scratch(tmp.file("empty"), &exists), "");
  EXPECT_TRUE(exists);
}

TEST(CheckScratch, RefusesWhatWouldLoseData) {
  TempDir tmp;
  bool exists = false;
  tmp.write("full/.hidden", "x");
  EXPECT_EQ(
      check_scratch(tmp.file("full"), &exists),
      "--scratch '" + tmp.file("full") + "' is not empty (it is removed when the load stops)");
  EXPECT_TRUE(exists);

  const std::string file = tmp.write("file", "x");
  exists = false;
  EXPECT_EQ(check_scratch(file, &exists), "--scratch '" + file + "' is not a folder");
  EXPECT_TRUE(exists);

  ASSERT_EQ(::mkdir(tmp.file("target").c_str(), 0755), 0);
  tmp.link("link", tmp.file("target"));
  exists = false;
  EXPECT_EQ(check_scratch(tmp.file("link"), &exists),
            "--scratch '" + tmp.file("link") + "' is a symbolic link");
  EXPECT_TRUE(exists);

  EXPECT_EQ(check_scratch(file + "/below", &exists),
            "--scratch '" + file + "/below': " + errno_text(ENOTDIR));
}

TEST(MkdirP, CreatesEveryMissingFolder) {
  TempDir tmp;
  EXPECT_EQ(mkdir_p(tmp.file("a/b/c")), "");
  EXPECT_TRUE(is_folder(tmp.file("a/b/c")));
  EXPECT_EQ(mkdir_p(tmp.file("a/b/c")), "") << "existing folders are fine";
  EXPECT_EQ(mkdir_p(tmp.file("a/x/")), "");
  EXPECT_TRUE(is_folder(tmp.file("a/x")));

  const std::string file = tmp.write("file", "x");
  EXPECT_EQ(mkdir_p(file + "/sub/more"),
            "cannot create '" + file + "/sub': " + errno_text(ENOTDIR));
  EXPECT_FALSE(path_exists(file + "/sub"));
}

TEST(Canonical, ResolvesLinksAndDots) {
  TempDir tmp;
  const auto real_tmp = canonical(tmp.str());
  ASSERT_TRUE(real_tmp);
  ASSERT_EQ(::mkdir(tmp.file("a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(tmp.file("a/b").c_str(), 0755), 0);
  tmp.link("to-b", tmp.file("a/b"));
  EXPECT_EQ(canonical(tmp.file("to-b")), *real_tmp + "/a/b");
  EXPECT_EQ(canonical(tmp.file("a/b/../b/.")), *real_tmp + "/a/b");
  EXPECT_FALSE(canonical(tmp.file("a/missing")));
}

}  // namespace
}  // namespace xrunlab

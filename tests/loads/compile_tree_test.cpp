// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/compile_tree.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include "engine/base/errno_text.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using load_tool::generate_source_tree;
using load_tool::kCompileFiles;
using testing_support::expect_golden;
using testing_support::read_text;
using testing_support::TempDir;

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  return names;
}

TEST(CompileTree, WritesAMakefileAHeaderMainAndTheUnits) {
  TempDir tmp;
  const std::string src = tmp.file("src");
  ASSERT_EQ(generate_source_tree(src), "");

  std::set<std::string> expected = {"Makefile", "units.h", "main.c"};
  for (int i = 1; i <= 299; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "u%03d.c", i);
    expected.insert(name);
  }
  EXPECT_EQ(names_in(src), expected);
  EXPECT_EQ(kCompileFiles, 300) << "main.c and 299 units, as xrunlab-load --help says";

  const std::string header = read_text(src + "/units.h");
  EXPECT_NE(header.find("long unit_001(long x);\n"), std::string::npos);
  EXPECT_NE(header.find("long unit_299(long x);\n"), std::string::npos);
  EXPECT_EQ(header.find("unit_300"), std::string::npos);
  const std::string main_c = read_text(src + "/main.c");
  EXPECT_NE(main_c.find("    unit_001,\n"), std::string::npos);
  EXPECT_NE(main_c.find("    unit_299,\n"), std::string::npos);
  EXPECT_EQ(main_c.find("unit_300"), std::string::npos);
  const std::string makefile = read_text(src + "/Makefile");
  EXPECT_NE(makefile.find("\nclean:\n\trm -f prog $(OBJS)\n"), std::string::npos);
}

// The compile load builds the same code in every run and every version: a unit, byte for byte,
// and the whole tree generated twice.
TEST(CompileTree, IsTheSameEveryTime) {
  TempDir tmp;
  ASSERT_EQ(generate_source_tree(tmp.file("a")), "");
  ASSERT_EQ(generate_source_tree(tmp.file("b")), "");
  expect_golden("compile_tree_u042.c.txt", read_text(tmp.file("a/u042.c")));
  const auto names = names_in(tmp.file("a"));
  ASSERT_EQ(names.size(), 302u);
  for (const auto& name : names) {
    EXPECT_EQ(read_text(tmp.file("a/" + name)), read_text(tmp.file("b/" + name))) << name;
  }
  EXPECT_NE(read_text(tmp.file("a/u001.c")), read_text(tmp.file("a/u002.c")));
}

TEST(CompileTree, RefusesAFolderThatExists) {
  TempDir tmp;
  const std::string src = tmp.file("src");
  ASSERT_EQ(generate_source_tree(src), "");
  EXPECT_EQ(generate_source_tree(src), "cannot create '" + src + "': " + errno_text(EEXIST));
  EXPECT_EQ(generate_source_tree(tmp.file("missing/src")),
            "cannot create '" + tmp.file("missing/src") + "': " + errno_text(ENOENT));
}

// The generated C is valid C without a warning (checked by the C compiler the load runs, on
// main.c and a few units; the whole build is the compile load's own business).
TEST(CompileTree, CompilesWithoutWarnings) {
  if (!find_program("cc")) GTEST_SKIP() << "no cc in PATH";
  TempDir tmp;
  const std::string src = tmp.file("src");
  ASSERT_EQ(generate_source_tree(src), "");
  SpawnSpec spec;
  spec.argv = {"cc",
               "-fsyntax-only",
               "-Wall",
               "-Wextra",
               "-Werror",
               src + "/main.c",
               src + "/u001.c",
               src + "/u042.c",
               src + "/u150.c",
               src + "/u299.c"};
  spec.output_path = tmp.file("cc.log");
  Child cc = Child::spawn(spec);
  ASSERT_TRUE(cc.wait_for(std::chrono::minutes(5))) << "cc did not end";
  ASSERT_TRUE(cc.wait_status());
  EXPECT_TRUE(WIFEXITED(*cc.wait_status()) && WEXITSTATUS(*cc.wait_status()) == 0)
      << cc.describe_exit() << "\n"
      << testing_support::read_text_or_empty(spec.output_path);
}

}  // namespace
}  // namespace xrunlab

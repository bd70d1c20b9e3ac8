// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/file.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

TEST(ReadFile, ReturnsTheBytesAsTheyAre) {
  TempDir dir("file");
  const std::string text("a\r\nb\0c\n", 7);
  const std::string path = dir.write("f.bin", text);
  const auto got = read_file(path);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, text);
}

TEST(ReadFile, ReadsProcFilesWhoseSizeIsZeroOnDisk) {
  const auto got = read_file("/proc/self/stat");
  ASSERT_TRUE(got);
  EXPECT_NE(got->find(')'), std::string::npos);
}

TEST(ReadFile, MissingFileSaysWhichAndWhy) {
  std::string why;
  EXPECT_FALSE(read_file("/nonexistent/xrunlab-file", &why));
  EXPECT_EQ(why, "cannot read /nonexistent/xrunlab-file: No such file or directory");
}

TEST(ReadFile, AFolderIsNotAFile) {
  TempDir dir("file");
  std::string why;
  EXPECT_FALSE(read_file(dir.str(), &why));
  EXPECT_NE(why.find("Is a directory"), std::string::npos) << why;
}

TEST(ReadFirstLine, StopsAtTheFirstNewline) {
  TempDir dir("file");
  EXPECT_EQ(read_first_line(dir.write("a", "one\ntwo\n")).value_or("?"), "one");
  EXPECT_EQ(read_first_line(dir.write("b", "no newline")).value_or("?"), "no newline");
  EXPECT_EQ(read_first_line(dir.write("c", "")).value_or("?"), "");
  EXPECT_FALSE(read_first_line(dir.file("missing")));
}

TEST(ReadNumber, OneIntegerWithBlanksAround) {
  TempDir dir("file");
  EXPECT_EQ(read_number(dir.write("a", "950000\n")), 950000);
  EXPECT_EQ(read_number(dir.write("b", " -1 ")), -1);
  EXPECT_EQ(read_number(dir.write("c", "9223372036854775807")), INT64_MAX);
}

TEST(ReadNumber, AnythingElseIsNoNumber) {
  TempDir dir("file");
  for (const char* text : {"", "\n", "12 kB", "0x10", "1.5", "9223372036854775808", "+-1"}) {
    EXPECT_EQ(read_number(dir.write("f", text)), std::nullopt) << "'" << text << "'";
  }
  EXPECT_EQ(read_number(dir.file("missing")), std::nullopt);
}

TEST(ReadFile, KeepsErrnoOfTheFailure) {
  errno = 0;
  EXPECT_FALSE(read_file("/nonexistent/xrunlab-file"));
  EXPECT_EQ(errno, ENOENT);
}

}  // namespace
}  // namespace xrunlab

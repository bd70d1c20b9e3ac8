// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::read_text;
using testing_support::TempDir;

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") out.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ino_t inode_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST(WriteFileAtomic, WritesTheContentExactly) {
  TempDir dir("atomic");
  const std::string path = dir.file("run.json");
  const std::string content("{\n  \"a\": 1\n}\n\0binary\xff", 22);
  write_file_atomic(path, content);
  EXPECT_EQ(read_text(path), content);
  EXPECT_EQ(names_in(dir.str()), std::vector<std::string>{"run.json"}) << "no temporary left";
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(
      st.st_mode & 0777, 0644 & ~[] {
        const mode_t m = ::umask(0);
        ::umask(m);
        return m;
      }());
}

TEST(WriteFileAtomic, AnEmptyFileToo) {
  TempDir dir("atomic");
  write_file_atomic(dir.file("empty"), "");
  EXPECT_EQ(read_text(dir.file("empty")), "");
}

// A reader that opened the old file keeps reading the old content: the new file replaced it by
// rename, it was not rewritten in place (which a crash could leave half written).
TEST(WriteFileAtomic, ReplacesByRenameNeverInPlace) {
  TempDir dir("atomic");
  const std::string path = dir.write("summary.txt", "old content\n");
  const ino_t before = inode_of(path);
  const int reader = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  write_file_atomic(path, "new\n");
  EXPECT_EQ(read_text(path), "new\n");
  EXPECT_NE(inode_of(path), before);
  char buf[64] = {};
  EXPECT_EQ(::pread(reader, buf, sizeof buf, 0), 12);
  EXPECT_EQ(std::string(buf), "old content\n");
  ::close(reader);
  EXPECT_EQ(names_in(dir.str()), std::vector<std::string>{"summary.txt"});
}

TEST(WriteFileAtomic, AMissingFolderIsAnOutputErrorNamingThePath) {
  TempDir dir("atomic");
  const std::string path = dir.file("no-such-folder/run.json");
  try {
    write_file_atomic(path, "x");
    ADD_FAILURE() << "written into a folder that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_EQ(std::string(e.what()), "cannot create '" + path +
                                         "': No such file or directory (choose a writable folder "
                                         "with --output)");
  }
  EXPECT_EQ(names_in(dir.str()), std::vector<std::string>{});
}

// The rename fails (the target is a non-empty folder): the old target is untouched and the
// temporary file is removed.
TEST(WriteFileAtomic, AFailedRenameLeavesNoTemporaryAndTheTargetAsItWas) {
  TempDir dir("atomic");
  const std::string path = dir.file("target");
  dir.write("target/keep", "kept");
  try {
    write_file_atomic(path, "x");
    ADD_FAILURE() << "replaced a folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cannot rename into '" + path + "': ", 0), 0u) << what;
  }
  EXPECT_EQ(names_in(dir.str()), std::vector<std::string>{"target"});
  EXPECT_EQ(read_text(dir.file("target/keep")), "kept");
}

TEST(WriteFileAtomic, AnUnwritableFolderIsAnOutputError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  TempDir dir("atomic");
  ASSERT_EQ(::chmod(dir.str().c_str(), 0555), 0);
  const std::string path = dir.file("run.json");
  try {
    write_file_atomic(path, "x");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("'" + path + "': Permission denied"), std::string::npos)
        << e.what();
  }
  ::chmod(dir.str().c_str(), 0755);
  EXPECT_EQ(names_in(dir.str()), std::vector<std::string>{});
}

// The attack on the temporary name: it was "<file>.tmp.<pid>", so anyone who could write in the
// folder planted a link there and root wrote the results through it into the link's target.
// The name is random now and created with O_EXCL: the planted link is never opened.
TEST(WriteFileAtomic, ALinkPlantedAtTheOldTemporaryNameIsNeverWrittenThrough) {
  TempDir dir("atomic");
  const std::string victim = dir.write("victim", "precious");
  const std::string target = dir.file("run.json");
  ASSERT_EQ(::symlink(victim.c_str(), (target + ".tmp." + std::to_string(::getpid())).c_str()), 0);
  write_file_atomic(target, "{}");
  EXPECT_EQ(read_text(victim), "precious");
  EXPECT_EQ(read_text(target), "{}");
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// A root run writes only into folders nobody but root and the invoking user can change, and
// never follows or truncates a name someone else put where its file goes.
#include "engine/system/output_folder.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

constexpr uid_t kOther = 65534;  // nobody: the other local user
const FolderTrust kRootOnly{{0}};

std::string content_of(const std::string& path) {
  std::string s(256, '\0');
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "<cannot open>";
  const ssize_t n = ::read(fd, s.data(), s.size());
  ::close(fd);
  s.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return s;
}

void make_folder(const std::string& path, mode_t mode, uid_t owner) {
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0) << path;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
  ASSERT_EQ(::chown(path.c_str(), owner, owner), 0);
}

// The folders of a TempDir are root's and 0700 (mkdtemp); /tmp is root's, sticky.
TEST(OutputFolder, RootsOwnFoldersAndStickyTmpPass) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir("outfolder");
  EXPECT_EQ(untrusted_output_folder(dir.str(), kRootOnly), "");
  EXPECT_EQ(untrusted_output_folder(dir.file("not/made/yet"), kRootOnly), "")
      << "the missing part is made by root itself";
  make_folder(dir.file("sticky"), 01777, 0);
  EXPECT_EQ(untrusted_output_folder(dir.file("sticky/x"), kRootOnly), "")
      << "others cannot rename what root makes in a sticky folder of root";
  make_folder(dir.file("user"), 0755, kOther);
  EXPECT_EQ(untrusted_output_folder(dir.file("user/x"), FolderTrust{{0, kOther}}), "")
      << "the invoking user's own folder";
}

TEST(OutputFolder, AFolderAnotherUserOwnsOrCanWriteIsNamed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir("outfolder");
  make_folder(dir.file("theirs"), 0755, kOther);
  const std::string why = untrusted_output_folder(dir.file("theirs/results"), kRootOnly);
  EXPECT_NE(why.find("'" + dir.file("theirs") + "'"), std::string::npos) << why;
  EXPECT_NE(why.find("uid 65534"), std::string::npos) << why;
  make_folder(dir.file("open"), 0777, 0);
  EXPECT_NE(untrusted_output_folder(dir.file("open"), kRootOnly).find("mode 0777"),
            std::string::npos)
      << "root's, but anyone may rename in it";
  make_folder(dir.file("group"), 0775, 0);
  ASSERT_EQ(::chown(dir.file("group").c_str(), 0, kOther), 0);
  EXPECT_NE(untrusted_output_folder(dir.file("group"), kRootOnly), "") << "group-writable";
  make_folder(dir.file("sticky-theirs"), 01777, kOther);
  EXPECT_NE(untrusted_output_folder(dir.file("sticky-theirs"), kRootOnly), "")
      << "sticky, but its owner can rename anything in it";
  // Deeper below an untrusted folder: the untrusted one is named, not the last.
  make_folder(dir.file("open/mine"), 0755, 0);
  EXPECT_NE(untrusted_output_folder(dir.file("open/mine/x"), kRootOnly)
                .find("'" + dir.file("open") + "'"),
            std::string::npos);
}

// The links are resolved as the kernel does: their target's folders are checked too, and a link
// another user owns is refused outright.
TEST(OutputFolder, SymbolicLinksAreFollowedAndChecked) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir("outfolder");
  make_folder(dir.file("open"), 0777, 0);
  make_folder(dir.file("safe"), 0755, 0);
  ASSERT_EQ(::symlink(dir.file("open").c_str(), dir.file("to-open").c_str()), 0);
  ASSERT_EQ(::symlink("safe", dir.file("to-safe").c_str()), 0);
  EXPECT_NE(
      untrusted_output_folder(dir.file("to-open/x"), kRootOnly).find("'" + dir.file("open") + "'"),
      std::string::npos);
  EXPECT_EQ(untrusted_output_folder(dir.file("to-safe/x"), kRootOnly), "");
  EXPECT_EQ(untrusted_output_folder(dir.file("safe/../to-safe/./x"), kRootOnly), "");
  ASSERT_EQ(::symlink("safe", dir.file("their-link").c_str()), 0);
  ASSERT_EQ(::lchown(dir.file("their-link").c_str(), kOther, kOther), 0);
  EXPECT_NE(untrusted_output_folder(dir.file("their-link/x"), kRootOnly).find("symbolic link"),
            std::string::npos);
  ASSERT_EQ(::symlink("loop", dir.file("loop").c_str()), 0);
  EXPECT_NE(untrusted_output_folder(dir.file("loop/x"), kRootOnly), "");
}

TEST(OutputFolder, CheckThrowsOneOutputErrorLineForRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir("outfolder");
  make_folder(dir.file("theirs"), 0777, kOther);
  try {
    check_output_folder(dir.file("theirs/run"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find(dir.file("theirs")), std::string::npos) << what;
    EXPECT_NE(what.find("--output"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(check_output_folder(dir.file("run")));
}

// The attack on a file name: a link planted where the run's file goes. Before, root followed it
// and truncated the target; now the open fails and the target keeps its content.
TEST(OpenOutputFile, NeverFollowsALinkNorTruncatesAnotherUsersFile) {
  TempDir dir("outfile");
  const std::string victim = dir.write("victim", "precious");
  ASSERT_EQ(::symlink(victim.c_str(), dir.file("jackd.log").c_str()), 0);
  errno = 0;
  EXPECT_EQ(open_output_file(dir.file("jackd.log")), -1);
  EXPECT_EQ(errno, ELOOP);
  EXPECT_EQ(content_of(victim), "precious");
  // A hard link to the victim (another name for the same file): not reused either.
  ASSERT_EQ(::link(victim.c_str(), dir.file("client.log").c_str()), 0);
  EXPECT_EQ(open_output_file(dir.file("client.log")), -1);
  EXPECT_EQ(content_of(victim), "precious");
  if (::geteuid() == 0) {
    const std::string theirs = dir.write("theirs.log", "theirs");
    ASSERT_EQ(::chown(theirs.c_str(), kOther, kOther), 0);
    EXPECT_EQ(open_output_file(theirs), -1);
    EXPECT_EQ(content_of(theirs), "theirs");
  }
}

TEST(OpenOutputFile, CreatesNewFilesAndReusesItsOwn) {
  TempDir dir("outfile");
  int fd = open_output_file(dir.file("a.log"));
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "first", 5), 5);
  ::close(fd);
  fd = open_output_file(dir.file("a.log"), /*append=*/true);
  ASSERT_GE(fd, 0) << "a retried start reuses its own file";
  ASSERT_EQ(::write(fd, "2nd", 3), 3);
  ::close(fd);
  EXPECT_EQ(content_of(dir.file("a.log")), "2nd") << "truncated, then written";
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("a.log").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u & ~static_cast<unsigned>(::umask(022)));
}

}  // namespace
}  // namespace xrunlab

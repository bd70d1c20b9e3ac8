// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/shm_object.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

std::string unique_name(const char* what) {
  return "/xrunlab-test-" + std::string(what) + "-" + std::to_string(::getpid());
}

bool exists(const std::string& name) {
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

TEST(ShmObject, ANewObjectIsZeroFilledPrivateAndMapped) {
  const std::string name = unique_name("new");
  const size_t bytes = 3 * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  auto* p = static_cast<unsigned char*>(create_shm_object(name, bytes, "the test's object"));
  ASSERT_NE(p, nullptr);
  size_t nonzero = 0;
  for (size_t i = 0; i < bytes; ++i) nonzero += p[i] != 0 ? 1 : 0;
  EXPECT_EQ(nonzero, 0u);
  p[bytes - 1] = 7;  // writable to its last byte
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  ::close(fd);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "this user's only";
  EXPECT_EQ(static_cast<size_t>(st.st_size), bytes);
  ::munmap(p, bytes);
  ::shm_unlink(name.c_str());
}

TEST(ShmObject, ANameInUseIsAnErrorThatNamesItAndLeavesTheOtherObjectAlone) {
  const std::string name = unique_name("taken");
  void* first = create_shm_object(name, 4096, "the first object");
  try {
    create_shm_object(name, 4096, "the cycle table's shared memory object");
    ADD_FAILURE() << "an object whose name is in use was shared";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_EQ(std::string(e.what()),
              "cannot create the cycle table's shared memory object " + name + ": File exists");
  }
  EXPECT_TRUE(exists(name)) << "the first object's name is not removed";
  ::munmap(first, 4096);
  ::shm_unlink(name.c_str());
  EXPECT_FALSE(exists(name));
}

// A full /dev/shm (a 64 KiB tmpfs mounted over it in a mount namespace of a child's own): the
// object is refused with one error saying so. Before, ftruncate and mmap succeeded on the empty
// tmpfs and the first write into the mapping killed the process with SIGBUS.
TEST(ShmObject, AFullDevShmIsAnErrorNotASigbus) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (a mount namespace)";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=64k") != 0) {
      ::_exit(3);  // no namespace here: said below
    }
    try {
      void* p = create_shm_object("/xrunlab-test-full", size_t{1} << 20, "the test object");
      std::memset(p, 1, size_t{1} << 20);  // SIGBUS here when the pages were not reserved
      ::_exit(1);
    } catch (const Error& e) {
      const std::string what = e.what();
      ::_exit(e.code() == ExitCode::kOutput && what.find("/dev/shm is full") != std::string::npos
                  ? 0
                  : 2);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) GTEST_SKIP() << "no mount namespace here";
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no error at all, 2: not the full-/dev/shm error";
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// ShmFile and ShmMapping (clients/drain/shm_file.hpp) on real POSIX shared-memory objects.
#include "clients/drain/shm_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace xrunlab {
namespace {

// A shared-memory object of `size` bytes holding "0123456789..." (byte i = '0' + i % 10),
// removed at the end of the test.
class Object {
 public:
  explicit Object(size_t size) : name_("/xrunlab-shm-file-test-" + std::to_string(::getpid())) {
    ::shm_unlink(name_.c_str());
    const int fd = ::shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw std::runtime_error("shm_open " + name_);
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>('0' + i % 10);
    const bool ok = ::write(fd, bytes.data(), size) == static_cast<ssize_t>(size);
    ::close(fd);
    if (!ok) throw std::runtime_error("write " + name_);
  }
  ~Object() { ::shm_unlink(name_.c_str()); }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ShmFile, AMissingObjectIsAnErrorNamingIt) {
  const std::string m =
      message_of([] { ShmFile("/xrunlab-shm-file-test-none", false, "the thing 'x'"); });
  EXPECT_EQ(m.rfind("cannot open the thing 'x': ", 0), 0u) << m;
}

TEST(ShmFile, SizeReadAndMapping) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Object o(2 * page);
  const ShmFile f(o.name(), false, "the object");
  EXPECT_EQ(f.size(), 2 * page);
  char header[4] = {};
  f.read_at(header, sizeof header, 3, "the header");
  EXPECT_EQ(std::string(header, 4), "3456");
  const ShmMapping second = f.map(page, static_cast<off_t>(page));
  ASSERT_NE(second.data(), nullptr);
  EXPECT_EQ(second.bytes(), page);
  EXPECT_EQ(static_cast<const char*>(second.data())[0], static_cast<char>('0' + page % 10));
  EXPECT_EQ(std::string(f.error("is odd").what()), "the object is odd");
}

TEST(ShmFile, AReadPastTheEndIsAnErrorNamingThePart) {
  Object o(16);
  const ShmFile f(o.name(), false, "the object");
  char buf[32];
  const std::string m = message_of([&] { f.read_at(buf, sizeof buf, 0, "the header"); });
  EXPECT_EQ(m.rfind("cannot read the header of the object: ", 0), 0u) << m;
}

TEST(ShmFile, AWritableMappingWritesTheObjectAndOutlivesTheFile) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Object o(page);
  ShmMapping m;
  {
    const ShmFile f(o.name(), true, "the object");
    m = f.map(page);
  }
  static_cast<char*>(m.data())[0] = 'X';
  const ShmFile again(o.name(), false, "the object");
  char c = 0;
  again.read_at(&c, 1, 0, "the first byte");
  EXPECT_EQ(c, 'X');
  // Moved from: the source no longer owns it, the destination unmaps it once.
  ShmMapping moved = std::move(m);
  EXPECT_EQ(m.data(), nullptr);  // NOLINT(bugprone-use-after-move): checks the moved-from state
  EXPECT_NE(moved.data(), nullptr);
}

TEST(ShmFile, AReadOnlyMappingCannotBeMadeWritable) {
  Object o(16);
  const ShmFile f(o.name(), false, "the object");
  const ShmMapping m = f.map(16);
  // Read-only object, read-only mapping: mprotect to write is refused by the kernel.
  EXPECT_NE(::mprotect(m.data(), 16, PROT_READ | PROT_WRITE), 0);
}

}  // namespace
}  // namespace xrunlab

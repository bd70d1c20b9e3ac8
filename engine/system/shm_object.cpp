// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/shm_object.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {

void* create_shm_object(const std::string& name, size_t bytes, const std::string& what) {
  auto fail = [&](const char* verb, int err) {
    return Error(ExitCode::kOutput,
                 "cannot " + std::string(verb) + " " + what + " " + name + ": " + errno_text(err));
  };
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) throw fail("create", errno);
  const char* failed = nullptr;
  void* p = MAP_FAILED;
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    failed = "size";
  } else {
    p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) failed = "map";
  }
  const int err = errno;
  ::close(fd);
  if (failed != nullptr) {
    ::shm_unlink(name.c_str());
    throw fail(failed, err);
  }
  return p;
}

}  // namespace xrunlab

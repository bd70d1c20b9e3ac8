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
                 "cannot " + std::string(verb) + " " + what + " " + name + ": " + errno_text(err) +
                     (err == ENOSPC ? " (/dev/shm is full: free some of it)" : ""));
  };
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) throw fail("create", errno);
  const char* failed = nullptr;
  void* p = MAP_FAILED;
  // The pages are reserved now (tmpfs allocates them late): a full /dev/shm is this one error,
  // not a SIGBUS at the first write into the mapping.
  int err_alloc = 0;
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    failed = "size";
  } else if ((err_alloc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes))) != 0 &&
             err_alloc != EOPNOTSUPP && err_alloc != EINVAL) {
    failed = "reserve the memory of";
    errno = err_alloc;
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

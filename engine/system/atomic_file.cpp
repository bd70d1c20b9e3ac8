// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "engine/base/output_error.hpp"
#include "engine/system/file_owner.hpp"
#include "engine/system/output_folder.hpp"

namespace xrunlab {

void write_file_atomic(const std::string& path, const std::string& content) {
  // A new name nobody can guess, made by mkostemp with O_EXCL: a link or file someone put
  // there beforehand is never opened, let alone truncated.
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) throw OutputError("create", path, errno);
  // The temporary file goes on every failure: a partial file never stays, under any name.
  auto fail = [&](const char* what) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw OutputError(what, path, err);
  };
  if (::fchmod(fd, 0644) != 0) {  // mkostemp makes 0600; results are for everyone to read
    const int err = errno;
    ::close(fd);
    errno = err;
    fail("create");
  }
  size_t off = 0;
  while (off < content.size()) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;  // a write of nothing: no room for more
      const int err = errno;
      ::close(fd);
      errno = err;
      fail("write");
    }
    off += static_cast<size_t>(n);
  }
  // A file system that allocates late (ext4, XFS) may only say ENOSPC here, or at close.
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    fail("sync");
  }
  if (::close(fd) != 0) fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename into");
}

void write_output_file(const std::string& path, const std::string& content) {
  const size_t slash = path.rfind('/');
  check_output_folder(slash == std::string::npos ? "." : path.substr(0, slash + 1));
  write_file_atomic(path, content);
  hand_over_file(path);
}

}  // namespace xrunlab

#include "engine/system/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* what) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(ExitCode::kOutput, std::string("cannot ") + what + " '" + path +
                                       "': " + errno_text(err) +
                                       " (choose a writable folder with --output)");
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create");
  size_t off = 0;
  while (off < content.size()) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail("write");
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("sync");
  }
  if (::close(fd) != 0) fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename into");
}

}  // namespace xrunlab

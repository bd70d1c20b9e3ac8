// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What happens directly in one folder while a test watches it (inotify): the names of the
// entries created (IN_CREATE) or renamed into it (IN_MOVED_TO, write_file_atomic's rename of
// its temporary file), in the order the kernel reported them.
#include <sys/inotify.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace xrunlab::testing_support {

class FolderWatch {
 public:
  // `events`: IN_CREATE, IN_MOVED_TO, ... Throws when the folder cannot be watched.
  FolderWatch(const std::filesystem::path& dir, uint32_t events)
      : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ < 0 || ::inotify_add_watch(fd_, dir.c_str(), events) < 0) {
      throw std::runtime_error("cannot watch " + dir.string());
    }
  }
  FolderWatch(const FolderWatch&) = delete;
  FolderWatch& operator=(const FolderWatch&) = delete;
  ~FolderWatch() { ::close(fd_); }

  // The names of the events since the previous call.
  std::vector<std::string> names() {
    std::vector<std::string> out;
    alignas(inotify_event) char buf[8192];
    for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0;) {
      for (char* p = buf; p < buf + n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(p);
        if (e->len > 0) out.emplace_back(e->name);
        p += sizeof(inotify_event) + e->len;
      }
    }
    return out;
  }
  // How many events each name had since the previous call.
  std::map<std::string, int> counts() {
    std::map<std::string, int> out;
    for (const std::string& name : names()) ++out[name];
    return out;
  }

 private:
  int fd_;
};

}  // namespace xrunlab::testing_support

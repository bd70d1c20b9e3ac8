// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/scratch_folder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "engine/base/errno_text.hpp"

namespace xrunlab {
namespace load_tool {

std::string check_scratch(const std::string& dir, bool* exists) {
  *exists = false;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return "--scratch '" + dir + "': " + errno_text(errno);
  }
  *exists = true;
  if (S_ISLNK(st.st_mode)) return "--scratch '" + dir + "' is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "--scratch '" + dir + "' is not a folder";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return "--scratch '" + dir + "': " + errno_text(errno);
  bool empty = true;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  }
  ::closedir(d);
  if (!empty) return "--scratch '" + dir + "' is not empty (it is removed when the load stops)";
  return "";
}

std::string mkdir_p(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') {
      const std::string part = dir.substr(0, pos);
      if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
        return "cannot create '" + part + "': " + errno_text(errno);
      }
    }
  }
  return "";
}

std::optional<std::string> canonical(const std::string& path) {
  char* r = ::realpath(path.c_str(), nullptr);
  if (r == nullptr) return std::nullopt;
  std::string s = r;
  std::free(r);
  return s;
}

}  // namespace load_tool

namespace {

std::string remove_contents(int dir_fd, const std::string& path, dev_t device, int depth) {
  if (depth > 256) return "'" + path + "' is nested too deeply";
  const int list_fd = ::dup(dir_fd);
  if (list_fd < 0) return "cannot list '" + path + "': " + errno_text(errno);
  DIR* d = ::fdopendir(list_fd);
  if (d == nullptr) {
    ::close(list_fd);
    return "cannot list '" + path + "': " + errno_text(errno);
  }
  std::vector<std::string> names;  // read the whole listing first, then change the folder
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.emplace_back(e->d_name);
    }
  }
  ::closedir(d);
  std::string first_error;
  auto note = [&first_error](std::string e) {
    if (first_error.empty()) first_error = std::move(e);
  };
  for (const auto& name : names) {
    const std::string child = path + "/" + name;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) note("cannot inspect '" + child + "': " + errno_text(errno));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (st.st_dev != device) {
        note("not removing '" + child + "': another file system is mounted there");
        continue;
      }
      const int sub =
          ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        note("cannot open '" + child + "': " + errno_text(errno));
        continue;
      }
      std::string e = remove_contents(sub, child, device, depth + 1);
      ::close(sub);
      if (!e.empty()) {
        note(std::move(e));
        continue;
      }
      if (::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        note("cannot remove '" + child + "': " + errno_text(errno));
      }
    } else if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT) {
      note("cannot remove '" + child + "': " + errno_text(errno));
    }
  }
  return first_error;
}

}  // namespace

std::string remove_tree(const std::string& dir) {
  if (dir.empty()) return "refusing to remove an empty path";
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return "cannot inspect '" + dir + "': " + errno_text(errno);
  }
  if (S_ISLNK(st.st_mode)) return "not removing '" + dir + "': it is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "not removing '" + dir + "': it is not a folder";
  const auto real = load_tool::canonical(dir);
  if (real && *real == "/") return "refusing to remove '/'";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "cannot open '" + dir + "': " + errno_text(errno);
  std::string e = remove_contents(fd, dir, st.st_dev, 0);
  ::close(fd);
  if (!e.empty()) return e;
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    return "cannot remove '" + dir + "': " + errno_text(errno);
  }
  return "";
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/remove_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "engine/base/errno_text.hpp"

namespace xrunlab {
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

// remove_tree, and with `owner` remove_owned_tree.
std::string remove_tree_of(const std::string& dir, std::optional<uid_t> owner) {
  if (dir.empty()) return "refusing to remove an empty path";
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return "cannot inspect '" + dir + "': " + errno_text(errno);
  }
  const std::string by_hand = owner ? "; remove it by hand if it is not in use" : "";
  if (S_ISLNK(st.st_mode)) return "not removing '" + dir + "': it is a symbolic link" + by_hand;
  if (!S_ISDIR(st.st_mode)) return "not removing '" + dir + "': it is not a folder" + by_hand;
  auto foreign = [&](uid_t uid) {
    return "not removing '" + dir + "': it belongs to uid " + std::to_string(uid) +
           ", not to uid " + std::to_string(*owner) + by_hand;
  };
  if (owner && st.st_uid != *owner) return foreign(st.st_uid);
  if (char* real = ::realpath(dir.c_str(), nullptr)) {
    const bool root = std::strcmp(real, "/") == 0;
    std::free(real);
    if (root) return "refusing to remove '/'";
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "cannot open '" + dir + "': " + errno_text(errno);
  // What was opened is what was looked at (not a folder put there meanwhile).
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino) {
    ::close(fd);
    return "not removing '" + dir + "': it changed while being looked at" + by_hand;
  }
  if (owner && opened.st_uid != *owner) {
    ::close(fd);
    return foreign(opened.st_uid);
  }
  std::string e = remove_contents(fd, dir, st.st_dev, 0);
  ::close(fd);
  if (!e.empty()) return e;
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    return "cannot remove '" + dir + "': " + errno_text(errno);
  }
  return "";
}

}  // namespace

std::string remove_tree(const std::string& dir) {
  return remove_tree_of(dir, std::nullopt);
}

std::string remove_owned_tree(const std::string& dir, uid_t owner) {
  return remove_tree_of(dir, owner);
}

bool remove_owned_file(const std::string& path, uid_t owner) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode) || st.st_uid != owner) return false;
  return ::unlink(path.c_str()) == 0;
}

}  // namespace xrunlab

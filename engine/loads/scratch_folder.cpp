// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/scratch_folder.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

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
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/output_error.hpp"

#include <cerrno>

#include "engine/base/errno_text.hpp"

namespace xrunlab {

bool is_disk_full(int err) {
  return err == ENOSPC || err == EDQUOT;
}

std::string output_error_text(const std::string& what, const std::string& path, int err) {
  if (is_disk_full(err)) {
    return "cannot " + what + " '" + path + "': the disk is full (" + errno_text(err) +
           "); free some space or choose another folder with --output";
  }
  return "cannot " + what + " '" + path + "': " + errno_text(err) +
         " (choose a writable folder with --output)";
}

}  // namespace xrunlab

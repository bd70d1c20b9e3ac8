// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The one error of a file or folder under the output that cannot be written, with its errno, so
// that a caller can tell "the disk is full" (ENOSPC, EDQUOT) from the rest. Non-realtime.
#include <string>

#include "engine/base/errors.hpp"

namespace xrunlab {

// ENOSPC or EDQUOT: no room left for the write (the disk, or the user's quota, is full).
bool is_disk_full(int err);

// "cannot WHAT 'PATH': the disk is full (No space left on device); free some space or choose
// another folder with --output" for a full disk, else "cannot WHAT 'PATH': <errno text> (choose
// a writable folder with --output)".
std::string output_error_text(const std::string& what, const std::string& path, int err);

class OutputError : public Error {
 public:
  // `what` is the verb ("write", "create folder"), `path` the file or folder at fault.
  OutputError(const std::string& what, const std::string& path, int err)
      : Error(ExitCode::kOutput, output_error_text(what, path, err)), err_(err), path_(path) {}
  int err() const { return err_; }
  const std::string& path() const { return path_; }
  bool disk_full() const { return is_disk_full(err_); }

 private:
  int err_;
  std::string path_;
};

}  // namespace xrunlab

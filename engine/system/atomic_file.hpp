// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Writes a whole file atomically: a temporary file in the same folder (a random name created
// with O_EXCL), fsync, rename.
// A reader (or a crash) sees the old file or the new one, never half of one.
#include <string>

namespace xrunlab {

// Throws xrunlab::OutputError (engine/base/output_error.hpp; Error(ExitCode::kOutput)) naming
// the path and, for ENOSPC/EDQUOT, saying "the disk is full". Every error of open, write, fsync,
// close and rename is checked; on any of them the temporary file is removed and the old file (if
// any) is left as it was.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace xrunlab

namespace xrunlab {

// write_file_atomic for a file of the user's results (a run, campaign, sweep or report file): as
// root, its folder is checked first (check_output_folder: one another user could change is
// refused with Error(ExitCode::kOutput)); the file is also recorded for the hand-over to the user
// who ran sudo (engine/system/file_owner.hpp).
void write_output_file(const std::string& path, const std::string& content);

}  // namespace xrunlab

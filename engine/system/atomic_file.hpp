#pragma once
// Writes a whole file atomically: a temporary file in the same folder, fsync, rename.
// A reader (or a crash) sees the old file or the new one, never half of one.
#include <string>

namespace xrunlab {

// Throws xrunlab::Error(ExitCode::kOutput) naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace xrunlab

#pragma once
// The run folder's place: OUTPUT/LABEL/<UTC timestamp>/, made before anything is measured.
// Non-realtime.
#include <string>

namespace xrunlab {

// The current UTC time formatted with strftime's `format`.
std::string utc_now(const char* format);
inline std::string utc_now_iso() {
  return utc_now("%Y-%m-%dT%H:%M:%SZ");
}

// mkdir -p `path`, then checks it is writable. Throws Error(kOutput) naming the folder and
// --output.
void make_dirs(const std::string& path);

// Creates OUTPUT/LABEL/<UTC timestamp>/ (with -2, -3 ... when that exists already) and its
// clients/ folder; returns its path. Throws Error(kOutput) as make_dirs.
std::string create_run_dir(const std::string& output, const std::string& label);

}  // namespace xrunlab

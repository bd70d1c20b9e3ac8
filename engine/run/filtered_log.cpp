// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/filtered_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/system/output_folder.hpp"

namespace xrunlab {

FilteredLog::~FilteredLog() {
  close();
}

void FilteredLog::open(const std::string& path, bool full) {
  close();
  fd_ = open_output_file(path);
  if (fd_ < 0)
    throw Error(ExitCode::kOutput, "cannot create '" + path + "': " + std::strerror(errno));
  filter_ = LogFilter(full);
  filter_.end_startup();
}

void FilteredLog::on_line(std::string_view line) {
  const LogFilter::Verdict v = filter_.add(line);
  if (fd_ < 0 || !v.keep) return;
  std::string text = std::string(line) + "\n";
  if (v.last_of_kind) text += LogFilter::note(v.kind) + "\n";
  write_all(fd_, text);
}

void FilteredLog::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace xrunlab

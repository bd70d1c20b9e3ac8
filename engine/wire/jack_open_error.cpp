// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/jack_open_error.hpp"

#include <fmt/format.h>

namespace xrunlab {

std::string jack_open_failure(const std::string& server, unsigned status,
                              const std::vector<std::string>& errors, unsigned uid) {
  std::string out =
      fmt::format("cannot connect to JACK server '{}' (status {:#x})", server, status);
  const std::string* db = nullptr;
  for (const std::string& e : errors) {
    if (e.find("DB environment") != std::string::npos || e.rfind("BDB", 0) == 0) {
      db = &e;
      if (e.find("DB environment") != std::string::npos) break;  // the summary line
    }
  }
  if (db != nullptr) {
    return out + fmt::format(
                     ": JACK's metadata database /dev/shm/jack_db-{} could not be opened "
                     "(libjack: '{}'); every JACK program of this user shares it and its lock "
                     "region runs out with too many at once: run fewer clients beside the other "
                     "JACK programs, or stop them all so that it is made anew",
                     uid, *db);
  }
  if (!errors.empty()) return out + ": libjack: '" + errors.front() + "'; is it running?";
  return out + "; is it running?";
}

}  // namespace xrunlab

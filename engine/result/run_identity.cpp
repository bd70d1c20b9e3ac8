// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/run_identity.hpp"

#include <fmt/format.h>
#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/text.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

std::string new_run_id() {
  std::array<uint8_t, 16> b{};
  size_t got = 0;
  while (got < b.size()) {
    const ssize_t n = ::getrandom(b.data() + got, b.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ExitCode::kRunFailed, "getrandom (a run's id): " + errno_text(errno));
    got += static_cast<size_t>(n);
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string s;
  s.reserve(36);
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

std::string run_identity(const RunResult& r) {
  if (!r.run_id.empty()) return r.run_id;
  std::string key = r.host ? r.host->hostname : std::string();
  key += '\n';
  key += r.started_utc;
  key += '\n';
  key += r.server_name;
  return fmt::format("h-{:016x}", fnv1a_64(key));
}

}  // namespace xrunlab

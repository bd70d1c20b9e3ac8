// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A JACK2 server registry image (/dev/shm/jack-shm-registry) for tests: laid out as JACK2 1.9.x
// writes it, 6 header words, then 8 entries of pid + 257 characters of "jack-<uid>:<name>:".
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace xrunlab::testing_support {

inline std::string registry_image(const std::vector<std::pair<int32_t, std::string>>& servers) {
  constexpr size_t kEntry = 264, kHeader = 24 + 8 * kEntry;
  std::string img(kHeader + 64, '\0');
  const uint32_t words[6] = {0x4a41434b, 0, 1, 70744, kHeader, 268};
  std::memcpy(img.data(), words, sizeof words);
  for (size_t i = 0; i < servers.size(); ++i) {
    std::memcpy(img.data() + 24 + i * kEntry, &servers[i].first, 4);
    std::memcpy(img.data() + 24 + i * kEntry + 4, servers[i].second.data(),
                servers[i].second.size());
  }
  return img;
}

}  // namespace xrunlab::testing_support

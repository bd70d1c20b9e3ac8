// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/base64.hpp"

#include <cstdint>

namespace xrunlab {

std::string base64_encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = bytes.size() - i < 3 ? bytes.size() - i : 3;  // bytes in this group
    uint32_t group = 0;
    for (size_t k = 0; k < 3; ++k) {
      const uint32_t b = k < n ? static_cast<unsigned char>(bytes[i + k]) : 0U;
      group = (group << 8U) | b;
    }
    for (size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 0x3FU] : '=';
    }
  }
  return out;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Text helpers the report writers share (engine/base/text.hpp has the general ones). Pure.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace xrunlab {

// `s` on one line whatever a client or the OS reported: CR and LF become spaces.
inline std::string one_line(std::string_view s) {
  std::string out(s);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

// o[key] when o is an object and that member a string, else `fallback`: the free-form parts of
// the result model (backend) hold JSON.
inline std::string json_text(const nlohmann::json& o, const char* key,
                             std::string_view fallback = {}) {
  if (!o.is_object()) return std::string(fallback);
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

}  // namespace xrunlab

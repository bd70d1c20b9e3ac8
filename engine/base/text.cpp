// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace xrunlab {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const size_t last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    if (end == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<std::string_view> key_value(std::string_view text, std::string_view key) {
  for (std::string_view line : lines(text)) {
    if (line.size() > key.size() && starts_with(line, key) && line[key.size()] == ':') {
      return trim(line.substr(key.size() + 1));
    }
  }
  return std::nullopt;
}

std::string markup_escape(std::string_view s, char control_as) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const bool control =
            (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
            c == '\x7f';
        out += control ? control_as : c;
      }
    }
  }
  return out;
}

uint32_t fnv1a_32(std::string_view s) {
  uint32_t h = 2166136261u;
  for (const char ch : s) {
    h ^= static_cast<uint8_t>(ch);
    h *= 16777619u;
  }
  return h;
}

uint64_t fnv1a_64(std::string_view s) {
  uint64_t h = 14695981039346656037ULL;
  for (const char ch : s) {
    h ^= static_cast<uint8_t>(ch);
    h *= 1099511628211ULL;
  }
  return h;
}

std::string aligned_columns(const std::vector<std::vector<std::string>>& rows, size_t right_from) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "   ";
    for (size_t k = 0; k < row.size(); ++k) {
      const bool last = k + 1 == row.size();
      if (k >= right_from) {
        line += fmt::format("{:>{}}{}", row[k], width[k], last ? "" : "  ");
      } else {
        line += fmt::format("{:<{}}", row[k], last ? 0 : width[k] + 2);
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace xrunlab

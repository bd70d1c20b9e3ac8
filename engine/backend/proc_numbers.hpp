// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Whole decimal numbers in /proc texts and the numbered entries of /proc folders, as the ALSA
// card units read them (alsa_cards, card_irqs, pcm_holders); the backend's own, not a general
// number parser (engine/base/file.hpp's read_number takes blanks and a sign, these do not).
// Non-realtime.
#include <sys/types.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace xrunlab {

// One or more ASCII digits, nothing else.
inline bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// A whole decimal number; nullopt on anything else (sign, blanks, overflow).
template <typename T>
std::optional<T> parse_number(std::string_view s) {
  if (!all_digits(s)) return std::nullopt;
  T value{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// The numeric entries of a /proc-like folder, ascending (the pids of /proc, the descriptors of
// /proc/PID/fd); empty when the folder cannot be opened.
std::vector<pid_t> numeric_entries(const std::string& dir);

}  // namespace xrunlab

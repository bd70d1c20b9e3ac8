// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Small text helpers, the one copy of each. Pure functions; views point into the argument.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

// Without leading and trailing spaces, tabs, CR and LF.
std::string_view trim(std::string_view s);

// The pieces between `sep`, empty ones kept: split("a,,b", ',') -> {"a", "", "b"};
// split("", ',') -> {""}.
std::vector<std::string_view> split(std::string_view s, char sep);

// The lines of `text` without their '\n' (and a '\r' before it); no empty last line for a
// trailing newline.
std::vector<std::string_view> lines(std::string_view text);

bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);
bool ends_with(std::string_view s, std::string_view suffix);

// The value of the first line "KEY:VALUE" of `text`, trimmed, as in /proc/PID/status
// ("CapEff:\t000001ffffffffff" -> "000001ffffffffff"); nullopt when no line starts with "KEY:".
std::optional<std::string_view> key_value(std::string_view text, std::string_view key);

// `s` as text in XML or HTML (JUnit files, report.html): & < > " ' as entities (&#39;, which
// both read), and each control character that XML 1.0 does not allow (all below 0x20 but tab,
// newline and carriage return) and DEL as `control_as`.
// Rows as columns padded to their widest cell (in bytes), each line indented by three spaces;
// columns from `right_from` on are right-aligned (numbers). Trailing spaces are dropped.
std::string aligned_columns(const std::vector<std::vector<std::string>>& rows, size_t right_from);

// FNV-1a of the bytes of `s` (32 and 64 bits): a short, stable name for settings (the same
// settings hash alike on every machine and version), never for security.
uint32_t fnv1a_32(std::string_view s);
uint64_t fnv1a_64(std::string_view s);

std::string markup_escape(std::string_view s, char control_as = '?');

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Reading files, the one copy of each reader. Writing goes through write_file_atomic
// (engine/system/atomic_file.hpp). Non-realtime.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xrunlab {

// The whole file, bytes as they are. nullopt when it cannot be opened or read; `why` (may be
// null) then says "cannot read PATH: <errno text>", and errno keeps the cause.
std::optional<std::string> read_file(const std::string& path, std::string* why = nullptr);

// The first line of a small file (/proc, /sys), without its newline; nullopt as read_file.
std::optional<std::string> read_first_line(const std::string& path, std::string* why = nullptr);

// The one decimal integer a small /proc, /sys or cgroup file holds ("950000\n", "-1"), blanks
// around it allowed; nullopt when the file cannot be read or holds anything else.
std::optional<int64_t> read_number(const std::string& path);

// Writes all of `bytes` to the descriptor, retrying after EINTR and short writes. False when a
// write fails (errno tells why; EPIPE when the reader is gone).
bool write_all(int fd, std::string_view bytes);

}  // namespace xrunlab

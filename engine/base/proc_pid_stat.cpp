// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/proc_pid_stat.hpp"

#include <charconv>
#include <system_error>

#include "engine/base/file.hpp"

namespace xrunlab {
namespace {

// The next blank-separated word of `rest`, or "" at the end.
std::string_view next_word(std::string_view& rest) {
  size_t start = 0;
  while (start < rest.size() && (rest[start] == ' ' || rest[start] == '\n')) ++start;
  size_t end = start;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != '\n') ++end;
  const std::string_view word = rest.substr(start, end - start);
  rest.remove_prefix(end);
  return word;
}

template <typename T>
bool to_number(std::string_view word, T* out) {
  if (word.empty()) return false;
  const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), *out);
  return ec == std::errc() && ptr == word.data() + word.size();
}

}  // namespace

std::optional<ProcPidStat> parse_proc_pid_stat(std::string_view text) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcPidStat s;
  std::string_view head = text.substr(0, open);
  if (!to_number(next_word(head), &s.pid)) return std::nullopt;
  s.comm = std::string(text.substr(open + 1, close - open - 1));

  std::string_view rest = text.substr(close + 1);
  const std::string_view state = next_word(rest);
  if (state.size() != 1) return std::nullopt;
  s.state = state[0];
  // Fields 4 to 22 are numbers (some signed); the ones not kept are still checked.
  for (int field = 4; field <= 22; ++field) {
    const std::string_view word = next_word(rest);
    int64_t value = 0;
    uint64_t unsigned_value = 0;
    const bool ok = to_number(word, &value) || to_number(word, &unsigned_value);
    if (!ok) return std::nullopt;
    switch (field) {
      case 4:
        s.ppid = static_cast<pid_t>(value);
        break;
      case 5:
        s.pgrp = static_cast<pid_t>(value);
        break;
      case 10:
        if (!to_number(word, &s.minflt)) return std::nullopt;
        break;
      case 12:
        if (!to_number(word, &s.majflt)) return std::nullopt;
        break;
      case 14:
        if (!to_number(word, &s.utime)) return std::nullopt;
        break;
      case 15:
        if (!to_number(word, &s.stime)) return std::nullopt;
        break;
      case 19:
        s.nice = value;
        break;
      case 22:
        if (!to_number(word, &s.starttime)) return std::nullopt;
        break;
      default:
        break;
    }
  }
  for (int field = 23; field <= 41; ++field) {
    const std::string_view word = next_word(rest);
    if (word.empty()) break;
    if (field == 39 && !to_number(word, &s.processor)) s.processor = -1;
    if (field == 40 && !to_number(word, &s.rt_priority)) s.rt_priority = -1;
    if (field == 41 && !to_number(word, &s.policy)) s.policy = -1;
  }
  return s;
}

std::optional<ProcPidStat> read_proc_pid_stat(pid_t pid, pid_t tid) {
  if (pid <= 0 || tid < 0) return std::nullopt;
  const std::string path =
      tid > 0 ? "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat"
              : "/proc/" + std::to_string(pid) + "/stat";
  const auto text = read_file(path);
  if (!text) return std::nullopt;
  return parse_proc_pid_stat(*text);
}

}  // namespace xrunlab

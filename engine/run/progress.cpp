// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

// ns -> whole usecs toward minus infinity (the summary's hops round the same way).
int64_t floor_us(int64_t ns) {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

constexpr const char* kClearToEnd = "\x1b[K";
constexpr std::string_view kPrefix = "xrunlab: ";

}  // namespace

std::string progress_text(const ProgressFigures& f) {
  const double elapsed = static_cast<double>(f.elapsed_s);
  // To the millisecond, so a fractional --duration leaves "0.3 s", not 0.2999999999999998.
  const double left = std::round(std::max(0.0, f.duration_s - elapsed) * 1000.0) / 1000.0;
  return fmt::format(
      "{}{}/{} s, {} s left | monitor xruns {} | xrun cycles {} | worst slack {}", kPrefix,
      f.elapsed_s, f.duration_s, left, f.monitor_xrun_events,
      f.xrun_cycles ? std::to_string(*f.xrun_cycles) : std::string("-"),
      f.slack_min_ns ? fmt::format("{} us", floor_us(*f.slack_min_ns)) : std::string("-"));
}

std::string progress_fit(const std::string& text, int columns) {
  if (columns <= 0) return text;
  // One column short of the width: text in the last column leaves some terminals about to wrap.
  const size_t limit = static_cast<size_t>(columns - 1);
  if (text.size() <= limit) return text;
  // The prefix goes first: on a terminal of 80 columns that keeps every figure.
  std::string_view rest(text);
  if (starts_with(rest, kPrefix)) rest.remove_prefix(kPrefix.size());
  if (rest.size() <= limit) return std::string(rest);
  const size_t field_end = rest.rfind(" | ", limit);
  if (field_end != std::string_view::npos && field_end > 0) {
    return std::string(rest.substr(0, field_end));
  }
  return std::string(rest.substr(0, limit));
}

int terminal_columns(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

bool ProgressLine::wanted(bool quiet, int fd) {
  return !quiet && ::isatty(fd) == 1;
}

void ProgressLine::show(const std::string& text, int columns) {
  if (!enabled_) return;
  std::fprintf(out_, "\r%s%s", progress_fit(text, columns).c_str(), kClearToEnd);
  std::fflush(out_);
  shown_ = true;
}

void ProgressLine::clear() noexcept {
  if (!shown_) return;
  std::fprintf(out_, "\r%s", kClearToEnd);
  std::fflush(out_);
  shown_ = false;
}

}  // namespace xrunlab

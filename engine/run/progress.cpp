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

std::string progress_bar(uint64_t elapsed_s, double duration_s, int width) {
  if (width <= 0) return "";
  const double share =
      duration_s > 0 ? std::clamp(static_cast<double>(elapsed_s) / duration_s, 0.0, 1.0) : 0.0;
  const auto filled = static_cast<size_t>(std::floor(share * width));
  return "[" + std::string(filled, '#') + std::string(static_cast<size_t>(width) - filled, '.') +
         "]";
}

std::string progress_text(const ProgressFigures& f, int bar_width) {
  const double elapsed = static_cast<double>(f.elapsed_s);
  // To the millisecond, so a fractional --duration leaves "0.3 s", not 0.2999999999999998.
  const double left = std::round(std::max(0.0, f.duration_s - elapsed) * 1000.0) / 1000.0;
  const std::string bar =
      bar_width > 0 ? progress_bar(f.elapsed_s, f.duration_s, bar_width) + " " : std::string();
  const std::string events = f.xrun_events
                                 ? fmt::format("xrun events {}", *f.xrun_events)
                                 : fmt::format("xrun events (monitor) {}", f.monitor_xrun_events);
  return fmt::format(
      "{}{}{}/{} s, {} s left | {} | worst slack {}", kPrefix, bar, f.elapsed_s, f.duration_s, left,
      events, f.slack_min_ns ? fmt::format("{} us", floor_us(*f.slack_min_ns)) : std::string("-"));
}

ProgressMode progress_mode(bool quiet, int fd) {
  if (quiet) return ProgressMode::kOff;
  return ::isatty(fd) == 1 ? ProgressMode::kTerminal : ProgressMode::kLines;
}

uint64_t plain_line_every_s(double duration_s) {
  const double tenth = std::isfinite(duration_s) ? duration_s / 10.0 : 0.0;
  return static_cast<uint64_t>(std::clamp(std::ceil(tenth), 10.0, 60.0));
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

void ProgressLine::line(const std::string& text) {
  if (!enabled_) return;
  clear();
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

void ProgressLine::clear() noexcept {
  if (!shown_) return;
  std::fprintf(out_, "\r%s", kClearToEnd);
  std::fflush(out_);
  shown_ = false;
}

}  // namespace xrunlab

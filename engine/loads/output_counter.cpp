// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/output_counter.hpp"

#include <charconv>

namespace xrunlab::load_tool {
namespace {

bool consume(std::string_view* s, std::string_view prefix) {
  if (s->substr(0, prefix.size()) != prefix) return false;
  s->remove_prefix(prefix.size());
  return true;
}

}  // namespace

bool parse_glxgears_line(std::string_view line, uint64_t* frames, double* seconds) {
  // "%d frames in %3.1f seconds = %6.3f FPS", as glxgears prints it.
  uint64_t n = 0;
  const auto [end_n, ec_n] = std::from_chars(line.data(), line.data() + line.size(), n);
  if (ec_n != std::errc() || end_n == line.data()) return false;
  std::string_view rest = line.substr(static_cast<size_t>(end_n - line.data()));
  if (!consume(&rest, " frames in ")) return false;
  double s = 0;
  const auto [end_s, ec_s] =
      std::from_chars(rest.data(), rest.data() + rest.size(), s, std::chars_format::fixed);
  if (ec_s != std::errc() || end_s == rest.data() || !(s >= 0)) return false;
  rest.remove_prefix(static_cast<size_t>(end_s - rest.data()));
  if (!consume(&rest, " seconds")) return false;
  *frames = n;
  *seconds = s;
  return true;
}

void OutputCounter::count_line(OutputCount* added) const {
  switch (kind_) {
    case OutputKind::kGlxgearsFrames: {
      uint64_t frames = 0;
      double seconds = 0;
      if (parse_glxgears_line(line_, &frames, &seconds)) {
        added->units += frames;
        added->seconds += seconds;
      }
      break;
    }
    case OutputKind::kTopRefreshes:
      if (std::string_view(line_).substr(0, 6) == "top - ") ++added->units;
      break;
  }
}

OutputCount OutputCounter::feed(std::string_view bytes) {
  OutputCount added;
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view part = bytes.substr(0, nl);
    if (line_.size() < kMaxLine) line_.append(part.substr(0, kMaxLine - line_.size()));
    if (nl == std::string_view::npos) break;  // the line goes on in the next read
    count_line(&added);
    line_.clear();
    bytes.remove_prefix(nl + 1);
  }
  total_.units += added.units;
  total_.seconds += added.seconds;
  return added;
}

}  // namespace xrunlab::load_tool

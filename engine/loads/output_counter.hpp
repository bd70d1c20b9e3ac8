// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What xrunlab-load reads from a program's stdout to count its throughput, as the output streams
// through a pipe: glxgears' "N frames in S seconds = F FPS" reports (the x11 load) and top's
// "top - " header lines, one per refresh (the top load). Reads come in any size and a line may
// be split across them; only the first kMaxLine bytes of each line are kept, so the memory used
// stays bounded whatever the program prints. Non-realtime.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

// Which program's output is counted, and how.
enum class OutputKind {
  // glxgears: the frames of its "N frames in S seconds" lines (one every ~5 s), and their S.
  kGlxgearsFrames,
  // top -b: the lines that begin with "top - ", the first line of each refresh.
  kTopRefreshes,
};

// What the lines seen so far reported.
struct OutputCount {
  uint64_t units = 0;  // frames drawn / refreshes
  double seconds = 0;  // glxgears: the sum of its intervals' S; top: not known here (0)
};

// Counts as the output streams: feed() each read as it comes.
class OutputCounter {
 public:
  static constexpr size_t kMaxLine = 128;  // bytes kept of a line; the rest is skipped

  explicit OutputCounter(OutputKind kind) : kind_(kind) {}

  // Adds what the lines that `bytes` completes report; returns that (the part of the total
  // these bytes added). A line without its '\n' yet waits for the next call.
  OutputCount feed(std::string_view bytes);
  const OutputCount& total() const { return total_; }

 private:
  void count_line(OutputCount* added) const;

  OutputKind kind_;
  std::string line_;  // the line being read, up to kMaxLine bytes
  OutputCount total_;
};

// One glxgears report line: true and *frames, *seconds when `line` is "N frames in S seconds..."
// with whole N and decimal S.
bool parse_glxgears_line(std::string_view line, uint64_t* frames, double* seconds);

}  // namespace xrunlab::load_tool

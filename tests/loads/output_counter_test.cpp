// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/output_counter.hpp"

#include <gtest/gtest.h>

#include <string>

namespace xrunlab::load_tool {
namespace {

// What glxgears printed under Xvfb on the development VM (two 5-s reports).
constexpr const char* kGears =
    "8251 frames in 5.0 seconds = 1650.064 FPS\n"
    "8176 frames in 5.0 seconds = 1635.055 FPS\n";

TEST(GlxgearsLine, ParsesFramesAndSeconds) {
  uint64_t frames = 0;
  double seconds = 0;
  ASSERT_TRUE(parse_glxgears_line("8251 frames in 5.0 seconds = 1650.064 FPS", &frames, &seconds));
  EXPECT_EQ(frames, 8251u);
  EXPECT_DOUBLE_EQ(seconds, 5.0);
  ASSERT_TRUE(parse_glxgears_line("0 frames in 12.5 seconds =  0.000 FPS", &frames, &seconds));
  EXPECT_EQ(frames, 0u);
  EXPECT_DOUBLE_EQ(seconds, 12.5);
}

TEST(GlxgearsLine, RefusesOtherLines) {
  uint64_t frames = 7;
  double seconds = 7;
  for (const char* bad :
       {"", "Running synchronized to the vertical refresh.", "frames in 5.0 seconds",
        " 8251 frames in 5.0 seconds", "-1 frames in 5.0 seconds", "8251 frames in seconds",
        "8251 frames in -5.0 seconds", "8251 frames in 5.0", "8251 frame in 5.0 seconds",
        "99999999999999999999999 frames in 5.0 seconds"}) {
    EXPECT_FALSE(parse_glxgears_line(bad, &frames, &seconds)) << bad;
  }
  EXPECT_EQ(frames, 7u) << "left alone on a refusal";
  EXPECT_DOUBLE_EQ(seconds, 7.0);
}

TEST(OutputCounter, SumsGlxgearsReports) {
  OutputCounter c(OutputKind::kGlxgearsFrames);
  const OutputCount added = c.feed(kGears);
  EXPECT_EQ(added.units, 8251u + 8176u);
  EXPECT_DOUBLE_EQ(added.seconds, 10.0);
  EXPECT_EQ(c.total().units, 8251u + 8176u);
  // A line that is not a report counts nothing.
  EXPECT_EQ(c.feed("GL_RENDERER = llvmpipe (LLVM 15.0.6, 256 bits)\n").units, 0u);
  EXPECT_EQ(c.total().units, 8251u + 8176u);
}

TEST(OutputCounter, ALineSplitAcrossReadsCountsOnceItEnds) {
  OutputCounter c(OutputKind::kGlxgearsFrames);
  EXPECT_EQ(c.feed("825").units, 0u);
  EXPECT_EQ(c.feed("1 frames in 5.").units, 0u);
  EXPECT_EQ(c.feed("0 seconds = 1650.064 FPS").units, 0u) << "no newline yet";
  const OutputCount added = c.feed("\n81");
  EXPECT_EQ(added.units, 8251u);
  EXPECT_DOUBLE_EQ(added.seconds, 5.0);
  EXPECT_EQ(c.feed("76 frames in 5.0 seconds = 1635.055 FPS\n").units, 8176u);
  EXPECT_EQ(c.total().units, 8251u + 8176u);
  // Byte by byte: the same total.
  OutputCounter b(OutputKind::kGlxgearsFrames);
  for (const char ch : std::string(kGears)) b.feed(std::string_view(&ch, 1));
  EXPECT_EQ(b.total().units, 8251u + 8176u);
  EXPECT_DOUBLE_EQ(b.total().seconds, 10.0);
}

TEST(OutputCounter, ALastLineWithoutNewlineIsNotCounted) {
  // glxgears killed half-way through a line: the partial report is not a report.
  OutputCounter c(OutputKind::kGlxgearsFrames);
  c.feed("8251 frames in 5.0 seconds = 1650.064 FPS\n8176 frames in 5");
  EXPECT_EQ(c.total().units, 8251u);
}

// Two refreshes of `top -b` as it prints them (cut short: the process list is long).
constexpr const char* kTop =
    "top - 15:32:06 up 20:25,  0 user,  load average: 0.72, 0.55, 1.11\n"
    "Tasks:  91 total,   3 running,  87 sleeping,   0 stopped,   1 zombie\n"
    "%Cpu(s): 75.0 us, 25.0 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st \n"
    "\n"
    "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
    "31039 root      20   0  326184 303264  78636 R  93.8   1.2   0:03.56 cc1plus\n"
    "    1 root      10 -10   48040  10656   7332 S   0.0   0.0   7:14.15 top - x\n"
    "\n"
    "top - 15:32:06 up 20:25,  0 user,  load average: 0.72, 0.55, 1.11\n"
    "Tasks:  91 total,   3 running,  87 sleeping,   0 stopped,   1 zombie\n";

TEST(OutputCounter, CountsTopRefreshes) {
  OutputCounter c(OutputKind::kTopRefreshes);
  EXPECT_EQ(c.feed(kTop).units, 2u) << "a command named 'top - x' is not a refresh";
  EXPECT_DOUBLE_EQ(c.total().seconds, 0.0);
  EXPECT_EQ(c.feed("top -\n").units, 0u);
  EXPECT_EQ(c.feed(" top - \n").units, 0u);
}

TEST(OutputCounter, TopHeaderSplitAcrossReads) {
  OutputCounter c(OutputKind::kTopRefreshes);
  EXPECT_EQ(c.feed("Tasks: 1 total\nto").units, 0u);
  EXPECT_EQ(c.feed("p ").units, 0u);
  EXPECT_EQ(c.feed("- 15:32:06 up").units, 0u);
  EXPECT_EQ(c.feed(" 20:25\nTasks").units, 1u);
  // Every split point of the sample gives the same count.
  const std::string all = kTop;
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    OutputCounter d(OutputKind::kTopRefreshes);
    d.feed(std::string_view(all).substr(0, cut));
    d.feed(std::string_view(all).substr(cut));
    EXPECT_EQ(d.total().units, 2u) << "cut at " << cut;
  }
}

TEST(OutputCounter, LongLinesAreCutNotKept) {
  // A line far longer than kMaxLine: the memory kept stays bounded and the next line counts.
  OutputCounter c(OutputKind::kTopRefreshes);
  const std::string long_line = "top - " + std::string(size_t{1} << 20, 'x');
  EXPECT_EQ(c.feed(long_line).units, 0u);
  EXPECT_EQ(c.feed(long_line).units, 0u);
  EXPECT_EQ(c.feed("\ntop - next\n").units, 2u);
}

}  // namespace
}  // namespace xrunlab::load_tool

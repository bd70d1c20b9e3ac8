// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_spec.hpp"

#include <gtest/gtest.h>

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

using Args = std::vector<std::string>;

TEST(LoadSpec, BuiltInLoadsAndDefaults) {
  EXPECT_EQ(parse_load("compile", 2, nullptr)->tool_args, (Args{"compile", "2"}));
  EXPECT_EQ(parse_load("compile:8", 2, nullptr)->tool_args, (Args{"compile", "8"}));
  EXPECT_EQ(parse_load("compile", 512, nullptr)->tool_args, (Args{"compile", "300"}))
      << "the default, one job a CPU, at most the tree's 300 files";
  EXPECT_EQ(parse_load("hackbench", 2, nullptr)->tool_args, (Args{"hackbench", "4"}));
  EXPECT_EQ(parse_load("cpu:3", 2, nullptr)->tool_args, (Args{"cpu", "3"}));
  EXPECT_EQ(parse_load("io-write", 2, nullptr)->tool_args, (Args{"io-write", "256"}));
  EXPECT_EQ(parse_load("io-read:16", 2, nullptr)->tool_args, (Args{"io-read", "16"}));
  EXPECT_EQ(parse_load("io-copy:1", 2, nullptr)->tool_args, (Args{"io-copy", "1"}));
  EXPECT_EQ(parse_load("net", 2, nullptr)->tool_args, (Args{"net"}));
  EXPECT_EQ(parse_load("x11", 2, nullptr)->tool_args, (Args{"x11", "1"}));
  EXPECT_EQ(parse_load("x11:2", 2, nullptr)->tool_args, (Args{"x11", "2"}));
  EXPECT_EQ(parse_load("x11:2@nice=5", 2, nullptr)->nice, 5);
  EXPECT_EQ(parse_load("top", 2, nullptr)->tool_args, (Args{"top"}));
  EXPECT_EQ(parse_load("bench", 2, nullptr)->tool_args, (Args{"bench", "1"}));
  EXPECT_EQ(parse_load("bench:2", 2, nullptr)->tool_args, (Args{"bench", "2"}));
  EXPECT_EQ(parse_load("bench:256@nice=19", 2, nullptr)->nice, 19);
  EXPECT_EQ(parse_load("cpu:2", 2, nullptr)->nice, 0);
}

TEST(LoadSpec, CompileJobsPerCpuScaleWithTheMachineUpToTheTreesFiles) {
  EXPECT_EQ(parse_load("compile:32/cpu", 2, nullptr)->tool_args, (Args{"compile", "64"}));
  EXPECT_EQ(parse_load("compile:32/cpu", 8, nullptr)->tool_args, (Args{"compile", "256"}));
  EXPECT_EQ(parse_load("compile:32/cpu", 16, nullptr)->tool_args, (Args{"compile", "300"}));
  EXPECT_EQ(parse_load("compile:32/cpu@nice=5", 2, nullptr)->nice, 5);
  std::string why;
  EXPECT_FALSE(parse_load("compile:0/cpu", 2, &why));
  EXPECT_EQ(why, "'0' is not a whole number 1..64; use compile:J/cpu, e.g. compile:32/cpu");
  EXPECT_FALSE(parse_load("compile:/cpu", 2, &why));
  EXPECT_FALSE(parse_load("compile:x/cpu", 2, &why));
  EXPECT_FALSE(parse_load("compile:301", 2, &why));
  EXPECT_EQ(why, "'301' is not a whole number 1..300; use compile[:JOBS|:J/cpu]");
}

TEST(LoadSpec, PassThroughLoadsAreSplitIntoArgvNeverAShell) {
  EXPECT_EQ(parse_load("stress-ng:\"--cpu 2 --timeout 10\"", 2, nullptr)->tool_args,
            (Args{"exec", "--", "stress-ng", "--cpu", "2", "--timeout", "10"}));
  EXPECT_EQ(parse_load("cmd:\"sh -c 'echo $HOME; rm -rf /'\"", 2, nullptr)->tool_args,
            (Args{"exec", "--", "sh", "-c", "echo $HOME; rm -rf /"}))
      << "quotes group words; nothing is expanded or interpreted by xrunlab";
  EXPECT_EQ(parse_load("cmd:dd if=/dev/zero of=x", 2, nullptr)->tool_args,
            (Args{"exec", "--", "dd", "if=/dev/zero", "of=x"}));
  EXPECT_EQ(parse_load("cmd:a\\ b \"c\\\"d\"", 2, nullptr)->tool_args,
            (Args{"exec", "--", "a b", "c\"d"}));
}

// Found by tests/fuzz/load_spec_fuzz.cpp: the grammar's outer quotes (cmd:"ARGV") were stripped
// from any argument that started and ended with a quote, even two quoted words: 'a' 'b' became
// the one word "a b", and '' x\' (an empty word, then x') failed as a trailing backslash.
TEST(LoadSpec, OuterQuotesAreStrippedOnlyAroundTheWholeArgument) {
  EXPECT_EQ(parse_load("cmd:'a' 'b'", 2, nullptr)->tool_args, (Args{"exec", "--", "a", "b"}));
  EXPECT_EQ(parse_load("cmd:\"a\" \"b c\"", 2, nullptr)->tool_args,
            (Args{"exec", "--", "a", "b c"}));
  EXPECT_EQ(parse_load("cmd:'' x\\'", 2, nullptr)->tool_args, (Args{"exec", "--", "", "x'"}));
  // One quoted span around everything is still the grammar's grouping, escapes included.
  EXPECT_EQ(parse_load("cmd:'sleep 10'", 2, nullptr)->tool_args,
            (Args{"exec", "--", "sleep", "10"}));
  EXPECT_EQ(parse_load("stress-ng:\"--cpu \\\"2\\\"\"", 2, nullptr)->tool_args,
            (Args{"exec", "--", "stress-ng", "--cpu", "\"2\""}));
}

TEST(LoadSpec, NiceSuffix) {
  const auto s = parse_load("compile:2@nice=10", 2, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nice, 10);
  EXPECT_EQ(s->tool_args, (Args{"compile", "2"}));
  EXPECT_EQ(parse_load("cmd:\"echo @nice=5\"@nice=-5", 2, nullptr)->nice, -5);
  EXPECT_EQ(parse_load("cmd:\"echo @nice=5\"", 2, nullptr)->nice, 0);
}

TEST(LoadSpec, RejectionsNameThePart) {
  std::string why;
  for (const char* bad :
       {"compile:0",     "compile:x",    "cpu",          "cpu:0",    "io-write:5000",
        "net:1",         "cmd:",         "stress-ng:\"", "bogus",    "compile@nice=--5",
        "cpu:2@nice=30", "hackbench:+3", "x11:0",        "x11:65",   "x11:",
        "x11:two",       "top:1",        "top:-b -d 0",  "top:",     "bench:0",
        "bench:257",     "bench:",       "bench:-1",     "bench:+2", "bench:2x",
        "bench:1 2"}) {
    EXPECT_FALSE(parse_load(bad, 2, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
    EXPECT_EQ(why.find('\n'), std::string::npos);
  }
  parse_load("bogus", 2, &why);
  EXPECT_NE(why.find("compile[:JOBS|:J/cpu]"), std::string::npos);
}

TEST(LoadSpec, X11TopAndBenchRefusalsSayWhatToWrite) {
  std::string why;
  EXPECT_FALSE(parse_load("x11:0", 2, &why));
  EXPECT_EQ(why, "'0' is not a whole number 1..64; use x11[:N]");
  EXPECT_FALSE(parse_load("top:-d 1", 2, &why));
  EXPECT_EQ(why, "top takes no argument");
  EXPECT_FALSE(parse_load("bench:0", 2, &why));
  EXPECT_EQ(why, "'0' is not a whole number 1..256; use bench[:N]");
}

// --help shows every kind the parser knows, and each form it shows parses.
TEST(LoadHelp, ShowsEveryKindAndEveryFormParses) {
  const std::string help = load_help();
  for (const char* spec : {"compile",
                           "compile:2",
                           "hackbench",
                           "hackbench:2",
                           "cpu:1",
                           "io-write",
                           "io-write:8",
                           "io-read",
                           "io-read:8",
                           "io-copy",
                           "io-copy:8",
                           "net",
                           "x11",
                           "x11:2",
                           "top",
                           "bench",
                           "bench:2",
                           "stress-ng:\"--cpu 1\"",
                           "cmd:\"sleep 1\"",
                           "cpu:1@nice=5"}) {
    std::string why;
    const auto s = parse_load(spec, 2, &why);
    ASSERT_TRUE(s) << spec << ": " << why;
    EXPECT_NE(help.find(s->kind), std::string::npos) << s->kind;
  }
  EXPECT_NE(help.find("@nice=N"), std::string::npos);
  // The parser's own list of kinds (its message for an unknown one) is the help's list.
  std::string why;
  ASSERT_FALSE(parse_load("bogus", 2, &why));
  std::string list = why.substr(why.find("; use ") + 6);
  list.replace(list.find(" or "), 4, ",");
  for (std::string_view form : split(list, ',')) {
    form = trim(form);
    EXPECT_NE(help.find(std::string(form)), std::string::npos) << form;
  }
}

}  // namespace
}  // namespace xrunlab

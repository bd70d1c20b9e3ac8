// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_kinds.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace xrunlab {
namespace {

using load_tool::exec_argv;
using load_tool::Kind;
using load_tool::parse_load_args;
using Args = std::vector<std::string>;

TEST(LoadKinds, EachKindParsesWithItsNumber) {
  struct Case {
    const char* kind;
    Args args;
    Kind expected;
    long value;
  };
  const Case cases[] = {
      {"compile", {"2"}, Kind::kCompile, 2},
      {"hackbench", {"4"}, Kind::kHackbench, 4},
      {"cpu", {"256"}, Kind::kCpu, 256},
      {"io-write", {"1"}, Kind::kIoWrite, 1},
      {"io-read", {"4096"}, Kind::kIoRead, 4096},
      {"io-copy", {"17"}, Kind::kIoCopy, 17},
      {"net", {}, Kind::kNet, 0},
      {"x11", {"1"}, Kind::kX11, 1},
      {"x11", {"64"}, Kind::kX11, 64},
      {"top", {}, Kind::kTop, 0},
      {"bench", {"1"}, Kind::kBench, 1},
      {"bench", {"256"}, Kind::kBench, 256},
      {"exec", {"--", "sleep", "1"}, Kind::kExec, 0},
  };
  for (const auto& c : cases) {
    std::string error;
    const auto parsed = parse_load_args(c.kind, c.args, &error);
    ASSERT_TRUE(parsed) << c.kind << ": " << error;
    ASSERT_NE(parsed->kind, nullptr) << c.kind;
    EXPECT_EQ(parsed->kind->kind, c.expected) << c.kind;
    EXPECT_EQ(std::string(parsed->kind->name), c.kind);
    EXPECT_EQ(parsed->value, c.value) << c.kind;
    EXPECT_EQ(error, "") << c.kind;
    EXPECT_EQ(check_load_args(c.kind, c.args), "") << c.kind;
  }
}

TEST(LoadKinds, BoundsAreInclusiveAndNamedInTheMessage) {
  EXPECT_EQ(check_load_args("compile", {"1"}), "");
  EXPECT_EQ(check_load_args("compile", {"300"}), "");
  EXPECT_EQ(check_load_args("compile", {"0"}),
            "compile takes JOBS, a whole number from 1 to 300 (got '0')");
  EXPECT_EQ(check_load_args("compile", {"301"}),
            "compile takes JOBS, a whole number from 1 to 300 (got '301')");
  EXPECT_EQ(check_load_args("hackbench", {"65"}),
            "hackbench takes GROUPS, a whole number from 1 to 64 (got '65')");
  EXPECT_EQ(check_load_args("cpu", {"257"}),
            "cpu takes N, a whole number from 1 to 256 (got '257')");
  EXPECT_EQ(check_load_args("io-copy", {"4097"}),
            "io-copy takes MIB, a whole number from 1 to 4096 (got '4097')");
}

TEST(LoadKinds, OnlyPlainDigitsAreANumber) {
  for (const char* bad : {"+8", "-1", " 8", "8 ", "8x", "0x10", "", "1e3", "1234567890"}) {
    std::string error;
    EXPECT_FALSE(parse_load_args("io-write", {bad}, &error)) << bad;
    EXPECT_EQ(error,
              std::string("io-write takes MIB, a whole number from 1 to 4096 (got '") + bad + "')");
  }
  // Leading zeros are still a whole number.
  std::string error;
  const auto parsed = parse_load_args("cpu", {"007"}, &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->value, 7);
}

TEST(LoadKinds, WrongArgumentCounts) {
  EXPECT_EQ(check_load_args("cpu", {}), "cpu takes N, a whole number from 1 to 256");
  EXPECT_EQ(check_load_args("cpu", {"1", "2"}), "cpu takes N, a whole number from 1 to 256");
  EXPECT_EQ(check_load_args("net", {"1"}), "net takes no arguments");
  EXPECT_EQ(check_load_args("top", {"1"}), "top takes no arguments");
  EXPECT_EQ(check_load_args("top", {"-b", "-d", "0"}), "top takes no arguments");
  EXPECT_EQ(check_load_args("x11", {}), "x11 takes N, a whole number from 1 to 64");
  EXPECT_EQ(check_load_args("x11", {"0"}), "x11 takes N, a whole number from 1 to 64 (got '0')");
  EXPECT_EQ(check_load_args("x11", {"65"}), "x11 takes N, a whole number from 1 to 64 (got '65')");
  // bench: the engine always passes its N (bench alone is bench 1).
  EXPECT_EQ(check_load_args("bench", {}), "bench takes N, a whole number from 1 to 256");
  EXPECT_EQ(check_load_args("bench", {"0"}),
            "bench takes N, a whole number from 1 to 256 (got '0')");
  EXPECT_EQ(check_load_args("bench", {"257"}),
            "bench takes N, a whole number from 1 to 256 (got '257')");
}

TEST(LoadKinds, UnknownKindListsTheKnownOnes) {
  EXPECT_EQ(check_load_args("disk", {"1"}),
            "unknown load kind 'disk' (expected compile, hackbench, cpu, io-write, io-read, "
            "io-copy, net, x11, top, bench or exec)");
  EXPECT_NE(check_load_args("Compile", {"1"}), "") << "kind names are case-sensitive";
}

TEST(LoadKinds, ExecNeedsACommand) {
  const std::string needs = "exec needs a command: exec -- PROGRAM [ARGS...]";
  EXPECT_EQ(check_load_args("exec", {}), needs);
  EXPECT_EQ(check_load_args("exec", {"--"}), needs);
  EXPECT_EQ(check_load_args("exec", {"--", ""}), needs);
  EXPECT_EQ(check_load_args("exec", {"sleep", "1"}), "") << "the \"--\" may be left out";
}

TEST(LoadKinds, ExecArgvDropsOnlyOneLeadingSeparator) {
  EXPECT_EQ(exec_argv({"--", "sleep", "1"}), (Args{"sleep", "1"}));
  EXPECT_EQ(exec_argv({"--", "--", "x"}), (Args{"--", "x"}));
  EXPECT_EQ(exec_argv({"sleep", "--", "1"}), (Args{"sleep", "--", "1"}));
  EXPECT_EQ(exec_argv({"--"}), Args{});
  EXPECT_EQ(exec_argv({}), Args{});
}

// Paths with a '/' are not looked up in PATH, so these do not depend on the machine's PATH.
TEST(LoadKinds, MissingProgramByPathNamesItsPackage) {
  EXPECT_EQ(missing_program_for("exec", {"--", "/nonexistent-xrunlab/stress-ng", "--cpu", "2"}),
            "load exec: program '/nonexistent-xrunlab/stress-ng' not found or not executable "
            "(install the Debian package stress-ng)");
  EXPECT_EQ(missing_program_for("exec", {"--", "/nonexistent-xrunlab/my-load"}),
            "load exec: program '/nonexistent-xrunlab/my-load' not found or not executable");
  EXPECT_EQ(missing_program_for("exec", {"/bin/sh", "-c", "true"}), "");
  EXPECT_EQ(missing_program_for("exec", {"--"}), "") << "no command: check_load_args says so";
  EXPECT_EQ(missing_program_for("cpu", {"2"}), "");
  EXPECT_EQ(missing_program_for("net", {}), "");
}

// With an empty PATH: every missing program of the load on one line, each with its package.
TEST(LoadKinds, MissingProgramsOfX11AndTopNameTheirPackages) {
  const char* old = std::getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  ASSERT_EQ(::setenv("PATH", "/nonexistent-xrunlab", 1), 0);
  const std::string x11 = missing_program_for("x11", {"1"});
  const std::string top = missing_program_for("top", {});
  if (old != nullptr) {
    ::setenv("PATH", saved.c_str(), 1);
  } else {
    ::unsetenv("PATH");
  }
  EXPECT_EQ(x11,
            "load x11: program 'Xvfb' not found in PATH (install the Debian package xvfb); "
            "program 'glxgears' not found in PATH (install the Debian package mesa-utils)");
  EXPECT_EQ(top, "load top: program 'top' not found in PATH (install the Debian package procps)");
}

}  // namespace
}  // namespace xrunlab

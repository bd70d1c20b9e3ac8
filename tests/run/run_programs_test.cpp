// SPDX-License-Identifier: GPL-2.0-or-later
// Finding a run's programs before anything starts (engine/run/run_programs.hpp): each missing
// program is a one-line error naming it, where it was looked for and what to do, with the exit
// code for a missing program; a folder holding every helper gives their paths.
#include "engine/run/run_programs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

std::string error_of(const RunOptions& o, bool starts_jackd, const std::string& exe_dir) {
  try {
    find_run_programs(o, starts_jackd, exe_dir);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kMissingProgram) << e.what();
    return e.what();
  }
  return "(no error)";
}

void make_program(const TempDir& dir, const std::string& name) {
  ::chmod(dir.write(name, "#!/bin/sh\n").c_str(), 0755);
}

TEST(RunPrograms, AMissingJackdSaysWhichAndHowToInstallIt) {
  RunOptions o;
  o.jackd = "/nonexistent/jackd";
  EXPECT_EQ(error_of(o, true, "/nonexistent"),
            "jackd not found ('/nonexistent/jackd'): install JACK2 (apt-get install "
            "--no-install-recommends jackd2) or pass --jackd PATH");
}

TEST(RunPrograms, AMissingClientBinaryNamesThePathItWasLookedFor) {
  RunOptions o;
  o.client_binary = "/nonexistent/xrunlab-client";
  EXPECT_EQ(error_of(o, false, "/nonexistent"),
            "xrunlab-client not found at '/nonexistent/xrunlab-client': build it (cmake --build "
            "build), reinstall xrunlab or pass --client-binary PATH");
}

TEST(RunPrograms, AMissingJanitorIsFoundBeforeAnythingStarts) {
  TempDir dir("programs");
  make_program(dir, "xrunlab-client");
  RunOptions o;
  const std::string e = error_of(o, false, dir.str());
  EXPECT_EQ(e.rfind("xrunlab-janitor not found at '", 0), 0u) << e;
  EXPECT_NE(e.find("': build it (cmake --build build) or reinstall xrunlab"), std::string::npos)
      << e;
}

TEST(RunPrograms, EveryHelperBesideXrunlabIsFound) {
  TempDir dir("programs");
  for (const char* name : {"xrunlab-client", "xrunlab-load", "xrunlab-janitor"}) {
    make_program(dir, name);
  }
  RunOptions o;
  RunPrograms p = find_run_programs(o, false, dir.str());
  EXPECT_EQ(p.jackd, "") << "the backend starts no jackd";
  EXPECT_EQ(p.client, dir.file("xrunlab-client"));
  EXPECT_EQ(p.janitor, dir.file("xrunlab-janitor"));
  EXPECT_EQ(p.load_tool, "") << "no --load";
  EXPECT_EQ(p.cyclictest, "") << "no --baseline";
}

}  // namespace
}  // namespace xrunlab

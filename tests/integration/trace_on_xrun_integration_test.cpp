// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab run --trace-on-xrun` on the real jackd, clients and kernel trace: an injected 8 ms
// overrun of a 5.33 ms period (256 frames at 48 kHz) is an xrun by construction, so the ring
// must be frozen and saved as a file trace-cmd reads, whose events end at the freeze and whose
// span holds the xrun; a run saves a file exactly when its monitor saw an xrun; the private
// instance is gone after the run. Needs root (tracefs; skipped otherwise) and trace-cmd.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

// Root is needed (skipped without); trace-cmd is one of scripts/setup.sh's packages, so a
// machine set up as the README says has it: its absence fails rather than skips.
bool can_trace() {
  if (::geteuid() != 0) return false;
  EXPECT_TRUE(find_program("trace-cmd").has_value())
      << "trace-cmd is missing: scripts/setup.sh installs it (Debian package trace-cmd)";
  return find_program("trace-cmd").has_value();
}

// The events' timestamps (trace clock mono, s) that `trace-cmd report -i FILE` prints.
std::vector<double> report_timestamps(const std::string& file, std::string* text) {
  SpawnSpec spec;
  spec.argv = {"trace-cmd", "report", "-i", file};
  spec.capture_output = true;
  spec.stderr_to_null = true;
  Child c = Child::spawn(spec);
  std::string out;
  char buf[65536];
  ssize_t n = 0;
  while ((n = ::read(c.output_fd(), buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  c.wait_for(std::chrono::seconds(30));
  std::vector<double> ts;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    // "inst:  comm-pid [001] 24458.633390: sched_switch: ..."
    const auto cpu = line.find("] ");
    if (cpu == std::string::npos || line.find("[") == std::string::npos) continue;
    const auto colon = line.find(": ", cpu + 2);
    if (colon == std::string::npos) continue;
    char* end = nullptr;
    const std::string stamp = line.substr(cpu + 2, colon - cpu - 2);
    const double t = std::strtod(stamp.c_str(), &end);
    if (end != stamp.c_str() && *end == '\0') ts.push_back(t);
  }
  *text = std::move(out);
  return ts;
}

std::vector<std::string> xrun_instances_left() {
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/kernel/tracing/instances", ec)) {
    const std::string name = e.path().filename();
    if (name.rfind("xrunlab-", 0) == 0 && name.size() > 5 &&
        name.compare(name.size() - 5, 5, "-xrun") == 0) {
      left.push_back(name);
    }
  }
  return left;
}

TEST(TraceOnXrun, AnInjectedOverrunFreezesTheRingAndSavesAFileTraceCmdReads) {
  if (!can_trace()) GTEST_SKIP() << "--trace-on-xrun needs root";
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--inject", "8000:100", "--trace-on-xrun", "--no-plots",
                        "--no-audio-check", "--label", "it-trace-on-xrun"});
  finish(r, 90s);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  const json& t = j["trace_on_xrun"];
  ASSERT_TRUE(t.is_object()) << j.dump().substr(0, 2000);
  ASSERT_GT(j["xruns"]["monitor_events"].get<int64_t>(), 0) << "the injected overrun is an xrun";
  ASSERT_TRUE(t["file"].is_string()) << t;
  EXPECT_EQ(t["file"], "xrun-trace.dat");
  EXPECT_TRUE(t["error"].is_null()) << t;
  const std::string file = r.run_dir() + "/xrun-trace.dat";
  ASSERT_TRUE(std::filesystem::is_regular_file(file));
  const int64_t xrun = t["xrun_mono_ns"].get<int64_t>();
  const int64_t frozen = t["frozen_mono_ns"].get<int64_t>();
  const int64_t oldest = t["oldest_mono_ns"].get<int64_t>();
  EXPECT_LE(oldest, xrun) << "the ring reaches back before the xrun";
  EXPECT_LE(xrun, frozen) << "frozen after the xrun was seen";
  EXPECT_NEAR(t["covered_before_xrun_ms"].get<double>(), static_cast<double>(xrun - oldest) / 1e6,
              1e-3);

  std::string text;
  const std::vector<double> ts = report_timestamps(file, &text);
  ASSERT_GT(ts.size(), 10u) << text.substr(0, 2000);
  EXPECT_NE(text.find("sched_switch"), std::string::npos);
  double first = ts.front(), last = ts.front();
  for (const double x : ts) {
    first = std::min(first, x);
    last = std::max(last, x);
  }
  // Whole microseconds in the report: 1 us of rounding either way.
  EXPECT_LE(last * 1e9, static_cast<double>(frozen) + 1e3) << "no event after the freeze";
  EXPECT_GE(last * 1e9, static_cast<double>(xrun) - 1e3) << "the file reaches the xrun";
  EXPECT_LE(first * 1e9, static_cast<double>(xrun)) << "the file starts before the xrun";
  // summary.txt says so (the terminal gets the short result: -v would print it too).
  EXPECT_NE(read_text_or_empty(r.run_dir() + "/summary.txt").find("Trace at first xrun"),
            std::string::npos);
  EXPECT_TRUE(xrun_instances_left().empty());
}

TEST(TraceOnXrun, AFileIsSavedExactlyWhenTheMonitorSawAnXrun) {
  if (!can_trace()) GTEST_SKIP() << "--trace-on-xrun needs root";
  XrunlabRun r = start({"run", "--clients", "1", "--ports", "1", "--period", "2048", "--duration",
                        "2", "--dsp-load", "5", "--trace-on-xrun", "--no-plots", "--no-audio-check",
                        "--label", "it-trace-on-xrun-quiet"});
  finish(r, 90s);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  const json& t = j["trace_on_xrun"];
  ASSERT_TRUE(t.is_object());
  const bool xrun = j["xruns"]["monitor_events"].get<int64_t>() > 0;
  EXPECT_EQ(t["file"].is_string(), xrun) << t;
  EXPECT_EQ(std::filesystem::exists(r.run_dir() + "/xrun-trace.dat"), xrun);
  if (!xrun) {
    EXPECT_EQ(t["error"], "no xrun during the window: nothing saved");
    EXPECT_NE(read_text_or_empty(r.run_dir() + "/summary.txt").find("nothing saved: no xrun"),
              std::string::npos);
  }
  EXPECT_TRUE(xrun_instances_left().empty());
}

TEST(TraceOnXrun, WithoutTraceCmdItIsRefusedInOneLineBeforeAnythingStarts) {
  if (::geteuid() != 0) GTEST_SKIP() << "the root check comes first";
  XrunlabRun r = start({"run", "--duration", "1", "--trace-on-xrun", "--jackd", "/usr/bin/jackd",
                        "--label", "it-no-trace-cmd"},
                       {{"PATH", "/nonexistent"}});
  finish(r, 30s);
  EXPECT_EQ(r.exit_code, 3) << r.log();
  EXPECT_NE(r.log().find("--trace-on-xrun needs trace-cmd"), std::string::npos) << r.log();
  EXPECT_EQ(r.run_dir(), "") << "nothing started";
}

}  // namespace
}  // namespace xrunlab::testing_support

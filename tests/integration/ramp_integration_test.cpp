// SPDX-License-Identifier: GPL-2.0-or-later
// A DSP ramp (`xrunlab run --ramp`) with the real jackd, vcard and clients: client 1 overruns
// the period in every cycle from the ramp's step S on (--inject USEC:1:S), so the ramp's first
// xrun is the first cycle of step S by construction, and its load is the stages the clients ran
// there, which the test computes from the run's own calibration. Period 1024 frames (21.3 ms)
// and a low load before step S keep spontaneous xruns rare on the 2-core VMs; no latency
// threshold is asserted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

#include "engine/wire/dsp_ramp.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using nlohmann::json;

TEST(Ramp, AnOverrunInjectedFromAKnownStepIsTheRampsFirstXrunExactly) {
  constexpr uint64_t kStep = 6;
  XrunlabRun r;
  // +2 % of the period (1 % a client) every 4 cycles; from step 6 client 1 busy-waits until its
  // callback has lasted 30 ms, longer than the 21.3 ms period.
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "1024", "--ramp",
                        "2:4", "--inject", "30000:1:" + std::to_string(kStep), "--inject-client",
                        "1", "--label", "it-ramp", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "completed") << j["status_detail"];
  EXPECT_EQ(j["status_detail"], "the DSP ramp reached its first xrun");
  EXPECT_EQ(j["spec"]["ramp"], "2:4");
  EXPECT_EQ(j["spec"]["dsp_load_pct"], 0.0) << "a ramp starts at 0 without --dsp-load";
  const json& ramp = j["ramp"];
  ASSERT_TRUE(ramp.is_object()) << ramp;
  EXPECT_EQ(ramp["ended"], "first_xrun");
  EXPECT_EQ(ramp["every_cycles"], 4);
  EXPECT_EQ(ramp["step_pct"], 2.0);
  ASSERT_TRUE(ramp["from_cycle"].is_number());
  const json& f = ramp["first_xrun"];
  ASSERT_TRUE(f.is_object()) << ramp;
  EXPECT_EQ(f["step"].get<uint64_t>(), kStep);
  EXPECT_EQ(f["cycle"].get<uint64_t>(), ramp["from_cycle"].get<uint64_t>() + (kStep - 1) * 4)
      << "the first cycle of step " << kStep;
  // The load in that cycle: each client's stages of step 6, from the run's one calibration.
  const double ns = ramp["ns_per_stage"].get<double>();
  ASSERT_GT(ns, 0);
  const double period_ns = 1024.0 * 1e9 / 48000.0;
  const DspRampStages per_client = dsp_ramp_stages(0, 1.0, 4, 50.0, ns, period_ns);
  const double stages = 2.0 * per_client.stages_of_step(kStep);
  const double engine_period_ns = std::floor(period_ns);  // the joiner's whole nanoseconds
  EXPECT_NEAR(f["load_pct"].get<double>(), stages * ns / engine_period_ns * 100.0, 1e-9);
  EXPECT_NEAR(f["load_pct"].get<double>(), 12.0, 0.5) << "about 6 steps of 2 %";
  EXPECT_NEAR(f["nominal_pct"].get<double>(), 10.0, 0.5) << "the step before";
  ASSERT_TRUE(f["broke"].is_object());
  EXPECT_EQ(f["broke"]["key"], "dsp.c01") << "the injected busy-wait is client 1's DSP hop";
  EXPECT_GT(f["broke"]["late_us"].get<double>(), 8000) << "30 ms against about 1.3 ms";
  EXPECT_NEAR(ramp["reached_pct"].get<double>(), f["load_pct"].get<double>(), 1e-9);
  // The window ended at the first xrun, long before the ramp's own end.
  EXPECT_LT(j["measurement"]["seconds_ran"].get<double>(), j["spec"]["duration_s"].get<double>());
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find("first xrun at"), std::string::npos) << summary;
  EXPECT_NE(r.log().find("DSP ramp: first xrun at"), std::string::npos) << r.log();
  expect_nothing_left(r);
}

// --explain: the ramp's first xrun cycle is explained whatever its slack, and the breaking hop
// carries the kernel trace's line for it (the injected busy-wait: client 1 itself ran).
TEST(Ramp, WithExplainTheBreakingHopHasTheKernelsReason) {
  if (::geteuid() != 0) GTEST_SKIP() << "--explain needs root";
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "1024", "--ramp",
                        "2:4", "--inject", "30000:1:6", "--inject-client", "1", "--explain=1",
                        "--label", "it-ramp-explain", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& f = j["ramp"]["first_xrun"];
  ASSERT_TRUE(f.is_object()) << j["ramp"];
  bool explained = false;
  for (const json& c : j["explain"]["cycles"]) explained |= c["cycle"] == f["cycle"];
  EXPECT_TRUE(explained) << "the first xrun cycle is among the explained ones";
  EXPECT_EQ(f["broke"]["key"], "dsp.c01");
  const std::string cause = f["broke"]["cause"].get<std::string>();
  EXPECT_NE(cause.find("c01's DSP"), std::string::npos) << cause;
  EXPECT_NE(cause.find("c01 itself"), std::string::npos) << cause;
}

TEST(Ramp, BadRampsAreOneLineUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--ramp", "0"}, "--ramp '0': STEP_PCT"},
      {{"run", "--ramp", "2:0"}, "--ramp '2:0': EVERY"},
      {{"run", "--ramp", "x"}, "--ramp 'x': expected STEP_PCT[:EVERY]"},
      {{"run", "--ramp", "101"}, "--ramp '101': STEP_PCT"},
      {{"run", "--inject", "3000:1:4", "--duration", "1"}, "needs --ramp"},
  };
  for (const auto& [args, mention] : cases) {
    XrunlabRun r;
    EXPECT_EQ(run_to_end(args, &r), 2) << r.log();
    const std::string out = r.log();
    const auto error_at = out.find("xrunlab: error: ");
    ASSERT_NE(error_at, std::string::npos) << out;
    const std::string line = out.substr(error_at, out.find('\n', error_at) - error_at);
    EXPECT_NE(line.find(mention), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

using namespace testing_support;
using nlohmann::json;

// `xrunlab headroom` over real ramps whose first xrun is injected at step 6 of +2 % (client 1
// overruns from there): every ramp's headroom is the load of step 6, so the cell's median,
// min and max are that load, and client 1's DSP broke in every ramp. The same command again runs
// nothing and says the same; another setting in the same folder is refused.
TEST(Headroom, RampsWithAKnownFirstXrunGiveItsLoadAndTheSameCommandContinues) {
  TempDir dir("headroom");
  const std::string folder = dir.str() + "/h";
  const std::vector<std::string> args = {"headroom",
                                         "--periods",
                                         "1024",
                                         "--clients",
                                         "2",
                                         "--ports",
                                         "1",
                                         "--repetitions",
                                         "2",
                                         "--step",
                                         "2",
                                         "--every",
                                         "4",
                                         "--dir",
                                         folder,
                                         "--",
                                         "--inject",
                                         "30000:1:6",
                                         "--inject-client",
                                         "1"};
  XrunlabRun r;
  ASSERT_EQ(run_to_end(args, &r), 0) << r.log();
  const json j = json::parse(read_text_or_empty(folder + "/headroom.json"));
  ASSERT_EQ(j["ramps"].size(), 2u) << j.dump(2);
  // Each ramp's first xrun is step 6's first cycle (its own calibration sets step 6's stages,
  // so the two loads differ a little); the cell's figures are those two.
  std::vector<double> loads;
  for (const json& ramp : j["ramps"]) {
    const json run = json::parse(
        read_text_or_empty(folder + "/" + ramp["run_dir"].get<std::string>() + "/run.json"));
    EXPECT_EQ(run["ramp"]["first_xrun"]["step"], 6) << ramp;
    EXPECT_EQ(ramp["first_xrun_pct"], run["ramp"]["first_xrun"]["load_pct"]);
    loads.push_back(ramp["first_xrun_pct"].get<double>());
    EXPECT_NEAR(loads.back(), 12.0, 0.5) << "step 6 of +2 %";
  }
  const json& cell = j["cells"][0];
  EXPECT_EQ(cell["ramps"], 2);
  EXPECT_DOUBLE_EQ(cell["median_pct"].get<double>(), (loads[0] + loads[1]) / 2);
  EXPECT_EQ(cell["min_pct"].get<double>(), std::min(loads[0], loads[1]));
  EXPECT_EQ(cell["max_pct"].get<double>(), std::max(loads[0], loads[1]));
  EXPECT_EQ(cell["broke_most"], "c01 DSP");
  EXPECT_EQ(cell["broke_most_count"], 2);
  EXPECT_TRUE(std::filesystem::exists(folder + "/headroom.png"));
  const std::string summary = read_text_or_empty(folder + "/headroom-summary.txt");
  EXPECT_NE(summary.find("1024 frames (21.3 ms): "), std::string::npos) << summary;
  EXPECT_NE(summary.find("most often broken by c01 DSP"), std::string::npos) << summary;

  // Again: the ramps are in the folder, nothing runs, the figures are the same.
  XrunlabRun again;
  ASSERT_EQ(run_to_end(args, &again), 0) << again.log();
  const json k = json::parse(read_text_or_empty(folder + "/headroom.json"));
  EXPECT_EQ(k["cells"], j["cells"]);
  EXPECT_EQ(k["ramps"], j["ramps"]);

  // Other settings in that folder: one line, exit 2.
  std::vector<std::string> other = args;
  other[8] = "3";  // --repetitions 3
  XrunlabRun refused;
  EXPECT_EQ(run_to_end(other, &refused), 2) << refused.log();
  EXPECT_NE(refused.log().find("other settings"), std::string::npos) << refused.log();
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab sweep` with the real xrunlab, jackd, clients and vcard. Its steps are made dirty by
// construction: every 20th callback of client 1 busy-waits 8 ms, longer than any swept period
// (2.7 and 5.3 ms), so every run has xrun cycles whatever the machine's noise. What is asserted
// is the search's structure (steps taken, each dirty step ended after its first run), the files
// and the resume (the same command runs nothing again), never which period the machine holds.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

// `args`, then the runs' own arguments after "--": every period dirty by construction (client 1
// overruns on purpose, 8 ms of extra busy time every 20 cycles: --inject 8000:20).
std::vector<std::string> with_dirty_runs(std::vector<std::string> args) {
  args.insert(args.end(), {"--", "--backend", "vcard", "--ports", "1", "--inject", "8000:20",
                           "--inject-client", "1", "--no-plots"});
  return args;
}

std::vector<std::string> sweep_args(const std::string& dir, const std::string& search) {
  return with_dirty_runs({"sweep", "--periods", "128,256", "--clients", "2", "--duration", "2",
                          "--repetitions", "2", "--search", search, "--dir", dir});
}

size_t runs_in(const json& step_state) {
  size_t n = 0;
  for (const json& r : step_state["runs"]) n += r["status"] == "completed" ? 1 : 0;
  return n;
}

TEST(Sweep, EveryPeriodDirtyByConstructionIsFoundSoAndTheSameCommandRunsNothingAgain) {
  TempDir dir("sweep");
  const std::string sdir = dir.file("s");
  XrunlabRun r;
  ASSERT_EQ(run_to_end(sweep_args(sdir, "bisect"), &r), 0) << r.log();
  const json j = json::parse(read_text_or_empty(sdir + "/sweep.json"), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.log();
  // Bisection over two periods, both dirty: 128 first (the lower middle), then 256.
  ASSERT_EQ(j["steps"].size(), 2u) << j.dump(2);
  EXPECT_EQ(j["steps"][0]["period"], 128);
  EXPECT_EQ(j["steps"][1]["period"], 256);
  for (const json& s : j["steps"]) {
    EXPECT_FALSE(s["clean"].get<bool>()) << s.dump();
    EXPECT_EQ(s["runs"], 1) << "a dropout ends a step after its run: " << s.dump();
    EXPECT_GT(s["xrun_events"].get<uint64_t>(), 0u) << s.dump();
    EXPECT_GT(s["dropouts_per_min"].get<double>(), 0.0) << s.dump();
    const json st =
        json::parse(read_text_or_empty(sdir + "/steps/c02-p" +
                                       std::to_string(s["period"].get<int>()) + "/campaign.json"),
                    nullptr, false);
    EXPECT_EQ(runs_in(st), 1u) << st.dump(2);
  }
  EXPECT_TRUE(j["answers"][0]["smallest_clean_period"].is_null());
  EXPECT_EQ(j["answers"][0]["largest_dirty_period_below"], 256);
  const std::string summary = read_text_or_empty(sdir + "/sweep-summary.txt");
  EXPECT_NE(summary.find("2 clients: no listed period ran without dropouts; at 256 frames"),
            std::string::npos)
      << summary;
  EXPECT_NE(r.log().find("drops out"), std::string::npos) << r.log();
  EXPECT_FALSE(read_text_or_empty(sdir + "/sweep.png").empty()) << "no heatmap";

  // The same command: every step is found finished, nothing runs again.
  XrunlabRun again;
  ASSERT_EQ(run_to_end(sweep_args(sdir, "bisect"), &again), 0) << again.log();
  EXPECT_NE(again.log().find("(measured before, kept)"), std::string::npos) << again.log();
  for (const char* p : {"128", "256"}) {
    const json st =
        json::parse(read_text_or_empty(sdir + "/steps/c02-p" + std::string(p) + "/campaign.json"),
                    nullptr, false);
    EXPECT_EQ(runs_in(st), 1u) << p;
    EXPECT_EQ(st["runs"].size(), 1u) << p;
  }
  // -q: the table and the recommendation alone (sweep-summary.txt after its heading line).
  std::vector<std::string> quiet_args = sweep_args(sdir, "bisect");
  quiet_args.insert(quiet_args.begin() + 1, "-q");
  XrunlabRun quiet;
  ASSERT_EQ(run_to_end(quiet_args, &quiet), 0) << quiet.log();
  const std::string answer = read_text_or_empty(sdir + "/sweep-summary.txt");
  ASSERT_NE(answer.find("\n\n"), std::string::npos) << answer;
  EXPECT_EQ(quiet.log(), answer.substr(answer.find("\n\n") + 2));
  // Other settings in the same folder are refused before anything runs.
  XrunlabRun other;
  EXPECT_EQ(run_to_end(sweep_args(sdir, "all"), &other), 2) << other.log();
  EXPECT_NE(other.log().find("holds a sweep with other settings"), std::string::npos)
      << other.log();
  EXPECT_EQ(processes_mentioning(sdir), std::vector<std::string>{}) << "a run outlived it";
}

TEST(Sweep, DescendingStopsAtTheFirstDropout) {
  TempDir dir("sweep-desc");
  const std::string sdir = dir.file("s");
  XrunlabRun r;
  ASSERT_EQ(run_to_end(sweep_args(sdir, "descending"), &r), 0) << r.log();
  const json j = json::parse(read_text_or_empty(sdir + "/sweep.json"), nullptr, false);
  ASSERT_EQ(j["steps"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["steps"][0]["period"], 256);
}

// `xrunlab check`: the doctor's lines, the sweep, and the verdict; with every period dirty by
// construction the verdict says it dropped out everywhere and the exit code is 22.
TEST(Check, DoctorThenSweepThenOneVerdictAndItsExitCode) {
  TempDir dir("check");
  const std::string cdir = dir.file("c");
  XrunlabRun r;
  EXPECT_EQ(run_to_end(with_dirty_runs({"check", "--clients", "2", "--periods", "128,256",
                                        "--duration", "2", "--repetitions", "2", "--dir", cdir}),
                       &r),
            22)
      << r.log();
  const std::string log = r.log();
  const size_t doctor = log.find("Doctor: 23 checks:");
  const size_t verdict = log.find(
      "This machine dropped out with 2 clients at 30 % DSP load at every period tried, up to "
      "256 frames (5.3 ms)");
  EXPECT_NE(doctor, std::string::npos) << log;
  ASSERT_NE(verdict, std::string::npos) << log;
  EXPECT_LT(doctor, verdict);
  const json j = json::parse(read_text_or_empty(cdir + "/check.json"), nullptr, false);
  ASSERT_TRUE(j.is_object()) << log;
  EXPECT_EQ(j["exit_code"], 22);
  EXPECT_TRUE(j["smallest_clean_period"].is_null());
  EXPECT_EQ(j["doctor"]["checks"].size(), 23u);
  EXPECT_NE(read_text_or_empty(cdir + "/check.txt").find("This machine dropped out"),
            std::string::npos);
  const json sweep = json::parse(read_text_or_empty(cdir + "/sweep.json"), nullptr, false);
  ASSERT_TRUE(sweep.is_object());
  EXPECT_EQ(sweep["steps"].size(), 2u);
  // The check's DSP load reaches every run, and --dsp-load after -- is refused.
  EXPECT_NE(sweep["run_args"].dump().find("\"--dsp-load\",\"30\""), std::string::npos)
      << sweep["run_args"].dump();
  XrunlabRun bad;
  EXPECT_EQ(run_to_end({"check", "--dir", dir.file("b"), "--", "--dsp-load", "50"}, &bad), 2);
  EXPECT_NE(bad.log().find("give --dsp-load before --"), std::string::npos) << bad.log();
  EXPECT_EQ(bad.log().find("Doctor:"), std::string::npos) << "refused before the doctor";
}

// `xrunlab check` with a period that runs clean (1 client, 1024 frames: spontaneous xruns are
// rare there on the development VMs) measures the headroom there, and the verdict and check.json
// say the median of the ramps headroom/headroom.json holds.
TEST(Check, AtTheRecommendedPeriodTheVerdictSaysTheHeadroom) {
  TempDir dir("check-headroom");
  const std::string cdir = dir.file("c");
  XrunlabRun r;
  ASSERT_EQ(run_to_end(
                {"check", "--clients", "1", "--periods", "1024", "--duration", "2", "--repetitions",
                 "1", "--headroom-ramps", "2", "--dir", cdir, "--", "--ports", "1"},
                &r),
            0)
      << r.log();
  const json j = json::parse(read_text_or_empty(cdir + "/check.json"), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.log();
  EXPECT_EQ(j["smallest_clean_period"], 1024);
  const json h = json::parse(read_text_or_empty(cdir + "/headroom/headroom.json"), nullptr, false);
  ASSERT_TRUE(h.is_object()) << r.log();
  EXPECT_EQ(h["ramps"].size(), 2u);
  EXPECT_EQ(h["settings"]["ports"], 1) << "--ports after -- is the ramps' too";
  EXPECT_EQ(j["headroom_median_pct"], h["cells"][0]["median_pct"]);
  const std::string answer = h["cells"][0]["answer"].get<std::string>();
  EXPECT_NE(r.log().find("Headroom there: about " + answer + " of the period"), std::string::npos)
      << r.log();
  EXPECT_NE(read_text_or_empty(cdir + "/check.txt").find("Headroom there: about " + answer),
            std::string::npos);
}

TEST(Sweep, BadInputIsOneLineBeforeAnythingRuns) {
  TempDir dir("sweep-bad");
  XrunlabRun a;
  EXPECT_EQ(run_to_end({"sweep", "--periods", "128,abc", "--dir", dir.file("a")}, &a), 2);
  EXPECT_NE(a.log().find("--periods '128,abc'"), std::string::npos) << a.log();
  XrunlabRun b;
  EXPECT_EQ(run_to_end({"sweep", "--dir", dir.file("b"), "--", "--period", "64"}, &b), 2);
  EXPECT_NE(b.log().find("'--period' is set by the sweep itself"), std::string::npos) << b.log();
  XrunlabRun c;
  EXPECT_EQ(run_to_end({"sweep", "--dir", dir.file("c"), "--", "--policy", "nonsense"}, &c), 2);
  EXPECT_NE(c.log().find("--policy 'nonsense'"), std::string::npos) << c.log();
  XrunlabRun d;
  EXPECT_EQ(run_to_end({"sweep", "--dry-run", "--dir", dir.file("d")}, &d), 0) << d.log();
  EXPECT_NE(d.log().find("at most 3 step(s)"), std::string::npos) << d.log();
  EXPECT_EQ(read_text_or_empty(dir.file("d") + "/sweep.json"), "") << "a dry run runs nothing";
}

}  // namespace
}  // namespace xrunlab::testing_support

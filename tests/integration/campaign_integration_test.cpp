// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab campaign` with the real xrunlab, jackd and clients: a small campaign interrupted with
// SIGINT (as Ctrl-C sends it) and continued by the same command runs every run exactly once;
// bad input is refused before anything runs.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

const char* kCampaign = R"(# two cases, three repetitions, two seconds each
name = "it-campaign"
repetitions = 3
seed = 11
[run]
clients = 2
ports = 1
period = 256
duration = 2
plots = false
[axes]
policy = ["fifo", "other"]
)";

json state_of(const std::string& dir) {
  const std::string text = read_text_or_empty(dir + "/campaign.json");
  return text.empty() ? json() : json::parse(text, nullptr, false);
}

size_t completed(const json& s) {
  size_t n = 0;
  if (!s.is_object()) return 0;
  for (const json& r : s["runs"]) n += r["status"] == "completed" ? 1 : 0;
  return n;
}

TEST(Campaign, InterruptedAndContinuedItRunsEveryRunOnceAndNothingTwice) {
  TempDir dir("campaign");
  const std::string file = dir.write("it.toml", kCampaign);
  const std::string cdir = dir.file("c");
  XrunlabRun first = start({"campaign", file, "--dir", cdir});
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (completed(state_of(cdir)) < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_GE(completed(state_of(cdir)), 2u) << first.log();
  first.child.signal(SIGINT);  // to the campaign's own process group, as a terminal's Ctrl-C
  finish(first);
  EXPECT_EQ(first.exit_code, 130) << first.log();
  EXPECT_NE(first.log().find("the same command continues"), std::string::npos) << first.log();
  EXPECT_EQ(processes_mentioning(cdir), std::vector<std::string>{}) << "a run outlived it";
  const json before = state_of(cdir);
  const size_t done_before = completed(before);
  ASSERT_LT(done_before, 6u) << "interrupted too late to test anything";
  std::map<int, json> finished;
  for (const json& r : before["runs"]) {
    if (r["status"] == "completed") finished[r["index"].get<int>()] = r;
  }

  // Runs made on another machine or kernel are not continued here.
  const std::string saved = read_text_or_empty(cdir + "/campaign.json");
  json elsewhere = before;
  elsewhere["host"]["kernel"]["release"] = "2.6.11-rc2-mm1";
  dir.write("c/campaign.json", elsewhere.dump(2));
  XrunlabRun refused;
  EXPECT_EQ(run_to_end({"campaign", file, "--dir", cdir}, &refused), 2) << refused.log();
  EXPECT_NE(refused.log().find("kernel 2.6.11-rc2-mm1; this is "), std::string::npos)
      << refused.log();
  EXPECT_EQ(completed(state_of(cdir)), done_before) << "nothing may run";
  dir.write("c/campaign.json", saved);

  XrunlabRun second;
  ASSERT_EQ(run_to_end({"campaign", file, "--dir", cdir}, &second), 0) << second.log();
  const json after = state_of(cdir);
  ASSERT_EQ(after["runs"].size(), 6u);
  EXPECT_EQ(completed(after), 6u) << after.dump(2);
  EXPECT_EQ(after["plan"], before["plan"]) << "the same plan, order and seed";
  for (const json& r : after["runs"]) {
    const int index = r["index"].get<int>();
    const json run =
        json::parse(read_text_or_empty(cdir + "/" + r["run_dir"].get<std::string>() + "/run.json"),
                    nullptr, false);
    ASSERT_TRUE(run.is_object()) << r.dump();
    EXPECT_EQ(run["status"], "completed") << r.dump();
    if (finished.count(index) != 0) {
      // Never redone: the same folder, started at the same moment.
      EXPECT_EQ(r["run_dir"], finished[index]["run_dir"]);
      EXPECT_EQ(r["started_utc"], finished[index]["started_utc"]);
    }
  }
  // Three runs of each case; the closing table lists all six.
  std::map<int, int> per_case;
  for (const json& r : after["runs"]) ++per_case[r["case"].get<int>()];
  EXPECT_EQ(per_case, (std::map<int, int>{{1, 3}, {2, 3}}));
  EXPECT_NE(second.log().find("it-campaign: 6 runs finished"), std::string::npos) << second.log();
  // The report covers every run: 3 of 3 for both cases, and one verdict per compared figure.
  const std::string report = read_text_or_empty(cdir + "/campaign-summary.txt");
  EXPECT_NE(report.find("01-fifo                           3 of  3 runs"), std::string::npos)
      << report;
  EXPECT_NE(report.find("02-other                          3 of  3 runs"), std::string::npos)
      << report;
  // 3 vs 3 runs can never give p < 0.05, whatever the values: the verdict must say so.
  const size_t verdict = report.find(
      "fifo vs other: no difference in xrun events per minute this machine can resolve with 3 "
      "vs 3 runs (median ");
  ASSERT_NE(verdict, std::string::npos) << report;
  EXPECT_NE(report.find("; the test cannot reach p < 0.05 with so few)", verdict),
            std::string::npos)
      << report;
  const json summary = json::parse(read_text_or_empty(cdir + "/campaign-summary.json"));
  EXPECT_EQ(summary["cases"][0]["runs"], 3);
  EXPECT_EQ(summary["verdicts"].size(), 7u)
      << "xrun rate, XRUN Count, glitches, Delay Maximum, slack p1, jackd's and the clients' "
         "wake-up p99";
  EXPECT_NE(second.log().find(std::to_string(done_before) + " finished run(s) kept"),
            std::string::npos)
      << second.log();
  EXPECT_NE(report.find("   policy: fifo vs other   ~ (too few runs)   ~ (too few runs)"),
            std::string::npos)
      << "the verdict table\n"
      << report;
  // `summary` reads the campaign's folder as its six finished runs, labelled by case: not what
  // the interrupted run left (set aside as .incomplete-1, with a run.json of its own).
  XrunlabRun s;
  const std::string written = dir.file("summary.json");
  ASSERT_EQ(run_to_end({"summary", cdir, "--format", "json", "--write", written}, &s), 0)
      << s.log();
  const json runs = json::parse(read_text_or_empty(written), nullptr, false);
  ASSERT_TRUE(runs.is_object()) << s.log();
  EXPECT_EQ(runs["runs"].size(), 6u) << s.log();
  // The same command once more runs nothing and checks --fail-if on each case's median.
  XrunlabRun third;
  const std::string junit = dir.file("junit.xml");
  EXPECT_EQ(
      run_to_end({"campaign", file, "--dir", cdir, "--fail-if", "xrun_rate>=0", "--junit", junit},
                 &third),
      10)
      << third.log();
  EXPECT_EQ(third.log().find("This session ran"), std::string::npos) << "nothing may run again";
  EXPECT_NE(third.log().find("xrunlab: --fail-if: 01-fifo: median xrun_rate = "), std::string::npos)
      << third.log();
  // The terminal's end is the short block; the "no difference" sentences are in the file only.
  EXPECT_NE(second.log().find("Full summary: " + cdir + "/campaign-summary.txt\n"),
            std::string::npos)
      << second.log();
  EXPECT_EQ(second.log().find("no difference in"), std::string::npos) << second.log();
  // 3 vs 3 runs resolve nothing: a line on what would (an estimate, or why there is none).
  EXPECT_TRUE(second.log().find(" runs per case would resolve the closest call, ") !=
                  std::string::npos ||
              second.log().find(" No estimate of the runs per case") != std::string::npos)
      << second.log();
  // -q on the finished folder: the two tables alone, no plan, no sentences, no paths.
  XrunlabRun quiet;
  ASSERT_EQ(run_to_end({"campaign", file, "--dir", cdir, "-q"}, &quiet), 0) << quiet.log();
  for (const char* absent : {"Folder: ", "Order (case#", "To run: ", "runs finished",
                             "no difference in", "closest call", "Full summary", "[IQR]"}) {
    EXPECT_EQ(quiet.log().find(absent), std::string::npos) << absent << "\n" << quiet.log();
  }
  EXPECT_EQ(quiet.log().rfind(" Medians over each case's finished runs", 0), 0u) << quiet.log();
  EXPECT_NE(quiet.log().find("\n Verdicts: 1 pair(s) of cases one axis apart x "),
            std::string::npos)
      << quiet.log();
  const std::string xml = read_text_or_empty(junit);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"01-fifo\""), std::string::npos) << xml;
  ASSERT_EQ(runs["labels"].size(), 2u) << runs["labels"].dump();
  EXPECT_EQ(runs["labels"][0]["label"], "01-fifo");
  EXPECT_EQ(runs["labels"][0]["runs"], 3);
  EXPECT_EQ(runs["labels"][1]["label"], "02-other");
  EXPECT_EQ(runs["labels"][1]["runs"], 3);
}

TEST(Campaign, ABadValueIsRefusedBeforeAnythingRuns) {
  TempDir dir("campaign");
  const std::string file = dir.write(
      "bad.toml", "name = \"bad\"\n[run]\nduration = 1\n[axes]\npolicy = [\"fifo\", \"bogus\"]\n");
  XrunlabRun r;
  EXPECT_EQ(run_to_end({"campaign", file, "--dir", dir.file("c")}, &r), 2) << r.log();
  EXPECT_NE(r.log().find(file + ":5: [axes] policy 'bogus': --policy 'bogus'"), std::string::npos)
      << r.log();
  EXPECT_FALSE(std::ifstream(dir.file("c/campaign.json")).good())
      << "nothing may run or be written";
}

TEST(Campaign, ADryRunPrintsThePlanAndRunsNothing) {
  TempDir dir("campaign");
  const std::string file = dir.write("it.toml", kCampaign);
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"campaign", file, "--dir", dir.file("c"), "--dry-run"}, &r), 0) << r.log();
  EXPECT_NE(r.log().find("2 case(s) x 3 repetition(s) = 6 runs, order shuffled (seed 11)"),
            std::string::npos)
      << r.log();
  EXPECT_NE(r.log().find("01-fifo"), std::string::npos);
  EXPECT_EQ(r.log().find("drawn for this dry run"), std::string::npos) << "the file fixed it";
  EXPECT_FALSE(std::ifstream(dir.file("c/campaign.json")).good());
}

TEST(Campaign, ADryRunWithoutASeedSaysHowToRunTheOrderItPrinted) {
  TempDir dir("campaign");
  std::string text = kCampaign;
  text.erase(text.find("seed = 11\n"), 10);
  const std::string file = dir.write("it.toml", text);
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"campaign", file, "--dir", dir.file("c"), "--dry-run"}, &r), 0) << r.log();
  const std::string log = r.log();
  const size_t at = log.find("order shuffled (seed ");
  ASSERT_NE(at, std::string::npos) << log;
  const std::string seed = log.substr(at + 21, log.find(')', at) - at - 21);
  EXPECT_NE(log.find("The seed was drawn for this dry run; a start draws another. To run this "
                     "order: --seed " +
                     seed + "\n"),
            std::string::npos)
      << log;
  // And that seed gives the order printed.
  XrunlabRun again;
  ASSERT_EQ(
      run_to_end({"campaign", file, "--dir", dir.file("c"), "--dry-run", "--seed", seed}, &again),
      0)
      << again.log();
  const auto order = [](const std::string& l) { return l.substr(l.find("Order (case#")); };
  EXPECT_EQ(order(again.log()).substr(0, 60), order(log).substr(0, 60));
  EXPECT_EQ(again.log().find("drawn for this dry run"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab::testing_support

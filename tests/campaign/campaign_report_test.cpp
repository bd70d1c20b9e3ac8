// SPDX-License-Identifier: GPL-2.0-or-later
// The campaign's closing report (engine/campaign/campaign_report.hpp) on run.json files made by
// hand: each case's figures from its finished counted runs only, one verdict per pair and
// compared figure, and --fail-if on each case's median.
#include "engine/campaign/campaign_report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;
using testing_support::TempDir;

void accept(const std::vector<std::string>&) {}

json run_json(double xruns, double delay_max) {
  json j;
  j["schema_version"] = 2;
  j["status"] = "completed";
  j["measurement"]["seconds_ran"] = 60.0;
  j["xrun_cycles"]["events"] = xruns;
  j["jack_test"]["delay_max_us"] = delay_max;
  return j;
}

struct Fixture {
  TempDir dir{"campaign-report"};
  CampaignPlan plan =
      plan_campaign(parse_campaign("name = \"r\"\nrepetitions = 5\nseed = 1\nwarmup_s = 1\n[axes]\n"
                                   "policy = [\"fifo\", \"other\"]\n",
                                   "c.toml"),
                    1, std::nullopt, accept);
  CampaignState state = resume_campaign(std::nullopt, plan, dir.str(), false).state;

  // fifo: 1..5 xruns; other: 11..15; every run of `index` finished but the last of other.
  Fixture() {
    int fifo = 0, other = 0;
    for (CampaignRunRecord& r : state.runs) {
      if (r.warmup) {
        r.status = "completed";
        r.run_dir = "runs/warmup/x";
        dir.write(r.run_dir + "/run.json", run_json(1000, 1000).dump());
        continue;
      }
      const bool is_fifo = r.case_index == 1;
      const int k = is_fifo ? ++fifo : ++other;
      if (!is_fifo && k == 5) continue;  // not finished: pending
      r.status = "completed";
      r.wall_s = 61.5;
      r.run_dir = "runs/" + r.folder + "/x";
      dir.write(r.run_dir + "/run.json",
                run_json(is_fifo ? k : 10 + k, is_fifo ? 100.0 + k : 100.0 + k).dump());
    }
  }
};

TEST(CampaignReport, EachCaseHasItsFinishedCountedRunsOnly) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].runs, 5u);
  EXPECT_EQ(r.cases[1].runs, 4u) << "the unfinished run is not counted";
  EXPECT_EQ(r.cases[0].of("xruns"), (std::vector<double>{1, 2, 3, 4, 5}))
      << "in run order; the warm-up's 1000 is not a run of the case";
  EXPECT_EQ(r.cases[0].of("xrun_rate").size(), 5u);
  EXPECT_TRUE(r.cases[0].of("slack_p1").empty()) << "no cycle table: no figure, not 0";
}

TEST(CampaignReport, OneVerdictPerPairAndComparedFigureThatEitherCaseHas) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  // xrun_rate, xrun_count (every run has jack_test's XRUN Count: 0 in these) and delay_max
  // exist; slack_p1 and wakeup_p99 exist in neither case.
  ASSERT_EQ(r.verdicts.size(), 3u);
  EXPECT_EQ(r.verdict_metric[0], "xrun_rate");
  EXPECT_TRUE(r.verdicts[0].resolved) << r.verdicts[0].sentence;  // 5 vs 4, fully separated
  EXPECT_EQ(r.verdicts[0].sentence.rfind("fifo: fewer xrun events per minute than other", 0), 0u)
      << r.verdicts[0].sentence;
  EXPECT_EQ(r.verdict_metric[1], "xrun_count");
  EXPECT_FALSE(r.verdicts[1].resolved) << r.verdicts[1].sentence;  // 0 in every run
  EXPECT_EQ(r.verdict_metric[2], "delay_max");
  EXPECT_FALSE(r.verdicts[2].resolved) << r.verdicts[2].sentence;  // the same values
  const std::string text = format_campaign_report(r);
  EXPECT_NE(text.find("01-fifo = xrunlab run --policy fifo"), std::string::npos) << text;
  EXPECT_NE(text.find(" xrun events per minute (/min)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("slack"), std::string::npos) << "no block for a figure no case has";
  const json j = campaign_report_json(r);
  EXPECT_EQ(j["cases"][1]["figures"]["xruns"]["median"], 12.5);
  EXPECT_EQ(j["verdicts"].size(), 3u);
}

TEST(CampaignReport, TheVerdictTableHasARowPerPairAndACellPerFigure) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  const std::string table = format_verdict_table(r);
  ASSERT_EQ(r.verdict_pair.size(), 3u);
  EXPECT_EQ(r.verdict_pair[0], (std::pair<size_t, size_t>{0, 1}));
  // Header and one row: xrun_rate resolved for fifo (5 vs 4 runs, apart: p = 0.016); xrun_count
  // not (0 in every run: p = 1); delay_max not (101..105 vs 101..104: p = 0.71). Three
  // comparisons: q = 0.016 * 3 / 1 = 0.048, and min(0.71 * 3 / 2, 1 * 3 / 3) = 1 for the others.
  EXPECT_NE(table.find(" q: the p-value adjusted for all 3 comparisons of this report "
                       "(Benjamini-Hochberg)\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("   pair                    xrun_rate          xrun_count   delay_max\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("   policy: fifo vs other   fifo (q = 0.048)   ~ (q = 1)    ~ (q = 1)\n"),
            std::string::npos)
      << table;
  EXPECT_NE(format_campaign_report(r).find(table), std::string::npos);
  const json j = campaign_report_json(r);
  EXPECT_EQ(j["verdicts"][0]["pair"], "policy: fifo vs other");
  EXPECT_EQ(j["verdicts"][0]["better"], "fifo");
  EXPECT_TRUE(j["verdicts"][1]["better"].is_null());
  EXPECT_NEAR(j["verdicts"][0]["q"].get<double>(), 3 * j["verdicts"][0]["p"].get<double>(), 1e-12);
  EXPECT_EQ(j["verdicts"][0]["comparisons"], 3);
}

// Xrun events, driver xruns and glitches can rank two cases in opposite orders (a policy whose
// misses come as long stalls has fewer, longer events and more driver xruns and glitches, as
// other:-20 against fifo under a compile on the VM): each is compared in its own column.
TEST(CampaignReport, XrunEventsDriverXrunsAndGlitchesAreComparedApart) {
  TempDir dir{"campaign-report-apart"};
  const CampaignPlan plan =
      plan_campaign(parse_campaign("name = \"a\"\nrepetitions = 5\nseed = 1\n[axes]\n"
                                   "policy = [\"fifo\", \"other:-20\"]\n",
                                   "c.toml"),
                    1, std::nullopt, accept);
  CampaignState state = resume_campaign(std::nullopt, plan, dir.str(), false).state;
  int k = 0;
  for (CampaignRunRecord& run : state.runs) {
    const bool fifo = run.case_index == 1;
    json j = run_json(fifo ? 200 + k : 100 + k, 500);     // other: fewer events
    j["totals"]["xrun_count"] = fifo ? 10 + k : 200 + k;  // ... but more driver xruns
    j["audio"]["glitches"] = fifo ? 5 + k : 500 + k;      // ... and more glitches
    ++k;
    run.status = "completed";
    run.run_dir = "runs/" + run.folder + "/x";
    dir.write(run.run_dir + "/run.json", j.dump());
  }
  const std::string table = format_verdict_table(build_campaign_report(plan, state, dir.str()));
  const size_t header = table.find("   pair ");
  ASSERT_NE(header, std::string::npos) << table;
  const std::string head = table.substr(header, table.find('\n', header) - header);
  EXPECT_LT(head.find("xrun_rate"), head.find("xrun_count")) << head;
  EXPECT_LT(head.find("xrun_count"), head.find("glitches")) << head;
  const size_t row = table.find("policy: fifo vs other:-20");
  ASSERT_NE(row, std::string::npos) << table;
  const std::string line = table.substr(row, table.find('\n', row) - row);
  const size_t events = line.find("other:-20 (q"), driver = line.find("fifo (q");
  ASSERT_NE(events, std::string::npos) << line;
  ASSERT_NE(driver, std::string::npos) << line;
  EXPECT_LT(events, driver) << "other:-20 wins on events, fifo on driver xruns and glitches: "
                            << line;
  EXPECT_NE(line.find("fifo (q", driver + 1), std::string::npos) << line;
}

TEST(CampaignReport, TheTableSaysWhenTooFewRunsCanNeverResolveADifference) {
  TempDir dir{"campaign-report-few"};
  const CampaignPlan plan =
      plan_campaign(parse_campaign("name = \"f\"\nrepetitions = 2\nseed = 1\n[axes]\n"
                                   "load = [\"none\", \"compile\"]\npolicy = [\"fifo\"]\n",
                                   "c.toml"),
                    1, std::nullopt, accept);
  CampaignState state = resume_campaign(std::nullopt, plan, dir.str(), false).state;
  for (CampaignRunRecord& run : state.runs) {
    run.status = "completed";
    run.run_dir = "runs/" + run.folder + "/x";
    dir.write(run.run_dir + "/run.json",
              run_json(run.case_index == 1 ? 1 : 100, 100.0 * run.case_index).dump());
  }
  const std::string table = format_verdict_table(build_campaign_report(plan, state, dir.str()));
  EXPECT_NE(table.find("load: none vs compile (policy fifo)   ~ (too few runs)   ~ (too few runs)"),
            std::string::npos)
      << table;
  EXPECT_EQ(format_verdict_table(CampaignReport{}), "");
}

// The terminal's block: the medians, the verdicts cut to what was claimed, the claimed
// difference's sentence, the closest call; never a "no difference" sentence.
TEST(CampaignReport, TheShortBlockHasTheClaimsAndTheClosestCallButNoNoDifferenceSentences) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  ASSERT_TRUE(r.verdicts[0].resolved);
  ASSERT_FALSE(r.verdicts[2].resolved);
  const std::string brief = format_campaign_brief(r);
  EXPECT_EQ(brief.find("no difference in"), std::string::npos) << brief;
  EXPECT_EQ(brief.find("[IQR]"), std::string::npos) << "no distributions: " << brief;
  EXPECT_EQ(brief.find("xrunlab run"), std::string::npos) << "no case arguments: " << brief;
  EXPECT_NE(brief.find("\n   " + r.verdicts[0].sentence + "\n"), std::string::npos) << brief;
  // The medians: fifo 1..5 events in 60 s each (median 3 /min), other 11..14 (12.5); Delay
  // Maximum 101..105 (103) and 101..104 (102.5, 3 significant digits: 102).
  EXPECT_NE(brief.find("   case      runs  xrun_rate  xrun_count  delay_max\n"), std::string::npos)
      << brief;
  EXPECT_NE(brief.find("   01-fifo      5          3           0        103\n"), std::string::npos)
      << brief;
  EXPECT_NE(brief.find("   02-other     4       12.5           0        102\n"), std::string::npos)
      << brief;
  // The glance: the pair's row, the claimed figure's column only.
  EXPECT_NE(brief.find("   pair                   xrun_rate\n"
                       "   policy: fifo vs other  fifo (q = 0.048)\n"),
            std::string::npos)
      << brief;
  // The closest call: xrun_count's medians are equal (no difference to resolve), delay_max's
  // differ (103 vs 102.5): its estimate, for a difference as large as the one seen.
  ASSERT_EQ(closest_call(r), std::optional<size_t>(2));
  const stats::RunsNeeded needed =
      stats::runs_needed(r.cases[0].of("delay_max"), r.cases[1].of("delay_max"), 0.5 / 103);
  ASSERT_TRUE(needed.runs_per_case);
  EXPECT_NE(brief.find(fmt::format("\n About {} runs per case would resolve the closest call, "
                                   "delay_max, policy: fifo vs other (median 103 vs 102 us; an "
                                   "estimate for a difference as large, at this noise, in one "
                                   "comparison; 5 vs 4 runs now)\n",
                                   *needed.runs_per_case)),
            std::string::npos)
      << brief;
  // campaign-summary.json has it too, for a script.
  const json j = campaign_report_json(r);
  EXPECT_EQ(j["closest_call"]["verdict"], 2);
  EXPECT_EQ(j["closest_call"]["figure"], "delay_max");
  EXPECT_EQ(j["closest_call"]["pair"], "policy: fifo vs other");
  EXPECT_EQ(j["closest_call"]["runs_per_case"], *needed.runs_per_case);
  EXPECT_EQ(j["verdicts"][2]["runs_needed_seen"], *needed.runs_per_case);
  EXPECT_EQ(j["closest_call"]["sentence"].get<std::string>().rfind("About ", 0), 0u);
  EXPECT_NE(brief.find(j["closest_call"]["sentence"].get<std::string>()), std::string::npos);
  // The file leads with the same block, then has everything.
  const std::string full = format_campaign_report(r);
  EXPECT_EQ(full.find(brief), std::string("Campaign r\n\n").size()) << full;
  EXPECT_NE(full.find(r.verdicts[2].sentence), std::string::npos) << full;
  EXPECT_NE(full.find("3 [2..4] 1..5"), std::string::npos) << full;
}

// The campaign's report.html: its headline as the heading, the short block, the plot embedded
// or said missing, every verdict and the whole text, all escaped.
TEST(CampaignReport, TheHtmlPageLeadsWithTheHeadlineAndHoldsTheWholeText) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  EXPECT_EQ(campaign_headline(r),
            "campaign r: 2 cases, 9 finished runs; 1 difference resolved (of 3 comparisons)");
  const std::string png("\x89PNG\r\n\x1a\nrest", 12);
  const std::string page = format_campaign_html(r, {{"campaign.png", png}});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<h1 id=\"verdict\">" + campaign_headline(r) + "</h1>"), std::string::npos);
  EXPECT_NE(page.find(html_escape(format_campaign_brief(r))), std::string::npos);
  EXPECT_NE(page.find(html_escape(format_campaign_report(r))), std::string::npos);
  EXPECT_NE(page.find("src=\"data:image/png;base64,"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos) << "nothing fetched";
  const std::string missing = format_campaign_html(r, {{"campaign.png", std::nullopt}});
  EXPECT_EQ(missing.find("<img"), std::string::npos);
  EXPECT_NE(missing.find("campaign.png: not drawn"), std::string::npos);
}

// -q: the two tables alone.
TEST(CampaignReport, TheQuietBlockIsTheTablesAlone) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  const std::string quiet = format_campaign_brief(r, true);
  EXPECT_EQ(quiet, format_case_medians(r) + "\n" + format_verdict_glance(r));
  EXPECT_EQ(quiet.find(r.verdicts[0].sentence), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("closest call"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("no difference in"), std::string::npos) << quiet;
}

TEST(CampaignReport, WithoutAClaimTheGlanceIsOneLine) {
  TempDir dir{"campaign-report-none"};
  const CampaignPlan plan =
      plan_campaign(parse_campaign("name = \"n\"\nrepetitions = 2\nseed = 1\n[axes]\n"
                                   "load = [\"none\", \"compile\"]\npolicy = [\"fifo\"]\n",
                                   "c.toml"),
                    1, std::nullopt, accept);
  CampaignState state = resume_campaign(std::nullopt, plan, dir.str(), false).state;
  for (CampaignRunRecord& run : state.runs) {
    run.status = "completed";
    run.run_dir = "runs/" + run.folder + "/x";
    // none: 1 and 2 xrun events; compile: 101 and 102.
    dir.write(run.run_dir + "/run.json",
              run_json((run.case_index == 1 ? 0 : 100) + run.rep, 100.0 * run.case_index).dump());
  }
  const CampaignReport r = build_campaign_report(plan, state, dir.str());
  EXPECT_EQ(format_verdict_glance(r),
            " Verdicts: 1 pair(s) of cases one axis apart x 3 figure(s), 3 comparisons: no "
            "difference resolved (too few runs: the test cannot reach p < 0.05)\n");
  const std::string brief = format_campaign_brief(r);
  EXPECT_EQ(brief.find("no difference in"), std::string::npos) << brief;
  // xrun_rate differs (1.5 vs 101.5 a minute); delay_max's runs are equal within each case (no
  // noise: no estimate), xrun_count is 0 in every run.
  EXPECT_NE(brief.find(" runs per case would resolve the closest call, xrun_rate, load: none vs "
                       "compile (policy fifo) (median 1.5 vs 102 /min;"),
            std::string::npos)
      << brief;
  EXPECT_NE(brief.find("; 2 vs 2 runs now)\n"), std::string::npos) << brief;
}

TEST(CampaignReport, OnlyCasesOneAxisApartAreCompared) {
  const CampaignPlan p =
      plan_campaign(parse_campaign("name = \"a\"\n[axes]\npolicy = [\"fifo\", \"other\"]\n"
                                   "load = [\"none\", \"compile\"]\n",
                                   "c.toml"),
                    1, std::nullopt, accept);
  ASSERT_EQ(p.cases.size(), 4u);  // fifo/none, fifo/compile, other/none, other/compile
  EXPECT_TRUE(one_axis_apart(p.cases[0], p.cases[1])) << "the load only";
  EXPECT_TRUE(one_axis_apart(p.cases[0], p.cases[2])) << "the policy only";
  EXPECT_FALSE(one_axis_apart(p.cases[0], p.cases[3])) << "both changed at once";
  EXPECT_FALSE(one_axis_apart(p.cases[1], p.cases[2]));
  EXPECT_FALSE(one_axis_apart(p.cases[0], p.cases[0]));
}

TEST(CampaignReport, ExtraCasesAreComparedOnlyWithCasesSettingTheSameKeys) {
  const CampaignPlan p =
      plan_campaign(parse_campaign("name = \"a\"\n[axes]\nload = [\"none\", \"cpu:1\"]\n"
                                   "[[cases]]\nload = \"bench\"\nbaseline = \"none\"\n"
                                   "[[cases]]\nload = \"bench\"\nbaseline = \"cyclictest\"\n",
                                   "c.toml"),
                    1, std::nullopt, accept);
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_TRUE(one_axis_apart(p.cases[0], p.cases[1]));
  EXPECT_TRUE(one_axis_apart(p.cases[2], p.cases[3])) << "the baseline only";
  EXPECT_FALSE(one_axis_apart(p.cases[0], p.cases[2])) << "load alone vs load and baseline";
  EXPECT_FALSE(one_axis_apart(p.cases[1], p.cases[3]));
}

TEST(CampaignReport, ThresholdsAreCheckedOnEachCasesMedian) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  const std::vector<JunitCase> cases =
      campaign_threshold_cases(r, {parse_threshold("xruns>10"), parse_threshold("slack_p1<1ms")});
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_FALSE(cases[0].checks[0].crossed) << "fifo's median is 3";
  EXPECT_TRUE(cases[1].checks[0].crossed) << "other's median is 12.5";
  EXPECT_TRUE(cases[0].checks[1].crossed) << "not measured fails";
  EXPECT_EQ(cases[1].name, "02-other");
  EXPECT_DOUBLE_EQ(cases[0].seconds, 5 * 61.5) << "the case's finished runs' wall time";
  EXPECT_DOUBLE_EQ(cases[1].seconds, 4 * 61.5);
}

TEST(CampaignReport, LavaCasesAreEachCasesRunsAndMedians) {
  Fixture f;
  const CampaignReport r = build_campaign_report(f.plan, f.state, f.dir.str());
  const std::vector<LavaCase> cases = campaign_lava_cases(r, {parse_threshold("xruns>10")});
  ASSERT_EQ(cases.size(), 2 * (1 + lava_figures().size()));
  const auto line_of = [&cases](const std::string& name) {
    for (const LavaCase& c : cases) {
      if (c.name == name) return lava_line(c);
    }
    return "no case " + name;
  };
  EXPECT_EQ(line_of("01-fifo-runs"),
            "lava-test-case 01-fifo-runs --result pass --measurement 5 --units runs");
  EXPECT_EQ(line_of("02-other-runs"),
            "lava-test-case 02-other-runs --result pass --measurement 4 --units runs");
  // The median, checked as campaign_threshold_cases checks it.
  EXPECT_EQ(line_of("01-fifo-xruns"),
            "lava-test-case 01-fifo-xruns --result pass --measurement 3 --units count");
  EXPECT_EQ(line_of("02-other-xruns"),
            "lava-test-case 02-other-xruns --result fail --measurement 12.5 --units count");
  // No run has a slack: skip, no measurement.
  EXPECT_EQ(line_of("01-fifo-slack_p1"), "lava-test-case 01-fifo-slack_p1 --result skip");
}

}  // namespace
}  // namespace xrunlab

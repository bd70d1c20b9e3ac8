// SPDX-License-Identifier: GPL-2.0-or-later
// Across runs: the SUMMARY and compare writers (RunRecord itself: run_record_test.cpp).
#include "engine/report/multirun.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "engine/base/errors.hpp"
#include "engine/report/run_record.hpp"
#include "tests/support/files.hpp"
#include "tests/support/jack_test_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::import_fixture;

using testing_support::expect_golden;
using testing_support::fixture_text;
using testing_support::read_text;
using testing_support::TempDir;

// Hand-made xrunlab runs: two under "fifo", one under "iso-emu" (lacking DSP load and p99).
std::vector<RunRecord> hand_made_runs() {
  std::vector<RunRecord> v;
  for (int i = 0; i < 3; ++i) {
    RunRecord r;
    r.label = i < 2 ? "fifo" : "iso-emu";
    r.source = "results/" + r.label + "/20261130T1" + std::to_string(i) + "0000Z";
    r.started_utc = "2026-11-30T1" + std::to_string(i) + ":00:00Z";
    r.status = "completed";
    r.definitions = "jack1-rules";
    r.policy = "SCHED_FIFO 70 (server) / 65 (clients)";
    r.seconds = 20;
    r.clients = 14;
    r.ports = 4;
    r.frames = i == 2 ? 256 : 128;
    r.timeout_count = i;
    r.xrun_count = 3 * i;
    r.delay_over_spare = 0;
    r.delay_over_1000 = 100 + i;
    r.delay_max_us = 2395 + 1000 * i;
    r.cycle_max_us = 2457 + 1000 * i;
    if (i < 2) r.dsp_load_pct = 46.15 + i;
    r.cpu_system_pct = 7.16;
    r.cpu_user_pct = 92.79;
    r.cpu_nice_pct = 0;
    r.cpu_iowait_pct = 0;
    r.cpu_irq_pct = 0;
    r.cpu_softirq_pct = 0.05;
    r.intr_rate = 7552.85;
    r.ctxt_rate = 15629.37;
    if (i < 2) r.delay_p99_us = 1208 + i;
    v.push_back(r);
  }
  return v;
}

std::vector<RunRecord> golden_runs(bool with_dot_summary) {
  std::vector<RunRecord> v = hand_made_runs();
  for (const char* name :
       {"rt-2.6.12-V0.7.51-jack_test4.1-14clients.txt", "sched-iso-2.6.11-rc2-mm1-3runs.txt",
        "sched-fifo-2.6.11-rc1-mm2-jack_test4.1.txt"}) {
    for (RunRecord& r : import_fixture(name)) v.push_back(r);
  }
  if (with_dot_summary) {
    for (RunRecord& r : import_fixture("dot-SUMMARY-2005.txt")) v.push_back(r);
  }
  return v;
}

// ---- writers ----------------------------------------------------------------------------

TEST(SummaryFile, MatchesGolden) {
  expect_golden("multirun_summary.txt", format_summary_file(golden_runs(true)));
}

TEST(SummaryFile, LinesAreGreppableLikeThe2005File) {
  const std::string text = format_summary_file(import_fixture("dot-SUMMARY-2005.txt"));
  // Every metric line of the 2005 file appears verbatim (only the headers gain "(imported)").
  std::istringstream in(fixture_text("jack_test/dot-SUMMARY-2005.txt"));
  std::string line;
  size_t checked = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') line += " (imported)";
    EXPECT_NE(text.find(line + "\n"), std::string::npos) << line;
    ++checked;
  }
  EXPECT_EQ(checked, 12u + 28 + 28);  // case headers, Delay Maximum and XRUN Count lines
}

TEST(SummaryFile, ReadsBackThroughImport) {
  std::vector<RunRecord> runs = golden_runs(false);
  runs[0].dsp_load_pct.reset();  // the first of two "fifo" runs lacks a field the second has
  runs[0].delay_p99_us.reset();
  runs.push_back(import_fixture("consolidated-jack_test3-6runs.txt").at(0));
  std::string why;
  const auto back = import_jack_test(format_summary_file(runs), "SUMMARY", &why);
  ASSERT_EQ(back.size(), runs.size()) << why;
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(back[i].delay_max_us, runs[i].delay_max_us) << i;
    EXPECT_EQ(back[i].xrun_count, runs[i].xrun_count) << i;
    EXPECT_EQ(back[i].delay_p99_us, runs[i].delay_p99_us) << i;
    // "n/a" keeps the runs in step; loads are printed with one decimal, as jack_test did.
    ASSERT_EQ(back[i].dsp_load_pct.has_value(), runs[i].dsp_load_pct.has_value()) << i;
    if (runs[i].dsp_load_pct) {
      EXPECT_NEAR(*back[i].dsp_load_pct, *runs[i].dsp_load_pct, 0.051) << i;
    }
    EXPECT_EQ(back[i].runs, runs[i].runs) << i;
    EXPECT_EQ(back[i].maxima_are_means, runs[i].maxima_are_means) << i;
    EXPECT_EQ(back[i].xrun_rate_per_hour, runs[i].xrun_rate_per_hour) << i;
  }
}

// A consolidated block's rates are shown as rates (never in a count's line) and its maxima,
// means of the runs' maxima, are marked.
TEST(SummaryFile, ConsolidatedRatesAndMeansAreMarked) {
  std::vector<RunRecord> runs = hand_made_runs();
  runs.push_back(import_fixture("consolidated-jack_test3-6runs.txt").at(0));
  const std::string text = format_summary_file(runs);
  const std::string group =
      "# consolidated-jack_test3-6runs (consolidated) (imported) [jack_test]\n";
  EXPECT_NE(text.find(group + "XRUN Rate . . . . . . . . . . : 4.0 /hour\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(group + "Delay Rate (>spare time) . . : 2.0 /hour\n"), std::string::npos);
  EXPECT_EQ(text.find(group + "XRUN Count"), std::string::npos);
  EXPECT_NE(text.find(group + "Number of runs . . . . . . . :( 6)\n"), std::string::npos);
  EXPECT_NE(text.find("xruns_per_hour"), std::string::npos);
  EXPECT_NE(text.find("412.0 (m)"), std::string::npos);  // mean Delay Maximum
  EXPECT_NE(text.find("690 (m)"), std::string::npos);    // Cycle Maximum
  EXPECT_NE(text.find("  * consolidated-jack_test3-6runs (consolidated) (imported) [jack_test]: "
                      "jack_test's "
                      "CONSOLIDATED RESULTS; 1 record stands for 6 runs: events are rates per "
                      "hour over them, maxima the mean of their maxima\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  (m): the mean of the runs' maxima (jack_test's CONSOLIDATED RESULTS), "
                      "not a maximum\n"),
            std::string::npos);
  // Without a consolidated block the table has no rate column and no legend.
  const std::string plain = format_summary_file(hand_made_runs());
  EXPECT_EQ(plain.find("xruns_per_hour"), std::string::npos);
  EXPECT_EQ(plain.find("(m)"), std::string::npos);
}

TEST(SummaryFile, EmptyInputGivesAnEmptyTable) {
  const std::string text = format_summary_file({});
  EXPECT_EQ(text.find('#'), std::string::npos);
  EXPECT_NE(text.find("Per label"), std::string::npos);
}

TEST(SummaryCsv, OneRowPerRunAllFields) {
  const std::string csv = format_summary_csv(hand_made_runs());
  std::istringstream in(csv);
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("label,source,imported,started_utc,status,policy,loads,runs,seconds,", 0),
            0u);
  EXPECT_NE(header.find(",delay_p99_us"), std::string::npos);
  size_t rows = 0;
  while (std::getline(in, row)) ++rows;
  EXPECT_EQ(rows, 3u);
  EXPECT_NE(csv.find("iso-emu,results/iso-emu/20261130T120000Z,0,"), std::string::npos);
}

TEST(SummaryJson, RunsAndLabelAggregates) {
  const nlohmann::json j = summary_json(golden_runs(false));
  EXPECT_EQ(j["runs"].size(), 6u);
  ASSERT_GE(j["labels"].size(), 2u);
  const nlohmann::json& fifo = j["labels"][0];
  EXPECT_EQ(fifo["name"], "fifo [jack1-rules]");  // marked: imports of jack_test are shown too
  EXPECT_EQ(fifo["label"], "fifo");
  EXPECT_EQ(fifo["definitions"], "jack1-rules");
  EXPECT_EQ(fifo["runs"], 2);
  EXPECT_EQ(fifo["delay_max_worst_us"], 3395.0);
  EXPECT_EQ(fifo["delay_max_mean_us"], 2895.0);
  EXPECT_EQ(fifo["xrun_total"], 3.0);
  EXPECT_EQ(fifo["delay_p99_worst_us"], 1209.0);
  const nlohmann::json& iso3 = j["labels"][3];
  EXPECT_EQ(iso3["name"], "sched-iso-2.6.11-rc2-mm1-3runs (imported) [jack_test]");
  EXPECT_EQ(iso3["imported"], true);
  EXPECT_EQ(iso3["jack_test_runs"], 3);
  EXPECT_TRUE(iso3["delay_p99_worst_us"].is_null());
}

TEST(Compare, ByRunMatchesGolden) {
  expect_golden("multirun_compare_runs.txt", format_compare(golden_runs(false), GroupBy::kRun));
}

TEST(Compare, ByLabelMatchesGolden) {
  expect_golden("multirun_compare_labels.txt", format_compare(golden_runs(true), GroupBy::kLabel));
}

TEST(Compare, CsvByLabelMatchesGolden) {
  expect_golden("multirun_compare_labels.csv",
                format_compare_csv(golden_runs(false), GroupBy::kLabel));
}

TEST(Compare, JsonAggregatesLikeTheText) {
  const nlohmann::json j = compare_json(hand_made_runs(), GroupBy::kLabel);
  EXPECT_EQ(j["by"], "label");
  ASSERT_EQ(j["columns"].size(), 2u);
  const nlohmann::json& fifo = j["columns"][0];
  EXPECT_EQ(fifo["title"], "fifo");
  EXPECT_EQ(fifo["fields"]["xrun_count"], 3.0);       // total
  EXPECT_EQ(fifo["fields"]["delay_max_us"], 3395.0);  // worst
  EXPECT_EQ(fifo["fields"]["timeout_count"], 1.0);    // total
  EXPECT_EQ(fifo["fields"]["seconds"], 40.0);         // total
  EXPECT_EQ(fifo["fields"]["dsp_load_pct"], 46.65);   // mean
  EXPECT_EQ(fifo["fields"]["frames"], 128.0);         // all agree
  const nlohmann::json both = compare_json(hand_made_runs(), GroupBy::kRun);
  EXPECT_EQ(both["by"], "run");
  EXPECT_EQ(both["columns"].size(), 3u);
  EXPECT_TRUE(both["columns"][2]["fields"]["dsp_load_pct"].is_null());
  std::vector<RunRecord> mixed = hand_made_runs();
  for (RunRecord& r : mixed) r.label = "all";
  EXPECT_EQ(compare_json(mixed, GroupBy::kLabel)["columns"][0]["fields"]["frames"], "mixed");
}

TEST(Compare, ConsolidatedShowsRatesAndMarksMeans) {
  std::vector<RunRecord> runs = hand_made_runs();
  runs.push_back(import_fixture("consolidated-jack_test3-6runs.txt").at(0));
  const std::string text = format_compare(runs, GroupBy::kLabel);
  EXPECT_NE(text.find(" XRUN Rate . . . . . . . . . . :"), std::string::npos) << text;
  EXPECT_NE(text.find("4.0  /hour\n"), std::string::npos) << text;
  EXPECT_NE(text.find("412 (m)  usecs\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(6)\n"), std::string::npos) << text;  // Number of runs
  EXPECT_NE(text.find("\n(m): the mean of the runs' maxima"), std::string::npos) << text;
  // No rate rows and no legend when no record has them.
  const std::string plain = format_compare(hand_made_runs(), GroupBy::kLabel);
  EXPECT_EQ(plain.find("Rate . ."), std::string::npos);
  EXPECT_EQ(plain.find("(m)"), std::string::npos);

  const nlohmann::json j = compare_json(runs, GroupBy::kLabel);
  ASSERT_EQ(j["columns"].size(), 3u);
  const nlohmann::json& c = j["columns"][2];
  EXPECT_EQ(c["maxima_are_means"], true);
  EXPECT_EQ(c["number_of_runs"], 6);
  EXPECT_EQ(c["fields"]["xrun_rate_per_hour"], 4.0);
  EXPECT_TRUE(c["fields"]["xrun_count"].is_null());
  EXPECT_EQ(j["columns"][0]["maxima_are_means"], false);

  // Two consolidated blocks of one label: the rate over all their time, not a plain mean.
  RunRecord a = runs.back(), b = runs.back();
  b.seconds = 600;
  b.xrun_rate_per_hour = 10.0;
  EXPECT_EQ(compare_json({a, b}, GroupBy::kLabel)["columns"][0]["fields"]["xrun_rate_per_hour"],
            (4.0 * 1800 + 10.0 * 600) / 2400);
  // Never grouped with maxima that are maxima.
  RunRecord c1 = runs.back();
  c1.maxima_are_means = false;
  c1.label = "x";
  RunRecord c2 = runs.back();
  c2.label = "x";
  EXPECT_EQ(compare_json({c1, c2}, GroupBy::kLabel)["columns"].size(), 2u);
}

// Figures of different definitions are never in one column unmarked: when the runs shown have
// several, every group, column and row names its definitions, a legend says what they mean,
// runs of different definitions are never aggregated together, and JSON and CSV carry them.
TEST(Definitions, MarkedWhenTheRunsShownHaveSeveral) {
  std::vector<RunRecord> runs = hand_made_runs();  // jack1-rules
  runs[0].definitions = "callback-delay";          // a run.json from before the definitions
  runs.resize(2);                                  // two "fifo" runs of different definitions

  const std::string compare = format_compare(runs, GroupBy::kLabel);
  EXPECT_NE(compare.find("fifo [callback-delay]"), std::string::npos) << compare;
  EXPECT_NE(compare.find("fifo [jack1-rules]"), std::string::npos) << compare;
  EXPECT_NE(compare.find("\ndefinitions (figures of different definitions are not comparable):\n"
                         "  [callback-delay] xrunlab before jack_test's definitions: Delay "
                         "Maximum, Cycle Maximum and the Delay Counts are the clients' callback "
                         "delays against the interrupt, NOT comparable with jack_test's\n"
                         "  [jack1-rules] xrunlab with jack_test's definitions: JACK1's rules "
                         "applied to jackd's wake-ups\n"),
            std::string::npos)
      << compare;
  const nlohmann::json j = compare_json(runs, GroupBy::kLabel);
  ASSERT_EQ(j["columns"].size(), 2u);  // never aggregated together
  EXPECT_EQ(j["columns"][0]["definitions"], "callback-delay");
  EXPECT_EQ(j["columns"][0]["fields"]["delay_max_us"], 2395.0);
  EXPECT_EQ(j["columns"][1]["definitions"], "jack1-rules");
  EXPECT_EQ(j["columns"][1]["fields"]["delay_max_us"], 3395.0);
  EXPECT_EQ(j["definitions"]["jack1-rules"], definitions_meaning("jack1-rules"));
  EXPECT_EQ(j["definitions"].size(), 2u);
  const std::string csv = format_compare_csv(runs, GroupBy::kLabel);
  EXPECT_NE(csv.find("\ndefinitions,callback-delay,jack1-rules\n"), std::string::npos) << csv;
  const std::string by_run = format_compare(runs, GroupBy::kRun);
  EXPECT_NE(by_run.find("fifo [callback-delay]"), std::string::npos) << by_run;

  const std::string summary = format_summary_file(runs);
  EXPECT_NE(summary.find("# fifo [callback-delay]\nDelay Maximum . . . . . . . . : 2395 usecs\n"
                         "# fifo [jack1-rules]\nDelay Maximum . . . . . . . . : 3395 usecs\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("\n  definitions (figures of different definitions are not "
                         "comparable):\n    [callback-delay] "),
            std::string::npos)
      << summary;
  const nlohmann::json sj = summary_json(runs);
  EXPECT_EQ(sj["labels"].size(), 2u);
  EXPECT_EQ(sj["labels"][0]["definitions"], "callback-delay");
  EXPECT_EQ(sj["runs"][1]["definitions"], "jack1-rules");
  EXPECT_EQ(sj["definitions"].size(), 2u);
  const std::string summary_csv = format_summary_csv(runs);
  EXPECT_NE(summary_csv.find(",maxima_are_means,definitions,host,kernel,backend\n"),
            std::string::npos);
  EXPECT_NE(summary_csv.find(",0,callback-delay,,,\n"), std::string::npos) << summary_csv;

  // A SUMMARY of several definitions imported again keeps them (the marks say which).
  std::string why;
  const auto back = import_jack_test(summary, "SUMMARY", &why);
  ASSERT_EQ(back.size(), 2u) << why;
  EXPECT_EQ(back[0].label, "fifo");
  EXPECT_EQ(back[0].definitions, "callback-delay");
  EXPECT_EQ(back[1].definitions, "jack1-rules");

  // One definitions: no marks, no legend; JSON and CSV still say which.
  std::vector<RunRecord> same = hand_made_runs();
  const std::string plain = format_compare(same, GroupBy::kLabel);
  EXPECT_EQ(plain.find('['), std::string::npos) << plain;
  EXPECT_EQ(plain.find("definitions"), std::string::npos) << plain;
  EXPECT_EQ(format_summary_file(same).find('['), std::string::npos);
  EXPECT_EQ(compare_json(same, GroupBy::kLabel)["columns"][0]["definitions"], "jack1-rules");
}

TEST(Compare, ImportedRunsNeverMixWithNewOnes) {
  std::vector<RunRecord> runs = hand_made_runs();
  RunRecord old = import_fixture("rt-2.6.12-V0.7.51-jack_test4.1-14clients.txt")[0];
  old.label = "fifo";
  runs.push_back(old);
  const std::string text = format_compare(runs, GroupBy::kLabel);
  EXPECT_NE(text.find("fifo (imported)"), std::string::npos);
  const nlohmann::json j = compare_json(runs, GroupBy::kLabel);
  ASSERT_EQ(j["columns"].size(), 3u);
  EXPECT_EQ(j["columns"][0]["fields"]["delay_max_us"], 3395.0);
  EXPECT_EQ(j["columns"][2]["fields"]["delay_max_us"], 18.0);
}

// Runs grouped by where they ran or their policy; imports, which do not record it, apart.
TEST(GroupBy, HostKernelBackendPolicy) {
  std::vector<RunRecord> runs = hand_made_runs();
  runs[0].host = "studio";
  runs[1].host = "studio";
  runs[2].host = "laptop";
  runs[0].kernel = "6.1.0-rt7";
  runs[1].kernel = "6.6.0";
  runs[2].kernel = "6.1.0-rt7";
  for (RunRecord& r : runs) r.backend = "vcard";
  runs[2].policy = "SCHED_OTHER";
  runs.push_back(import_fixture("rt-2.6.12-V0.7.51-jack_test4.1-14clients.txt").at(0));

  auto titles = [&](GroupBy by) {
    std::vector<std::string> out;
    const nlohmann::json j = compare_json(runs, by);
    for (const nlohmann::json& c : j["columns"]) out.push_back(c["title"]);
    return out;
  };
  using V = std::vector<std::string>;
  const std::string old = "(not recorded) (imported) [jack_test]";
  EXPECT_EQ(titles(GroupBy::kHost), (V{"studio [jack1-rules]", "laptop [jack1-rules]", old}));
  EXPECT_EQ(titles(GroupBy::kKernel), (V{"6.1.0-rt7 [jack1-rules]", "6.6.0 [jack1-rules]", old}));
  EXPECT_EQ(titles(GroupBy::kBackend), (V{"vcard [jack1-rules]", old}));
  EXPECT_EQ(titles(GroupBy::kPolicy), (V{"SCHED_FIFO 70 (server) / 65 (clients) [jack1-rules]",
                                         "SCHED_OTHER [jack1-rules]", old}));
  // Label and kernel together: a campaign's case on each kernel, side by side.
  const V both = titles(GroupBy::kLabelKernel);
  ASSERT_EQ(both.size(), 4u);
  EXPECT_EQ(V(both.begin(), both.begin() + 3),
            (V{"fifo @ 6.1.0-rt7 [jack1-rules]", "fifo @ 6.6.0 [jack1-rules]",
               "iso-emu @ 6.1.0-rt7 [jack1-rules]"}));
  EXPECT_NE(both[3].find(" @ (not recorded) (imported) [jack_test]"), std::string::npos) << both[3];
  const nlohmann::json kernel = compare_json(runs, GroupBy::kKernel);
  EXPECT_EQ(kernel["by"], "kernel");
  EXPECT_EQ(kernel["columns"][0]["fields"]["xrun_count"], 6.0);  // runs 0 and 2: 0 + 6
  EXPECT_EQ(kernel["columns"][0]["subtitle"], "2 runs");

  const std::string text = format_summary_file(runs, GroupBy::kHost);
  EXPECT_NE(text.find("\nPer host (delays"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  host  "), std::string::npos) << text;
  EXPECT_NE(text.find("# studio [jack1-rules]\nDelay Maximum . . . . . . . . : 2395 usecs\n"
                      "Delay Maximum . . . . . . . . : 3395 usecs\n"),
            std::string::npos)
      << text;
  const nlohmann::json j = summary_json(runs, GroupBy::kHost);
  EXPECT_EQ(j["by"], "host");
  EXPECT_EQ(j["labels"][1]["host"], "laptop");
  EXPECT_EQ(j["labels"][1]["name"], "laptop [jack1-rules]");

  for (const char* word : {"run", "label", "host", "kernel", "backend", "policy", "label-kernel"}) {
    const std::optional<GroupBy> by = parse_group_by(word);
    ASSERT_TRUE(by) << word;
    EXPECT_STREQ(group_by_name(*by), word);
  }
  EXPECT_FALSE(parse_group_by("colour"));
}

TEST(CompareData, WritesOneRowPerRun) {
  TempDir tmp;
  const std::string path = write_compare_data(golden_runs(false), tmp.str());
  EXPECT_EQ(path, tmp.str() + "/compare_runs.csv");
  // The group's medians on every row: fifo's runs had 0 and 3 xruns (median 1.5) and Delay
  // Maxima 2395 and 3395 (2895).
  EXPECT_EQ(read_text(path),
            "label,run_index,delay_max_us,delay_p99_us,xrun_count,imported,x,tick,group,"
            "median_xrun_count,median_delay_max_us\n"
            "fifo [jack1-rules],1,2395,1208,0,0,-0.300,fifo [jack1-rules],0,1.5,2895\n"
            "fifo [jack1-rules],2,3395,1209,3,0,0.300,,0,1.5,2895\n"
            "iso-emu [jack1-rules],1,4395,,6,0,1.000,iso-emu [jack1-rules],1,6,4395\n"
            "rt-2.6.12-V0.7.51-jack_test4.1-14clients (imported) [jack_test],1,18,,0,1,2.000,"
            "rt-2.6.12-V0.7.51-jack_test4.1-14clients (imported) [jack_test],2,0,18\n"
            "sched-iso-2.6.11-rc2-mm1-3runs (imported) [jack_test],1,150,,0,1,3.000,"
            "sched-iso-2.6.11-rc2-mm1-3runs (imported) [jack_test],3,0,150\n"
            "jack_test4-2.6.11-rc1-mm2-fifo (imported) [jack_test],1,0,,41,1,4.000,"
            "jack_test4-2.6.11-rc1-mm2-fifo (imported) [jack_test],4,41,0\n");
}

TEST(CompareData, UnwritableFolderThrows) {
  EXPECT_THROW(write_compare_data(hand_made_runs(), "/nonexistent/folder"), Error);
}

}  // namespace
}  // namespace xrunlab

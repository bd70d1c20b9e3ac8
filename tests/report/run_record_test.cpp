// SPDX-License-Identifier: GPL-2.0-or-later
// RunRecord: one run as seen across runs. Import of old jack_test summaries, the mapping from
// the result model, run.json reading (the fast path over partial documents) and records JSON.
#include "engine/report/run_record.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "engine/result/run_json.hpp"
#include "tests/support/files.hpp"
#include "tests/support/jack_test_fixtures.hpp"
#include "tests/support/sample_result.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::import_fixture;

namespace fs = std::filesystem;

using testing_support::fixture_text;
using testing_support::TempDir;

// A small run.json in the layout of a real run, with per-client and per-second arrays that
// read_run_folder must skip.
nlohmann::json sample_run_json(const std::string& label, double delay_max) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["spec"] = {{"label", label}, {"policy", "fifo"}};
  j["host"] = {{"hostname", "vm"}, {"kernel", {{"release", "6.1.0-rt7"}, {"cmdline", "quiet"}}}};
  j["jack"] = {{"server_name", "xrunlab-1"}, {"backend", {{"name", "vcard"}}}};
  j["started_utc"] = "2026-11-30T10:32:19Z";
  j["status"] = "completed";
  j["scheduling"] = {{"label", "SCHED_FIFO 70 (server) / 65 (clients)"},
                     {"threads_start", nlohmann::json::array()}};
  j["settings"] = {{"clients", 14}, {"ports", 4}, {"frames", 128}, {"rate_hz", 48000}};
  j["measurement"] = {{"seconds_ran", 20.0}};
  j["totals"] = {{"timeout_count", 14},
                 {"xrun_count", 3},
                 {"delay_over_spare", 0},
                 {"delay_over_1000us", 16420},
                 {"delay_us", {{"max", delay_max}, {"p99", {{"value_us", 1208}, {"exact", true}}}}},
                 {"cycle_us", {{"max", 2457}}},
                 {"avg_dsp_load_pct", 46.14768733978271},
                 {"avg_cpu_user_pct", 92.78986881071708},
                 {"avg_cpu_nice_pct", 0.0},
                 {"avg_cpu_system_pct", 7.160378714035391},
                 {"avg_cpu_iowait_pct", 0.0},
                 {"avg_cpu_irq_pct", 0.0},
                 {"avg_cpu_softirq_pct", 0.0},
                 {"avg_interrupt_rate", 7552.853916495876},
                 {"avg_context_switch_rate", 15629.370775351408}};
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < 100; ++i) rows.push_back({i, 375, 0, 21.3, 83});
  j["clients"] = nlohmann::json::array({{{"index", 1}, {"per_second", {{"rows", rows}}}}});
  j["system_per_second"] = rows;
  j["loads"] = nlohmann::json::array({{{"spec", "compile"}}, {{"spec", "hackbench:4"}}});
  return j;
}

// ---- import -----------------------------------------------------------------------------

TEST(ImportJackTest, SchedFifoBlockWithHeadHeader) {
  const auto v = import_fixture("sched-fifo-2.6.11-rc1-mm2-jack_test4.1.txt");
  ASSERT_EQ(v.size(), 1u);
  const RunRecord& r = v[0];
  EXPECT_EQ(r.label, "jack_test4-2.6.11-rc1-mm2-fifo");  // from "==> ....log <=="
  EXPECT_TRUE(r.imported);
  EXPECT_EQ(r.definitions, "jack_test");
  EXPECT_EQ(r.host, "");  // jack_test's text does not say; nothing is guessed from names
  EXPECT_EQ(r.kernel, "");
  EXPECT_EQ(r.backend, "");
  EXPECT_EQ(r.status, "imported");
  EXPECT_EQ(r.started_utc, "");
  EXPECT_EQ(r.runs, 1);
  EXPECT_EQ(r.xrun_count, 41.0);
  EXPECT_EQ(r.cycle_max_us, 10968.0);
  EXPECT_EQ(r.delay_max_us, 0.0);
  EXPECT_EQ(r.timeout_count, 0.0);
  EXPECT_EQ(r.dsp_load_pct, 44.3);
  EXPECT_EQ(r.cpu_user_pct, 17.1);
  EXPECT_EQ(r.ctxt_rate, 19052.6);
  EXPECT_FALSE(r.seconds.has_value());  // this post lacked the settings block
  EXPECT_FALSE(r.clients.has_value());
  EXPECT_FALSE(r.delay_p99_us.has_value());
}

TEST(ImportJackTest, Rt2612FourteenClients) {
  const auto v = import_fixture("rt-2.6.12-V0.7.51-jack_test4.1-14clients.txt");
  ASSERT_EQ(v.size(), 1u);
  const RunRecord& r = v[0];
  EXPECT_EQ(r.label, "rt-2.6.12-V0.7.51-jack_test4.1-14clients");  // the file's stem
  EXPECT_EQ(r.clients, 14.0);
  EXPECT_EQ(r.ports, 4.0);
  EXPECT_EQ(r.frames, 64.0);
  EXPECT_EQ(r.seconds, 300.0);
  EXPECT_EQ(r.delay_max_us, 18.0);
  EXPECT_EQ(r.cycle_max_us, 637.0);
  EXPECT_EQ(r.dsp_load_pct, 36.3);
  EXPECT_EQ(r.cpu_system_pct, 18.8);
  EXPECT_EQ(r.intr_rate, 1680.1);
  EXPECT_EQ(r.runs, 1);
}

TEST(ImportJackTest, IdleJackTest3) {
  const auto v = import_fixture("idle-2.6.10-rt-jack_test3.txt");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].xrun_count, 0.0);
  EXPECT_EQ(v[0].delay_max_us, 0.0);
  EXPECT_EQ(v[0].cycle_max_us, 582.0);
  EXPECT_EQ(v[0].dsp_load_pct, 30.7);
  EXPECT_EQ(v[0].cpu_iowait_pct, 0.1);
  EXPECT_EQ(v[0].ctxt_rate, 17020.5);
  EXPECT_FALSE(v[0].frames.has_value());
}

// "Number of runs (3)": jack_test had already averaged three runs into this block. It becomes
// one record that says so (runs = 3), not three invented runs.
TEST(ImportJackTest, MultiRunBlockIsOneRecordOfThreeRuns) {
  const auto v = import_fixture("sched-iso-2.6.11-rc2-mm1-3runs.txt");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].runs, 3);
  EXPECT_EQ(v[0].clients, 10.0);
  EXPECT_EQ(v[0].delay_max_us, 150.0);
  EXPECT_EQ(v[0].cycle_max_us, 725.0);
  EXPECT_EQ(v[0].ctxt_rate, 9208.7);
}

// A block that summarised several runs printed one column per run: every column is a run of
// its own; the settings and "Number of runs (3)", printed once, belong to the whole block.
constexpr const char* kThreeColumns =
    " ************* SUMMARY RESULT ****************\n"
    " Total seconds ran . . . . . . :   300\n"
    " Number of clients . . . . . . :    14\n"
    " Ports per client  . . . . . . :     4\n"
    " Frames per buffer . . . . . . :    64\n"
    " Number of runs  . . . . . . . :(    3)\n"
    " *********************************************\n"
    " Timeout Count . . . . . . . . :(    0)(    0)(    1)\n"
    " XRUN Count  . . . . . . . . . :    12    30     7\n"
    " Delay Count (>spare time) . . :     0     2     0\n"
    " Delay Count (>1000 usecs) . . :     0     0     0\n"
    " Delay Maximum . . . . . . . . :   150   220   180   usecs\n"
    " Cycle Maximum . . . . . . . . :   725   690   801   usecs\n"
    " Average DSP Load. . . . . . . :    32.3    31.9    33.0 %\n"
    " Average Context-Switch Rate . :  9208.7  9100.2  9301.0 /sec\n"
    " *********************************************\n";

TEST(ImportJackTest, EveryColumnOfAMultiRunBlockIsARun) {
  std::string why;
  const auto v = import_jack_test(kThreeColumns, "three.txt", &why);
  ASSERT_EQ(v.size(), 3u) << why;
  const std::vector<double> xruns = {12, 30, 7}, timeouts = {0, 0, 1}, spare = {0, 2, 0},
                            delay = {150, 220, 180}, cycle = {725, 690, 801},
                            dsp = {32.3, 31.9, 33.0}, ctxt = {9208.7, 9100.2, 9301.0};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(v[i].label, "three");
    EXPECT_EQ(v[i].runs, 1) << i;  // each column is one run, not an average of three
    EXPECT_EQ(v[i].seconds, 300.0) << i;
    EXPECT_EQ(v[i].clients, 14.0) << i;
    EXPECT_EQ(v[i].frames, 64.0) << i;
    EXPECT_EQ(v[i].xrun_count, xruns[i]) << i;
    EXPECT_EQ(v[i].timeout_count, timeouts[i]) << i;
    EXPECT_EQ(v[i].delay_over_spare, spare[i]) << i;
    EXPECT_EQ(v[i].delay_over_1000, 0.0) << i;
    EXPECT_EQ(v[i].delay_max_us, delay[i]) << i;
    EXPECT_EQ(v[i].cycle_max_us, cycle[i]) << i;
    EXPECT_EQ(v[i].dsp_load_pct, dsp[i]) << i;
    EXPECT_EQ(v[i].ctxt_rate, ctxt[i]) << i;
  }
}

// Columns that do not line up cannot be given to runs without guessing: refused, naming the line.
TEST(ImportJackTest, ColumnsThatDoNotLineUpAreRefused) {
  std::string why;
  EXPECT_TRUE(import_jack_test("XRUN Count . . . :    12    30     7\n"
                               "Delay Maximum . . . :   150   220   usecs\n",
                               "cols.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "cols.txt:2: \"Delay Maximum\" has 2 values in \"cols\" but \"XRUN Count\" (line 1) "
            "has 3: cannot tell which runs they belong to; give each block its own "
            "\"==> name <==\" header");
  EXPECT_TRUE(import_jack_test("Number of runs . . . :(    2)\n"
                               "XRUN Count . . . :    12    30     7\n",
                               "cols.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "cols.txt:1: \"Number of runs\" is 2 but the block has 3 columns (\"XRUN Count\", "
            "line 2): cannot tell which runs they are");
  // A setting printed once is the block's only when the block has columns; in a .SUMMARY-like
  // section of several one-column runs it is ambiguous.
  EXPECT_TRUE(import_jack_test("XRUN Count . . . : 1\nXRUN Count . . . : 2\n"
                               "Total seconds ran . . . : 300\n",
                               "cols.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "cols.txt:3: \"Total seconds ran\" has 1 value in \"cols\" but \"XRUN Count\" (line "
            "1) has 2: cannot tell which runs it belongs to; give each block its own "
            "\"==> name <==\" header");
}

// jack_test3_consolidated.awk's block: rates per hour over N runs and means of the runs'
// maxima. The rates stay rates (never counts), the record says it stands for 6 runs of 300 s
// and that its maxima are means.
TEST(ImportJackTest, ConsolidatedBlockKeepsRatesAsRates) {
  const auto v = import_fixture("consolidated-jack_test3-6runs.txt");
  ASSERT_EQ(v.size(), 1u);
  const RunRecord& r = v[0];
  EXPECT_EQ(r.label, "consolidated-jack_test3-6runs (consolidated)");
  EXPECT_TRUE(r.imported);
  EXPECT_EQ(r.runs, 6);
  EXPECT_TRUE(r.maxima_are_means);
  EXPECT_EQ(r.seconds, 1800.0);  // 6 runs x 300 s
  EXPECT_EQ(r.clients, 10.0);
  EXPECT_EQ(r.frames, 64.0);
  EXPECT_EQ(r.xrun_rate_per_hour, 4.0);
  EXPECT_EQ(r.delay_over_spare_rate_per_hour, 2.0);
  EXPECT_EQ(r.delay_over_1000_rate_per_hour, 0.0);
  EXPECT_FALSE(r.xrun_count);  // a rate is never presented as a count
  EXPECT_FALSE(r.delay_over_spare);
  EXPECT_FALSE(r.delay_over_1000);
  EXPECT_FALSE(r.timeout_count);
  EXPECT_EQ(r.delay_max_us, 412.0);  // the mean of the 6 runs' maxima
  EXPECT_EQ(r.cycle_max_us, 690.0);
  EXPECT_EQ(r.dsp_load_pct, 35.2);
  EXPECT_EQ(r.ctxt_rate, 9240.5);
}

// The runs' own blocks, then the consolidated block, in one file: the title keeps them apart.
TEST(ImportJackTest, ConsolidatedBlockAfterTheRunsIsASectionOfItsOwn) {
  const std::string run =
      " ************* SUMMARY RESULT ****************\n"
      " XRUN Count  . . . . . . . . . :     1\n"
      " Delay Maximum . . . . . . . . :   500   usecs\n";
  std::string why;
  const auto v = import_jack_test(
      run + run + fixture_text("jack_test/consolidated-jack_test3-6runs.txt"), "mail.txt", &why);
  ASSERT_EQ(v.size(), 3u) << why;
  EXPECT_EQ(v[0].label, "mail");
  EXPECT_EQ(v[1].label, "mail");
  EXPECT_FALSE(v[0].maxima_are_means);
  EXPECT_EQ(v[1].xrun_count, 1.0);
  EXPECT_FALSE(v[1].xrun_rate_per_hour);
  EXPECT_EQ(v[2].label, "mail (consolidated)");
  EXPECT_TRUE(v[2].maxima_are_means);
  EXPECT_EQ(v[2].xrun_rate_per_hour, 4.0);
  EXPECT_FALSE(v[2].xrun_count);
}

TEST(ImportJackTest, ConsolidatedBlocksThatCannotBeReadAreRefused) {
  std::string why;
  EXPECT_TRUE(import_jack_test(" ********** CONSOLIDATED RESULTS *************\n"
                               " XRUN Rate . . . . . . . . . . :     4.0 /hour\n"
                               " Delay Maximum . . . . . . . . :   412   usecs\n",
                               "c.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "c.txt:1: the CONSOLIDATED RESULTS block \"c (consolidated)\" has no \"Number of "
            "runs\": its rates and means cannot be told from one run's");
  EXPECT_TRUE(import_jack_test(" ********** CONSOLIDATED RESULTS *************\n"
                               " Number of runs  . . . . . . . :   n/a\n"
                               " XRUN Rate . . . . . . . . . . :     4.0 /hour\n",
                               "c.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "c.txt:1: the CONSOLIDATED RESULTS block \"c (consolidated)\" has no \"Number of "
            "runs\": its rates and means cannot be told from one run's");
  EXPECT_TRUE(import_jack_test(" ********** CONSOLIDATED RESULTS *************\n"
                               " Number of runs  . . . . . . . :(    6)\n"
                               " XRUN Count  . . . . . . . . . :     2\n",
                               "c.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "c.txt:3: \"XRUN Count\" in a CONSOLIDATED RESULTS block (line 1), which gives rates "
            "per hour over its runs, not counts");
  EXPECT_TRUE(import_jack_test(" Number of runs  . . . . . . . :(    6)\n"
                               " XRUN Rate . . . . . . . . . . :     4.0 /hour\n"
                               " XRUN Count  . . . . . . . . . :     2\n",
                               "c.txt", &why)
                  .empty());
  EXPECT_EQ(why,
            "c.txt:2: \"XRUN Rate\" (a rate of a CONSOLIDATED RESULTS block) and \"XRUN Count\" "
            "(a count, line 3) in one section \"c\": give the consolidated block its own header");
  EXPECT_TRUE(
      import_jack_test(" XRUN Rate . . . . . . . . . . :     4.0 /sec\n", "c.txt", &why).empty());
  EXPECT_EQ(why, "c.txt:1: \"XRUN Rate\" is \"4.0 /sec\": jack_test gave it in /hour");
}

TEST(ImportJackTest, DotSummaryGivesOneRecordPerRunPerCase) {
  const auto v = import_fixture("dot-SUMMARY-2005.txt");
  std::map<std::string, std::vector<const RunRecord*>> by_case;
  std::vector<std::string> order;
  for (const RunRecord& r : v) {
    if (by_case[r.label].empty()) order.push_back(r.label);
    by_case[r.label].push_back(&r);
    EXPECT_TRUE(r.imported);
    EXPECT_FALSE(r.cycle_max_us.has_value());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"sched-iso-fix", "sched-iso", "sched-fifo",
                                             "sched-iso-fix+compile", "sched-iso+compile",
                                             "sched-fifo+compile"}));
  EXPECT_EQ(v.size(), 28u);
  const std::map<std::string, size_t> counts = {
      {"sched-iso-fix", 3},         {"sched-iso", 3},         {"sched-fifo", 6},
      {"sched-iso-fix+compile", 3}, {"sched-iso+compile", 5}, {"sched-fifo+compile", 8}};
  for (const auto& [name, n] : counts) EXPECT_EQ(by_case[name].size(), n) << name;
  const std::vector<double> fifo_delay = {347, 277, 246, 199, 261, 305};
  for (size_t i = 0; i < fifo_delay.size(); ++i) {
    EXPECT_EQ(by_case["sched-fifo"][i]->delay_max_us, fifo_delay[i]);
    EXPECT_EQ(by_case["sched-fifo"][i]->xrun_count, 0.0);
  }
  EXPECT_EQ(by_case["sched-iso+compile"][3]->delay_max_us, 217192.0);
  EXPECT_EQ(by_case["sched-iso+compile"][4]->xrun_count, 101.0);
  EXPECT_EQ(by_case["sched-fifo+compile"][3]->xrun_count, 4.0);
  EXPECT_EQ(by_case["sched-iso-fix"][0]->delay_max_us, 33894.0);
  EXPECT_EQ(by_case["sched-iso-fix"][0]->xrun_count, 26.0);
}

TEST(ImportJackTest, ToleratesCrlfLeadingSpacesAndNoise) {
  const std::string text =
      "From: someone@example.org\r\n"
      "Here are my numbers:\r\n"
      "\r\n"
      "==> /home/u/logs/fifo-run.log <==\r\n"
      "    XRUN Count  . . . . . . . . . :     7\r\n"
      "\tDelay Maximum . . . . . . . . :   123   usecs\r\n"
      "Some unrelated line: with a colon\r\n"
      "==> /home/u/logs/iso-run.log <==\r\n"
      "XRUN Count . . . . . . . . . : 9\r\n";
  std::string why;
  const auto v = import_jack_test(text, "mail.txt", &why);
  ASSERT_EQ(v.size(), 2u) << why;
  EXPECT_EQ(v[0].label, "fifo-run");
  EXPECT_EQ(v[0].xrun_count, 7.0);
  EXPECT_EQ(v[0].delay_max_us, 123.0);
  EXPECT_EQ(v[1].label, "iso-run");
  EXPECT_EQ(v[1].xrun_count, 9.0);
  EXPECT_FALSE(v[1].delay_max_us.has_value());
  EXPECT_EQ(v[0].source, "mail.txt");
}

// Found by tests/fuzz/jack_test_import_fuzz.cpp: a "==>" header whose name ends in "/" has no
// file name, and its records got an empty label, which the records file could then not read
// back ("run record: no 'label'"): they take the source's name, as blocks without a header do.
TEST(ImportJackTest, AHeaderWithoutAFileNameGivesTheSourcesName) {
  std::string why;
  const auto v = import_jack_test(
      "==> /var/log/jack/ <==\nXRUN Count . . . . . . . . . : 3\n==>Frames per . : 14361.3 /\n"
      "XRUN Count . . . . . . . . . : 4\n",
      "old/mail.txt", &why);
  ASSERT_EQ(v.size(), 2u) << why;  // one section, a record per run
  EXPECT_EQ(v[0].label, "mail");
  EXPECT_EQ(v[1].label, "mail");
  EXPECT_EQ(v[1].xrun_count, 4.0);
  const auto back = records_from_file_json(records_file_json(v, "old/mail.txt"), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->at(1).label, "mail");
}

// Found by fuzzing: a header whose file name is only the definitions' mark had left a record
// without a label, which its records file then refused to read back.
TEST(ImportJackTest, AHeaderOfOnlyTheDefinitionsMarkGivesTheSourcesName) {
  std::string why;
  const auto v = import_jack_test("==> logs/ [jack1-rules]\nXRUN Count . . . . . . . . . : 3\n",
                                  "old/mail.txt", &why);
  ASSERT_EQ(v.size(), 1u) << why;
  EXPECT_EQ(v[0].label, "mail");
  EXPECT_EQ(v[0].definitions, "jack1-rules");
  const auto back = records_from_file_json(records_file_json(v, "old/mail.txt"), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->at(0).label, "mail");
}

TEST(ImportJackTest, RejectsWhatIsNotASummary) {
  for (const std::string& text :
       {std::string(), std::string("hello world\nthis is: not a summary\n"),
        std::string("Delta Maximum . . . . . . . . : 0.00000\n")}) {
    std::string why;
    EXPECT_TRUE(import_jack_test(text, "notes.txt", &why).empty());
    EXPECT_EQ(why, "notes.txt: not a jack_test summary (no known field such as 'XRUN Count')");
  }
}

// A known field that is present but is not a number is an error naming the file, the line and
// the field, never an empty record.
TEST(ImportJackTest, AValueThatIsNotANumberIsAnErrorNamingTheLine) {
  std::string why;
  EXPECT_TRUE(import_jack_test(" ************* SUMMARY RESULT ****************\n"
                               " Timeout Count . . . . . . . . :(    0)\n"
                               " XRUN Count  . . . . . . . . . :   abc\n",
                               "old.txt", &why)
                  .empty());
  EXPECT_EQ(why, "old.txt:3: \"XRUN Count\" is \"abc\", not a number");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"XRUN Count . . . : 12abc", "\"XRUN Count\" is \"12abc\", not a number"},
      {"XRUN Count . . . : inf", "\"XRUN Count\" is \"inf\", not a number"},
      {"XRUN Count . . . : nan", "\"XRUN Count\" is \"nan\", not a number"},
      {"XRUN Count . . . : 0x10", "\"XRUN Count\" is \"0x10\", not a number"},
      {"XRUN Count . . . :", "\"XRUN Count\" has no value"},
      {"Timeout Count . . . :(    3", "\"Timeout Count\" is \"(    3\", not a number"},
      {"Delay p99 . . . :>=20001   usecs", "\"Delay p99\" is \">=20001   usecs\", not a number"},
      {"Delay Maximum . . . : 150 msecs",
       "\"Delay Maximum\" is \"150 msecs\": jack_test gave it in usecs"},
      {"XRUN Count . . . : 12 usecs",
       "\"XRUN Count\" is \"12 usecs\": jack_test gave it without a unit"},
  };
  for (const auto& [line, message] : bad) {
    EXPECT_TRUE(import_jack_test("mail text\n" + line + "\n", "m.txt", &why).empty()) << line;
    EXPECT_EQ(why, "m.txt:2: " + message);
  }
  // "n/a" and "-" say "missing": imported as missing, not refused.
  const auto v = import_jack_test(
      "XRUN Count . . . : 3\nAverage DSP Load. . . : n/a\nCycle Maximum . . . : -\n", "m.txt",
      &why);
  ASSERT_EQ(v.size(), 1u) << why;
  EXPECT_EQ(v[0].xrun_count, 3.0);
  EXPECT_FALSE(v[0].dsp_load_pct);
  EXPECT_FALSE(v[0].cycle_max_us);
}

// Values that cannot have been measured are refused with the file, line and field: negative
// times and counts, counts that are not whole, times above an hour, loads outside 0..100 %.
TEST(ImportJackTest, ImpossibleValuesAreRefused) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"Cycle Maximum . . . : -5 usecs",
       "\"Cycle Maximum\" is -5 usecs: a time cannot be negative"},
      {"XRUN Count . . . : -1", "\"XRUN Count\" is -1: a count cannot be negative"},
      {"XRUN Count . . . : 2.5", "\"XRUN Count\" is 2.5: a count is a whole number"},
      {"Number of clients . . . : 1.5",
       "\"Number of clients\" is 1.5: a setting is a whole number"},
      {"Delay Maximum . . . : 1e23   usecs",
       "\"Delay Maximum\" is 1e23 usecs: more than 3600000000 usecs (one hour), not plausible "
       "for a time"},
      {"Delay Maximum . . . : 1e999   usecs",
       "\"Delay Maximum\" is 1e999 usecs: more than 3600000000 usecs (one hour), not plausible "
       "for a time"},
      {"Average DSP Load. . . : 130.0 %",
       "\"Average DSP Load\" is 130.0 %: more than 100 %, not plausible for a load"},
      {"Average CPU User Load . . . : -0.1 %",
       "\"Average CPU User Load\" is -0.1 %: a load cannot be negative"},
      {"Average Interrupt Rate . . : -3.0 /sec",
       "\"Average Interrupt Rate\" is -3.0 /sec: a rate cannot be negative"},
      {"Total seconds ran . . . : 1e9",
       "\"Total seconds ran\" is 1e9: more than 31536000 (one year), not plausible for a "
       "duration"},
      {"Number of runs . . . :(    0)", "\"Number of runs\" is 0: a number of runs is at least 1"},
      {"Number of runs . . . :(  2.5)",
       "\"Number of runs\" is 2.5: a number of runs is a whole number"},
  };
  std::string why;
  for (const auto& [line, message] : bad) {
    EXPECT_TRUE(import_jack_test("XRUN Count . . . : 0\n" + line + "\n", "f.txt", &why).empty())
        << line;
    EXPECT_EQ(why, "f.txt:2: " + message);
  }
  // The bounds themselves are values a run can have.
  const auto v = import_jack_test(
      "XRUN Count . . . : 12.0\nDelay Maximum . . . : 3600000000 usecs\n"
      "Average DSP Load. . . : 100.0 %\nAverage CPU IRQ Load  . . . . : 0.0 %\n"
      "Cycle Maximum . . . : 1.5e3 usecs\n",
      "f.txt", &why);
  ASSERT_EQ(v.size(), 1u) << why;
  EXPECT_EQ(v[0].xrun_count, 12.0);
  EXPECT_EQ(v[0].delay_max_us, 3.6e9);
  EXPECT_EQ(v[0].dsp_load_pct, 100.0);
  EXPECT_EQ(v[0].cycle_max_us, 1500.0);
}

TEST(RunRecordJson, RoundTrips) {
  std::vector<RunRecord> runs = import_fixture("dot-SUMMARY-2005.txt");
  runs.push_back(import_fixture("sched-iso-2.6.11-rc2-mm1-3runs.txt").at(0));
  runs.push_back(import_fixture("consolidated-jack_test3-6runs.txt").at(0));
  RunRecord sample = record_of(testing_support::sample_result());
  sample.label = "sample";
  runs.push_back(sample);
  RunResult empty;
  finalize(empty);
  runs.push_back(record_of(empty));
  runs.back().label = "empty";
  for (const RunRecord& r : runs) {
    const nlohmann::json j = to_json(r);
    std::string why;
    const auto back = run_record_from_json(j, &why);
    ASSERT_TRUE(back) << why;
    EXPECT_EQ(to_json(*back), j);
  }
  const nlohmann::json c = to_json(import_fixture("consolidated-jack_test3-6runs.txt").at(0));
  EXPECT_EQ(c["maxima_are_means"], true);
  EXPECT_EQ(c["xrun_rate_per_hour"], 4.0);
  EXPECT_TRUE(c["xrun_count"].is_null());
  EXPECT_EQ(c["runs"], 6);
  const nlohmann::json j = to_json(runs.back());
  EXPECT_EQ(j["maxima_are_means"], false);
  EXPECT_TRUE(j["dsp_load_pct"].is_null());
  EXPECT_TRUE(j["delay_max_us"].is_null());
  EXPECT_EQ(j["xrun_count"], 0.0);
}

// Records written before definitions existed: imports were jack_test's, xrunlab's own runs had
// the callback delays.
TEST(RunRecordJson, DefinitionsOfOlderRecords) {
  std::string why;
  const auto imported = run_record_from_json({{"label", "x"}, {"imported", true}}, &why);
  ASSERT_TRUE(imported) << why;
  EXPECT_EQ(imported->definitions, "jack_test");
  const auto own = run_record_from_json({{"label", "x"}, {"imported", false}}, &why);
  ASSERT_TRUE(own) << why;
  EXPECT_EQ(own->definitions, "callback-delay");
  const auto given = run_record_from_json({{"label", "x"}, {"definitions", "jack1-rules"}}, &why);
  ASSERT_TRUE(given) << why;
  EXPECT_EQ(given->definitions, "jack1-rules");
  EXPECT_FALSE(run_record_from_json({{"label", "x"}, {"definitions", 3}}, &why));
  EXPECT_EQ(why, "run record: 'definitions' is not a string (it is number)");
}

// The records file round-trips every field, reads files of version 1 (written before the
// definitions, rates and maxima_are_means) and refuses newer ones.
TEST(RecordsFile, RoundTripsAndReadsOlderVersions) {
  std::vector<RunRecord> runs = import_fixture("sched-iso-2.6.11-rc2-mm1-3runs.txt");
  runs.push_back(import_fixture("consolidated-jack_test3-6runs.txt").at(0));
  const nlohmann::json file = records_file_json(runs, "old.txt");
  EXPECT_EQ(file["xrunlab_records"], kRecordsVersion);
  EXPECT_EQ(file["source"], "old.txt");
  std::string why;
  const auto back = records_from_file_json(file, &why);
  ASSERT_TRUE(back) << why;
  ASSERT_EQ(back->size(), 2u);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(to_json((*back)[i]), to_json(runs[i]));
  EXPECT_EQ((*back)[1].definitions, "jack_test");
  EXPECT_TRUE((*back)[1].maxima_are_means);
  EXPECT_EQ((*back)[1].xrun_rate_per_hour, 4.0);

  // A version 1 file, as xrunlab import wrote it before.
  const nlohmann::json v1 = nlohmann::json::parse(R"({"xrunlab_records": 1, "source": "a.txt",
      "records": [{"label": "a", "source": "a.txt", "imported": true, "started_utc": "",
                   "status": "imported", "policy": "", "loads": "", "runs": 3,
                   "xrun_count": 0.0, "delay_max_us": 150.0, "dsp_load_pct": null}]})");
  const auto old = records_from_file_json(v1, &why);
  ASSERT_TRUE(old) << why;
  ASSERT_EQ(old->size(), 1u);
  EXPECT_EQ((*old)[0].definitions, "jack_test");
  EXPECT_FALSE((*old)[0].maxima_are_means);
  EXPECT_EQ((*old)[0].runs, 3);
  EXPECT_EQ((*old)[0].delay_max_us, 150.0);

  nlohmann::json newer = file;
  newer["xrunlab_records"] = kRecordsVersion + 1;
  EXPECT_FALSE(records_from_file_json(newer, &why));
  EXPECT_EQ(why,
            "records file version 3 is newer than this xrunlab reads (2): update xrunlab or "
            "import the jack_test files again");
  EXPECT_FALSE(records_from_file_json({{"runs", 1}}, &why));
  EXPECT_EQ(why, "not an xrunlab records file (from xrunlab import)");
}

TEST(RunRecordJson, RejectsBadTypesNamingTheKey) {
  RunRecord sample = record_of(testing_support::sample_result());
  sample.label = "sample";
  nlohmann::json j = to_json(sample);
  j["xrun_count"] = "many";
  std::string why;
  EXPECT_FALSE(run_record_from_json(j, &why));
  EXPECT_EQ(why, "run record: 'xrun_count' is not a number (it is string)");
  j["xrun_count"] = 1;
  j["runs"] = 0;
  EXPECT_FALSE(run_record_from_json(j, &why));
  EXPECT_EQ(why, "run record: 'runs' is not a positive integer");
  EXPECT_FALSE(run_record_from_json(nlohmann::json::array(), &why));
  EXPECT_FALSE(run_record_from_json(nlohmann::json{{"xrun_count", 1}}, &why));
  EXPECT_EQ(why, "run record: no 'label'");
}

// ---- run folders ------------------------------------------------------------------------

TEST(ReadRunFolder, ReadsTheFieldsOfRunJson) {
  TempDir tmp;
  const std::string dir = tmp.str() + "/fifo/20261130T103219Z";
  fs::create_directories(dir);
  std::ofstream(dir + "/run.json") << sample_run_json("fifo", 2395).dump(2);
  std::string why;
  const auto r = read_run_folder(dir, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->label, "fifo");
  EXPECT_EQ(r->source, dir);
  EXPECT_FALSE(r->imported);
  EXPECT_EQ(r->started_utc, "2026-11-30T10:32:19Z");
  EXPECT_EQ(r->status, "completed");
  EXPECT_EQ(r->policy, "SCHED_FIFO 70 (server) / 65 (clients)");
  EXPECT_EQ(r->loads, "compile+hackbench:4");
  EXPECT_EQ(r->host, "vm");
  EXPECT_EQ(r->kernel, "6.1.0-rt7");
  EXPECT_EQ(r->backend, "vcard");
  EXPECT_EQ(r->seconds, 20.0);
  EXPECT_EQ(r->clients, 14.0);
  EXPECT_EQ(r->ports, 4.0);
  EXPECT_EQ(r->frames, 128.0);
  EXPECT_EQ(r->timeout_count, 14.0);
  EXPECT_EQ(r->xrun_count, 3.0);
  EXPECT_EQ(r->delay_over_spare, 0.0);
  EXPECT_EQ(r->delay_over_1000, 16420.0);
  EXPECT_EQ(r->delay_max_us, 2395.0);
  EXPECT_EQ(r->delay_p99_us, 1208.0);
  EXPECT_EQ(r->cycle_max_us, 2457.0);
  EXPECT_EQ(r->dsp_load_pct, 46.14768733978271);
  EXPECT_EQ(r->cpu_user_pct, 92.78986881071708);
  EXPECT_EQ(r->cpu_system_pct, 7.160378714035391);
  EXPECT_EQ(r->cpu_softirq_pct, 0.0);
  EXPECT_EQ(r->intr_rate, 7552.853916495876);
  EXPECT_EQ(r->ctxt_rate, 15629.370775351408);
}

// read_run_folder skips the big parts of run.json without parsing them: brackets and quotes
// inside skipped strings must not confuse it, and any layout (compact, indented) reads the same.
TEST(ReadRunFolder, SkippedPartsWithTrickyStringsAndAnyLayout) {
  TempDir tmp;
  nlohmann::json j = sample_run_json("tricky \"label\" {x}", 7);
  j["host"]["cmdline"] = "a}]\\\"{[ \\";
  j["clients"][0]["name"] = "c\"}],{";
  j["zzz_after"] = {{"note", "]}"}, {"n", -1.5e3}, {"t", true}, {"z", nullptr}};
  std::string why;
  for (const std::string& text : {j.dump(), j.dump(2), j.dump(-1, ' ', true)}) {
    std::ofstream(tmp.str() + "/run.json", std::ios::trunc) << text;
    const auto r = read_run_folder(tmp.str(), &why);
    ASSERT_TRUE(r) << why;
    EXPECT_EQ(r->label, "tricky \"label\" {x}");
    EXPECT_EQ(r->delay_max_us, 7.0);
    EXPECT_EQ(r->loads, "compile+hackbench:4");
  }
  // Broken in a skipped part: still an error, not a half-read record.
  std::string broken = j.dump();
  broken.resize(broken.size() - 3);
  std::ofstream(tmp.str() + "/run.json", std::ios::trunc) << broken;
  EXPECT_FALSE(read_run_folder(tmp.str(), &why));
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
}

TEST(ReadRunFolder, NullDspLoadStaysMissing) {
  TempDir tmp;
  nlohmann::json j = sample_run_json("x", 1);
  j["totals"]["avg_dsp_load_pct"] = nullptr;
  j["totals"].erase("delay_us");
  std::ofstream(tmp.str() + "/run.json") << j.dump();
  std::string why;
  const auto r = read_run_folder(tmp.str(), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->dsp_load_pct.has_value());
  EXPECT_FALSE(r->delay_max_us.has_value());
  EXPECT_FALSE(r->delay_p99_us.has_value());
}

TEST(ReadRunFolder, SaysWhyItCannot) {
  TempDir tmp;
  std::string why;
  EXPECT_FALSE(read_run_folder(tmp.str(), &why));
  EXPECT_EQ(why, tmp.str() + "/run.json: cannot read");
  std::ofstream(tmp.str() + "/run.json") << "{\"spec\": {";
  EXPECT_FALSE(read_run_folder(tmp.str(), &why));
  EXPECT_EQ(why.rfind(tmp.str() + "/run.json: not valid JSON", 0), 0u) << why;
  std::ofstream(tmp.str() + "/run.json") << "{\"a\": 1}";
  EXPECT_FALSE(read_run_folder(tmp.str(), &why));
  EXPECT_EQ(why, tmp.str() + "/run.json: not an xrunlab run.json (no 'spec' or 'totals')");
}

TEST(FindRunFolders, FindsEveryRunFolderSorted) {
  TempDir tmp;
  for (const char* d : {"b/2", "a/1", "a/3", "c", "a/1/plots", "empty/x"}) {
    fs::create_directories(tmp.str() + "/" + d);
  }
  for (const char* d : {"b/2", "a/1", "a/3", "c"}) {
    std::ofstream(tmp.str() + "/" + d + "/run.json") << "{}";
  }
  const auto found = find_run_folders({tmp.str(), tmp.str() + "/a", tmp.str() + "/missing"});
  EXPECT_EQ(found, (std::vector<std::string>{tmp.str() + "/a/1", tmp.str() + "/a/3",
                                             tmp.str() + "/b/2", tmp.str() + "/c"}));
  EXPECT_EQ(find_run_folders({tmp.str() + "/c"}), std::vector<std::string>{tmp.str() + "/c"});
}

TEST(FindRunFolders, ACampaignGivesItsFinishedCountedRunsOnly) {
  TempDir tmp;
  const std::string c = tmp.str() + "/camp";
  // The warm-up, a finished run, a run set aside after an interrupt, the redone run, and a run
  // recorded as finished whose folder is gone.
  for (const char* d :
       {"runs/warmup/warmup/t", "runs/01-fifo-r01/01-fifo/t",
        "runs/02-other-r01.incomplete-1/02-other/t", "runs/02-other-r01/02-other/t"}) {
    fs::create_directories(c + "/" + d);
    std::ofstream(c + "/" + d + "/run.json") << "{}";
  }
  std::ofstream(c + "/campaign.json") << R"({"plan": {}, "runs": [
    {"warmup": true, "status": "completed", "run_dir": "runs/warmup/warmup/t"},
    {"warmup": false, "status": "completed", "run_dir": "runs/01-fifo-r01/01-fifo/t"},
    {"warmup": false, "status": "completed", "run_dir": "runs/02-other-r01/02-other/t"},
    {"warmup": false, "status": "completed", "run_dir": "runs/gone/x/t"},
    {"warmup": false, "status": "pending", "run_dir": ""}]})";
  const std::vector<std::string> want = {c + "/runs/01-fifo-r01/01-fifo/t",
                                         c + "/runs/02-other-r01/02-other/t"};
  EXPECT_EQ(find_run_folders({c}), want) << "the campaign folder given";
  EXPECT_EQ(find_run_folders({tmp.str()}), want) << "found below a root";
  std::ofstream(c + "/campaign.json") << "{not json";
  EXPECT_EQ(find_run_folders({c}).size(), 4u) << "an unreadable campaign.json: every run folder";
}

// ---- from the result model --------------------------------------------------------------

TEST(RecordOf, JackTestsFieldsFromTheModel) {
  RunResult r = testing_support::sample_result();
  r.spec.emplace().label = "fifo";
  r.started_utc = "2026-11-30T10:00:00Z";
  const RunRecord rec = record_of(r);
  EXPECT_EQ(rec.label, "fifo");
  EXPECT_EQ(rec.source, "");
  EXPECT_FALSE(rec.imported);
  EXPECT_EQ(rec.started_utc, "2026-11-30T10:00:00Z");
  EXPECT_EQ(rec.status, "failed");
  EXPECT_EQ(rec.policy, r.scheduling);
  EXPECT_EQ(rec.loads, "compile:2+io-write:8@nice=5");
  EXPECT_EQ(rec.runs, 1);
  EXPECT_EQ(rec.seconds, 3.02);
  EXPECT_EQ(rec.clients, 2.0);
  EXPECT_EQ(rec.ports, 4.0);
  EXPECT_EQ(rec.frames, 256.0);
  EXPECT_EQ(rec.timeout_count, 0.0);  // jack_test's definitions: see FormatSummary.RoundTrip...
  EXPECT_EQ(rec.xrun_count, 1.0);
  EXPECT_EQ(rec.delay_over_spare, 0.0);
  EXPECT_EQ(rec.delay_over_1000, 0.0);
  EXPECT_EQ(rec.definitions, "jack1-rules");
  EXPECT_EQ(rec.delay_max_us, r.jack_test.delay_max_us);
  EXPECT_FALSE(rec.cycle_max_us) << "4 cycles: no 32-cycle checkpoint, no Cycle Maximum";
  EXPECT_EQ(rec.delay_p99_us, static_cast<double>(r.delay.p99->value_us));
  EXPECT_EQ(rec.dsp_load_pct, r.avg_dsp_load);
  EXPECT_EQ(rec.cpu_user_pct, r.avg_user);
  EXPECT_EQ(rec.cpu_system_pct, r.avg_system);
  EXPECT_EQ(rec.cpu_iowait_pct, r.avg_iowait);
  EXPECT_EQ(rec.cpu_softirq_pct, r.avg_softirq);
  EXPECT_EQ(rec.intr_rate, r.avg_intr);
  EXPECT_EQ(rec.ctxt_rate, r.avg_ctxt);

  // Where it ran: for grouping runs (summary/compare --by).
  r.host.emplace().hostname = "studio";
  r.host->kernel.release = "6.1.0-rt7";
  r.backend.name = "alsa";
  const RunRecord where = record_of(r);
  EXPECT_EQ(where.host, "studio");
  EXPECT_EQ(where.kernel, "6.1.0-rt7");
  EXPECT_EQ(where.backend, "alsa");
  const nlohmann::json j = to_json(where);
  EXPECT_EQ(j["host"], "studio");
  EXPECT_EQ(j["kernel"], "6.1.0-rt7");
  EXPECT_EQ(j["backend"], "alsa");
  std::string why;
  const auto back = run_record_from_json(j, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->kernel, "6.1.0-rt7");

  // What the model does not know stays missing; no spec label is no label.
  RunResult empty;
  finalize(empty);
  const RunRecord none = record_of(empty);
  EXPECT_EQ(none.label, "");
  EXPECT_EQ(none.host, "");
  EXPECT_EQ(none.kernel, "");
  EXPECT_EQ(none.backend, "");
  EXPECT_EQ(none.loads, "");
  EXPECT_FALSE(none.delay_max_us);
  EXPECT_FALSE(none.cycle_max_us);
  EXPECT_FALSE(none.delay_p99_us);
  EXPECT_FALSE(none.dsp_load_pct);
  EXPECT_EQ(none.xrun_count, 0.0);
}

// Which definitions a run's figures follow: a run.json from before the jack_test definitions
// (none recorded) has the callback delays; a run with JACK1's rules takes Delay and Cycle
// Maximum and the Delay Counts from them, never from the callback delays.
TEST(RecordOf, DefinitionsOfTheRun) {
  RunResult r = testing_support::sample_result();
  r.jack_test = JackTestFields{};  // a run.json of before: no definitions recorded
  finalize(r);
  const RunRecord before = record_of(r);
  EXPECT_EQ(before.definitions, "callback-delay");
  EXPECT_EQ(before.delay_max_us, 6000.0);
  EXPECT_EQ(before.cycle_max_us, 6200.0);
  EXPECT_EQ(before.delay_over_spare, 2.0);
  EXPECT_EQ(before.delay_over_1000, 3.0);

  r.jack_test.definitions = "callback-delay";
  EXPECT_EQ(to_json(record_of(r)), to_json(before));

  r.jack_test.definitions = "jack1-rules";
  r.jack_test.delay_max_us = 812.5;
  r.jack_test.cycle_max_us = 1234;
  r.jack_test.delay_over_spare = 4;
  r.jack_test.delay_over_1000 = 1;
  r.jack_test.dsp_load_pct = 41.5;
  const RunRecord jack1 = record_of(r);
  EXPECT_EQ(jack1.definitions, "jack1-rules");
  EXPECT_EQ(jack1.delay_max_us, 812.5);
  EXPECT_EQ(jack1.cycle_max_us, 1234.0);
  EXPECT_EQ(jack1.delay_over_spare, 4.0);
  EXPECT_EQ(jack1.delay_over_1000, 1.0);
  EXPECT_EQ(jack1.dsp_load_pct, 41.5);
  EXPECT_EQ(jack1.xrun_count, before.xrun_count);  // the same definition either way
  EXPECT_EQ(jack1.delay_p99_us, before.delay_p99_us);

  // What JACK1's rules did not give stays missing (a maximum) or is jack_cpu_load (DSP load).
  r.jack_test.delay_max_us.reset();
  r.jack_test.cycle_max_us.reset();
  r.jack_test.dsp_load_pct.reset();
  const RunRecord partial = record_of(r);
  EXPECT_FALSE(partial.delay_max_us);
  EXPECT_FALSE(partial.cycle_max_us);
  EXPECT_EQ(partial.dsp_load_pct, r.avg_dsp_load);
}

// The fast path (only the parts a record needs) gives the record of the whole model.
TEST(ReadRunFolder, IsTheRecordOfTheWholeRunJson) {
  TempDir tmp;
  RunResult r = testing_support::sample_result();
  r.schema_version = 1;
  r.spec.emplace().label = "fifo";
  const std::string text = to_json(r).dump(2);
  std::ofstream(tmp.str() + "/run.json") << text;
  std::string why;
  const auto rec = read_run_folder(tmp.str(), &why);
  ASSERT_TRUE(rec) << why;
  RunRecord whole = record_of(*run_result_from_json(nlohmann::json::parse(text), &why));
  whole.source = tmp.str();
  EXPECT_EQ(to_json(*rec), to_json(whole));
}

TEST(ReadRunFolder, WrongTypesAreNamed) {
  TempDir tmp;
  nlohmann::json j = sample_run_json("x", 1);
  j["totals"]["xrun_count"] = "three";
  std::ofstream(tmp.str() + "/run.json") << j.dump();
  std::string why;
  EXPECT_FALSE(read_run_folder(tmp.str(), &why));
  EXPECT_EQ(why, tmp.str() +
                     "/run.json: 'totals.xrun_count' is not a non-negative integer (it is "
                     "string)");
}

}  // namespace
}  // namespace xrunlab

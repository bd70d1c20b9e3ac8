// SPDX-License-Identifier: GPL-2.0-or-later
// The run's answer: the verdict line for each outcome, the one xrun count and how the other
// witnesses compare with it, the worst cycle's hop, the floor, and what the terminal gets at
// each verbosity (short by default, two lines with -q, the whole summary with -v).
#include "engine/report/run_answer.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "engine/report/report_summary.hpp"
#include "tests/support/sample_result.hpp"

namespace xrunlab {
namespace {

using testing_support::sample_result;

RunResult completed(uint64_t events, double seconds) {
  RunResult r;
  r.status = RunStatus::kCompleted;
  r.frames = 64;
  r.rate = 48000;
  r.period_us = 64.0 * 1e6 / 48000.0;
  r.seconds_ran = seconds;
  r.xrun_cycles.present = true;
  r.xrun_cycles.events = events;
  r.xrun_cycles.cycles = events;
  r.jack_test.definitions = "jack1-rules";
  r.jack_test.delay_max_us = 268.9;
  r.jack_test.cycle_max_us = 781.2;
  r.jack_test.dsp_load_pct = 49.04;
  return r;
}

// A slack hop with one value, so the worst slack is known.
void with_slack(RunResult& r, uint64_t slack_us) {
  HopSeries h;
  h.key = "slack";
  h.kind = "slack";
  h.us.add(static_cast<int64_t>(slack_us));
  r.cycle_table.present = true;
  r.cycle_table.hops.push_back(h);
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += c == '\n' ? 1 : 0;
  return n;
}

TEST(RunAnswer, ACleanRunSaysCleanWithItsFigure) {
  RunResult r = completed(0, 300);
  with_slack(r, 212);
  const RunAnswer a = run_answer(r);
  EXPECT_TRUE(a.clean);
  EXPECT_EQ(a.verdict, "clean: 0 xrun events in 300 s at 64 frames (1.33 ms), worst slack 212 us");
  EXPECT_EQ(a.count_by, "the cycle table");
}

TEST(RunAnswer, XrunEventsMakeItNotCleanWithTheirRate) {
  const RunAnswer a = run_answer(completed(6, 10));
  EXPECT_FALSE(a.clean);
  EXPECT_EQ(a.verdict, "not clean: 6 xrun events in 10 s (0.6/s) at 64 frames (1.33 ms)");
  EXPECT_EQ(run_answer(completed(1, 10)).verdict.substr(0, 22), "not clean: 1 xrun even");
  // Never an exponent: 1295 in 10 s is 130/s; 2 in 300 s is 0.0067/s.
  EXPECT_EQ(run_answer(completed(1295, 10)).verdict.substr(0, 44),
            "not clean: 1295 xrun events in 10 s (130/s) ");
  EXPECT_EQ(run_answer(completed(2, 300)).verdict.substr(0, 44),
            "not clean: 2 xrun events in 300 s (0.0067/s)");
}

TEST(RunAnswer, WithoutACycleTableTheMonitorCounts) {
  RunResult r = completed(0, 10);
  r.xrun_cycles.present = false;
  r.xruns.monitor_events = 3;
  const RunAnswer a = run_answer(r);
  EXPECT_EQ(a.verdict.substr(0, 24), "not clean: 3 xrun events");
  EXPECT_EQ(a.count_by, "the monitor");
  EXPECT_NE(a.figures[0].definition.find("no cycle table"), std::string::npos);
}

TEST(RunAnswer, AnAudibleGlitchIsNotClean) {
  RunResult r = completed(0, 10);
  r.audio.emplace();
  r.audio->totals.glitches = 2;
  const RunAnswer a = run_answer(r);
  EXPECT_FALSE(a.clean);
  EXPECT_EQ(a.verdict,
            "not clean: 0 xrun events in 10 s at 64 frames (1.33 ms), 2 audible glitches");
}

TEST(RunAnswer, AnInterruptedOrFailedRunSaysSoFirst) {
  RunResult r = completed(0, 4.25);
  r.status = RunStatus::kInterrupted;
  EXPECT_EQ(run_answer(r).verdict.substr(0, 50),
            "interrupted after 4.2 s (clean so far): 0 xrun eve");
  r.status = RunStatus::kFailed;
  r.status_detail = "client 2 exited\nwith status 1";
  EXPECT_EQ(run_answer(r).verdict.substr(0, 46), "failed (client 2 exited with status 1): 0 xrun");
  EXPECT_FALSE(run_answer(r).clean);
}

TEST(RunAnswer, JackTestsFiguresAreTheBlocksValues) {
  const RunAnswer a = run_answer(completed(0, 10));
  ASSERT_EQ(a.figures.size(), 5u);
  EXPECT_EQ(a.figures[1].label, "XRUN Count");
  EXPECT_EQ(a.figures[1].value, "0");
  EXPECT_EQ(a.figures[2].label, "Delay Maximum");
  EXPECT_EQ(a.figures[2].value, "268 usecs");  // jack_test's %5d: truncated
  EXPECT_EQ(a.figures[3].value, "781 usecs");
  EXPECT_EQ(a.figures[4].label, "Average DSP Load");
  EXPECT_EQ(a.figures[4].value, "49.0 %");
  for (const AnswerFigure& f : a.figures) EXPECT_FALSE(f.definition.empty()) << f.label;
}

TEST(RunAnswer, WitnessesAgreeOrDisagreeWithTheCount) {
  RunResult r = completed(6, 10);
  SourceTally monitor;
  monitor.key = "monitor";
  monitor.label = "monitor (JACK2 xrun callbacks)";
  monitor.unit = "callbacks";
  monitor.events_judged = 6;
  monitor.events_reported = 6;
  SourceTally log = monitor;
  log.key = "jackd_log";
  log.label = "jackd's log (xrun lines)";
  log.unit = "lines";
  log.reports = 11;
  log.reports_unmatched = 5;
  log.events_reported = 5;
  log.events_missed = 1;
  r.xrun_cycles.sources = {monitor, log};
  const RunAnswer a = run_answer(r);
  ASSERT_EQ(a.witnesses.size(), 2u);
  EXPECT_EQ(a.witnesses[0], "monitor (JACK2 xrun callbacks): 6 of 6 events reported (agrees)");
  // Its lines outside the chain are counted as xrun events there; the event it missed is the
  // disagreement.
  EXPECT_EQ(a.witnesses[1],
            "jackd's log (xrun lines): 5 of 6 events reported, 5 of its 11 lines fell to no chain "
            "event (disagrees)");
  // The terminal shows only the witnesses that disagree.
  const std::string t = terminal_result(r, "results/x", Verbosity::kNormal);
  EXPECT_EQ(t.find("(agrees)"), std::string::npos) << t;
  EXPECT_NE(t.find("(disagrees)"), std::string::npos) << t;
}

TEST(RunAnswer, TheCountIsTheChainsEventsAndThoseOutsideItEachWithItsCause) {
  RunResult r = completed(0, 10);
  r.xrun_cycles.present = true;
  r.xrun_cycles.events = 1;
  r.xrun_cycles.outside_events = 5;
  XrunAttribution c;
  c.outside_events = 5;
  c.causes = {{{"client", "intruder"}, 0, 5, false}, {{"client", "xrunlab-1-0-c03"}, 1, 0, true}};
  r.xrun_causes = c;
  const RunAnswer a = run_answer(r);
  EXPECT_EQ(a.figures[0].value, "6");
  EXPECT_EQ(a.causes,
            "causes: intruder (another program's) 5 (0 in the chain, 5 outside), c03 (the run's) 1 "
            "(1 in the chain, 0 outside)");
  // At most four causes by name, the rest summed; one place says where they all were.
  c.causes.clear();
  c.outside_events = 0;
  for (int i = 1; i <= 6; ++i) {
    c.causes.push_back(
        {{"client", fmt::format("xrunlab-1-0-c0{}", i)}, static_cast<uint64_t>(10 - i), 0, true});
  }
  r.xrun_cycles.outside_events = 0;
  r.xrun_cycles.events = 39;
  r.xrun_causes = c;
  EXPECT_EQ(run_answer(r).causes,
            "causes: c01 (the run's) 9, c02 (the run's) 8, c03 (the run's) 7, c04 (the run's) 6, "
            "2 other causes 9 (all in the chain)");
  EXPECT_NE(a.verdict.find("6 xrun events"), std::string::npos) << a.verdict;
  EXPECT_NE(terminal_result(r, "results/x", Verbosity::kNormal).find(run_answer(r).causes),
            std::string::npos);
}

TEST(RunAnswer, TheWorstCycleNamesTheHopThatRanLongestPastItsMedian) {
  RunResult r = completed(1, 10);
  CycleTableResult& t = r.cycle_table;
  t.present = true;
  auto series = [&](const char* key, const char* kind, int client, int64_t us) {
    HopSeries h;
    h.key = key;
    h.kind = kind;
    h.client = client;
    for (int i = 0; i < 100; ++i) h.us.add(us);
    t.hops.push_back(h);
  };
  series("jackd_wakeup", "jackd_wakeup", 0, 20);
  series("wakeup.c01", "client_wakeup", 1, 25);
  series("dsp.c01", "dsp", 1, 30);
  series("wakeup.c02", "client_wakeup", 2, 10);
  series("dsp.c02", "dsp", 2, 30);
  CycleRow row;
  row.id = 7;
  row.t_s = 0.328;
  row.jackd_wake_ns = 40'000;
  row.clients = {{true, 60'000, 95'000}, {true, 1'100'000, 1'140'000}};
  row.deadline_ns = 1'333'333;
  row.end_ns = 1'140'000;
  row.slack_ns = 193'333;
  t.worst.push_back(row);
  EXPECT_EQ(run_answer(r).worst_cycle,
            "worst cycle at 0.328 s: slack 193 us; c02's wake-up took 1005 us (p50 10 us)");
  // A client that did not run, and nothing before it ran long.
  t.worst[0].clients[0].ran = false;
  t.worst[0].slack_ns.reset();
  t.worst[0].jackd_wake_ns.reset();
  EXPECT_EQ(run_answer(r).worst_cycle,
            "worst cycle at 0.328 s: a client did not run; c01 did not run");
}

TEST(RunAnswer, TheFloorComparesWithTheTimerBaseline) {
  RunResult r = completed(0, 10);
  EXPECT_EQ(run_answer(r).floor, "");
  r.baseline.emplace();
  r.baseline->jackd_wakeup_ratio = 1.84;
  EXPECT_EQ(run_answer(r).floor,
            "floor: jackd wake-up p99 1.84x, head client's delay p99 n/a the timer baseline's "
            "p99 (cyclictest beside the run)");
  r.baseline->error = "cyclictest not found";
  EXPECT_EQ(run_answer(r).floor, "timer baseline: none (cyclictest not found)");
}

// summary.txt leads with the answer, and a summary reader still finds jack_test's fields in
// jack_test's block: the answer has no "label . . . :" line.
TEST(RunAnswer, TheAnswerBlockLeadsTheSummaryAndHasNoFieldLines) {
  const RunResult r = sample_result();
  const std::string block = answer_block(run_answer(r));
  EXPECT_TRUE(parse_summary(block).empty()) << block;
  const std::string summary = format_summary(r);
  EXPECT_EQ(summary.rfind(" Result: " + run_answer(r).verdict + "\n", 0), 0u) << summary;
  EXPECT_LT(summary.find(" Result: "), summary.find("SUMMARY RESULT"));
  EXPECT_LT(summary.find("SUMMARY RESULT"), summary.find("Audio threads"));
}

TEST(TerminalResult, ShortByDefaultTwoLinesQuietWholeSummaryVerbose) {
  RunResult r = sample_result();
  for (int i = 0; i < 9; ++i) r.warnings.push_back("warning number " + std::to_string(i));
  const std::string normal = terminal_result(r, "results/x", Verbosity::kNormal);
  EXPECT_LE(lines(normal), 15u) << normal;
  EXPECT_EQ(normal.rfind("xrunlab: " + run_answer(r).verdict + "\n", 0), 0u) << normal;
  EXPECT_NE(normal.find("  jack_test: XRUN Count "), std::string::npos) << normal;
  EXPECT_NE(normal.find(fmt::format("warning: ... and {} more in summary.txt",
                                    r.warnings.size() - kTerminalWarnings)),
            std::string::npos)
      << normal;
  // The folder alone on the last line, as scripts read it.
  EXPECT_EQ(normal.substr(normal.rfind('\n', normal.size() - 2) + 1), "Results: results/x\n");
  EXPECT_EQ(normal.find("SUMMARY RESULT"), std::string::npos);

  const std::string quiet = terminal_result(r, "results/x", Verbosity::kQuiet);
  EXPECT_EQ(quiet, "xrunlab: " + run_answer(r).verdict + "\nResults: results/x\n");

  const std::string verbose = terminal_result(r, "results/x", Verbosity::kVerbose);
  EXPECT_EQ(verbose, format_summary(r) + "\nResults: results/x\n");
}

}  // namespace
}  // namespace xrunlab

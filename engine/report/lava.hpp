// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --lava: a run's or a campaign's figures as LAVA test cases, the way Linaro's test-definitions
// report rt-tests (cyclictest's figures become cases with a measurement, sent through
// utils/send-to-lava.sh to `lava-test-case NAME --result R --measurement V --units U`, which
// prints LAVA's <LAVA_SIGNAL_TESTCASE ...> signal that LAVA records and SQUAD collects).
//
// Cases, for one run labelled L (a campaign: for each case, L its label and each figure the
// case's median over its counted runs, the value campaign --fail-if checks):
//
//   L-run        pass when the run completed, else fail (no measurement); a campaign's case:
//   L-runs       pass with the number of its finished counted runs (units "runs"), fail at 0
//   L-FIGURE     one per figure of lava_figures() (jack_test's xrun_count, delay_max,
//                cycle_max; xrunlab's xruns, slack_p1, wakeup_p99), then any other figure a
//                --fail-if names, in the order given; its measurement and the figure's units
//                (run_metrics.hpp; a count is "count", % is "percent"). pass, or fail when a
//                --fail-if on it is crossed or cannot be checked (not measured is not a pass,
//                as the JUnit report says). A figure the run lacks is "skip" without a
//                measurement (never 0), unless a --fail-if names it: then "fail".
//
// Names and units keep LAVA's characters (letters, digits, '-', '_', '.'; units also '/');
// every other character becomes '_'. A measurement is written without an exponent.
//
// Where they go (report_lava_cases): inside LAVA (`lava-test-case` on PATH) each case is one
// lava-test-case process (an argv vector, no shell); elsewhere the same command lines are
// printed to stdout, one a line, ready for a LAVA step or a shell to run. Non-realtime.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/run_metrics.hpp"

namespace xrunlab {

struct LavaCase {
  std::string name;    // already in LAVA's characters
  std::string result;  // pass, fail, skip
  std::optional<double> measurement;
  std::string units;  // with a measurement only
};

// The figures every --lava report carries, in order.
const std::vector<std::string>& lava_figures();

// `text` in LAVA's characters (letters, digits, - _ .): every other character becomes '_';
// "" becomes "_".
std::string lava_name(std::string_view text);

// A figure's units for LAVA: run_metrics()'s unit; "count" for a count, "percent" for %.
std::string lava_units(const std::string& metric);

// Fixed notation with up to 6 decimals, trailing zeros dropped: 123.5, 3, -0.25, 1000000.
std::string lava_measurement(double v);

// The cases of one run (or one campaign case). `figure(name)` gives the run's figure (the case's
// median) or nullopt; `runs` is the campaign case's number of finished counted runs (nullopt:
// a single run, whose `completed` decides its L-run case).
std::vector<LavaCase> lava_cases(
    const std::string& label, bool completed, std::optional<size_t> runs,
    const std::function<std::optional<double>(const std::string&)>& figure,
    const std::vector<Threshold>& thresholds);

// {"lava-test-case", NAME, "--result", R[, "--measurement", V, "--units", U]}
std::vector<std::string> lava_test_case_argv(const LavaCase& c);

// The argv above joined by spaces (no word needs quoting: names and units are sanitised).
std::string lava_line(const LavaCase& c);

// Inside LAVA (lava-test-case found on PATH): runs it once per case; elsewhere prints
// lava_line() per case to stdout. Returns how many lava-test-case calls failed (a warning for
// each on stderr); never throws for them, the run's own verdict stands.
int report_lava_cases(const std::vector<LavaCase>& cases);

}  // namespace xrunlab

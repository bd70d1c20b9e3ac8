// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The verdict on one metric between two cases of a campaign (e.g. xruns per minute, fifo vs
// iso-emu:70): the numbers behind it and one sentence for people. The sentence never claims more
// than the runs support: a difference is named only when the rank test is significant and the
// 95 % interval of the shift excludes 0; otherwise it says what the runs could not resolve and
// how many runs would be needed (power), or that so few runs can never be significant. Pure.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/stats/power.hpp"
#include "engine/stats/rank_tests.hpp"

namespace xrunlab::stats {

struct Metric {
  std::string name;             // for people, as it reads after "fewer"/"lower": "xruns per minute"
  std::string unit;             // after the medians: "/min", "us"; may be empty
  bool lower_is_better = true;  // xruns, delays: true; slack: false
  // How the case with the smaller values and the one with the larger read before the name:
  // {"fewer", "more"} for counts, {"lower", "higher"} for times.
  std::string smaller_word = "lower";
  std::string larger_word = "higher";
};

inline constexpr double kVerdictAlpha = 0.05;  // two-sided; the interval is the matching 95 %
inline constexpr double kVerdictRelativeDifference = 0.20;  // for the runs-needed estimate

struct Verdict {
  std::string name_a, name_b;
  size_t n_a = 0, n_b = 0;
  // Absent when a case has no runs (then everything below is absent too).
  std::optional<double> median_a, median_b;
  std::optional<double> median_difference;  // median a - median b
  std::optional<ShiftEstimate> shift;       // Hodges-Lehmann of a - b, its interval or why not
  std::optional<RankSumTest> test;          // p and the kind of test
  std::optional<double> smallest_p;         // the exact test's, at n_a vs n_b
  RunsNeeded runs_needed;                   // for kVerdictRelativeDifference
  // For a difference as large as the medians' (absent when they are equal): what the
  // unresolved sentence gives, since that is the difference the reader wants settled.
  std::optional<RunsNeeded> runs_needed_seen;
  // Where the verdict is one of several tests of a report: p adjusted for all of them
  // (Benjamini-Hochberg, engine/stats/multiple.hpp) and how many there were.
  std::optional<double> q;
  size_t comparisons = 1;
  // p < 0.05, the 95 % interval of the shift excludes 0, and smallest_p < 0.05 (below that
  // floor a p-value under 0.05 can only come from the normal approximation's error); among
  // several comparisons also q < 0.05
  bool resolved = false;
  std::optional<bool> a_better;  // when resolved: whether a is the better case by the metric
  std::string sentence;
};

// Resolved: "fifo: fewer xruns per minute than iso-emu:70 (median 31 vs 58 /min; 95 % CI of the
// difference -39..-17; p = 0.0079, 5 vs 5 runs)": the better case first, by the metric's
// direction, the difference better - worse. Not resolved: "fifo vs iso-emu:70: no difference
// in xruns per minute this machine can resolve with 5 vs 5 runs (p = 0.69); about 17 runs each
// would be needed to see a 20 % difference at this noise", or "... with 2 vs 2 runs (the test
// cannot reach p < 0.05 with so few); ...", or "(p = 0.04, but the 95 % CI of the difference,
// -4..0, includes 0)"; without a noise estimate "...; no estimate of the runs needed: <why>".
// A case without runs: a sentence naming it, no numbers.
//
// Among several comparisons (a campaign's report), `adjusted` gives this test's q and their
// number: a difference is then claimed only when q < 0.05 too, and the sentences say "p =
// 0.0079 (0.031 adjusted for 125 comparisons)" or "p = 0.012, but 0.09 adjusted for 125
// comparisons".
struct Adjusted {
  double q = 1;
  size_t comparisons = 1;
};
Verdict compare_cases(const std::string& name_a, const std::vector<double>& a,
                      const std::string& name_b, const std::vector<double>& b, const Metric& metric,
                      std::optional<Adjusted> adjusted = std::nullopt);

// The p of the test compare_cases would run (nullopt when either sample is empty): what a
// report adjusts before it asks for the verdicts.
std::optional<double> comparison_p(const std::vector<double>& a, const std::vector<double>& b);

// "0.031", "< 0.001": an adjusted p as the sentences and tables give it.
std::string format_q(double q);

// About 3 significant digits, without an exponent from 0.0001 up: "31", "0.00794", "-12.5",
// "12346" (whole numbers from 1000 up keep their digits: an exponent reads badly in a sentence).
std::string format_number(double v);
// "p = 0.25", "p = 0.0079" (2 significant digits), "p < 0.001" below that.
std::string format_p(double p);

}  // namespace xrunlab::stats

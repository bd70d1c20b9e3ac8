// SPDX-License-Identifier: GPL-2.0-or-later
// The verdict's sentences: resolved (the better case first, for both directions), not resolved
// (with the p-value, or because so few runs cannot be significant, or a significant test whose
// interval includes 0), without a noise estimate, and with a case that has no runs.
#include "engine/stats/verdict.hpp"

#include <gtest/gtest.h>

namespace xrunlab::stats {
namespace {

const Metric kXruns{"xruns per minute", "/min", true, "fewer", "more"};
const Metric kSlack{"slack", "us", false, "lower", "higher"};

// 5 vs 5, completely separated: exact p = 2/252 = 0.0079.
const std::vector<double> kFifo = {25, 28, 31, 33, 40};
const std::vector<double> kIso = {50, 55, 58, 61, 70};

TEST(Verdict, ResolvedNamesTheBetterCaseFirst) {
  // fifo - iso, all 25: 25-{50,55,58,61,70} = -25 -30 -33 -36 -45; 28: -22 -27 -30 -33 -42;
  // 31: -19 -24 -27 -30 -39; 33: -17 -22 -25 -28 -37; 40: -10 -15 -18 -21 -30.
  // Sorted: -45 -42 -39 ... -17 -15 -10: the 3rd from each end, -39 and -17.
  const Verdict v = compare_cases("fifo", kFifo, "iso-emu:70", kIso, kXruns);
  EXPECT_TRUE(v.resolved);
  EXPECT_EQ(v.sentence,
            "fifo: fewer xruns per minute than iso-emu:70 (median 31 vs 58 /min; 95 % CI of the "
            "difference -39..-17; p = 0.0079, 5 vs 5 runs)");
  EXPECT_DOUBLE_EQ(*v.median_difference, 31 - 58);
  EXPECT_DOUBLE_EQ(v.shift->estimate, -27);
  EXPECT_EQ(v.test->kind, TestKind::kExact);
  EXPECT_NEAR(v.test->p, 2.0 / 252, 1e-15);
  EXPECT_NEAR(*v.smallest_p, 2.0 / 252, 1e-15);

  // The same comparison asked the other way round still names fifo first, and the interval
  // is that of fifo - iso; the numbers stay a - b.
  const Verdict swapped = compare_cases("iso-emu:70", kIso, "fifo", kFifo, kXruns);
  EXPECT_TRUE(swapped.resolved);
  EXPECT_EQ(swapped.sentence, v.sentence);
  EXPECT_DOUBLE_EQ(*swapped.median_difference, 58 - 31);
  EXPECT_DOUBLE_EQ(swapped.shift->ci95->low, 17);
  EXPECT_DOUBLE_EQ(swapped.shift->ci95->high, 39);
}

TEST(Verdict, ResolvedWhenHigherIsBetter) {
  const std::string expected =
      "fifo: higher slack than other:-20 (median 58 vs 31 us; 95 % CI of the difference 17..39; "
      "p = 0.0079, 5 vs 5 runs)";
  EXPECT_EQ(compare_cases("fifo", kIso, "other:-20", kFifo, kSlack).sentence, expected);
  EXPECT_EQ(compare_cases("other:-20", kFifo, "fifo", kIso, kSlack).sentence, expected);
}

TEST(Verdict, TinyPIsShownAsABound) {
  // 10 vs 10 separated: p = 2 / C(20, 10) = 1.1e-5. k = 24 (the exact distribution of 10 vs
  // 10: P(U <= 23) = 0.0216 <= 0.025 < P(U <= 24)); a - b = i - (100 + 2 j).
  std::vector<double> a, b;
  for (int i = 1; i <= 10; ++i) a.push_back(i);
  for (int j = 0; j < 10; ++j) b.push_back(100 + 2 * j);
  const Verdict v = compare_cases("fifo", a, "iso-emu:70", b, kXruns);
  EXPECT_EQ(v.sentence,
            "fifo: fewer xruns per minute than iso-emu:70 (median 5.5 vs 109 /min; 95 % CI of the "
            "difference -109..-98; p < 0.001, 10 vs 10 runs)");
}

TEST(Verdict, UnresolvedSaysHowManyRunsWouldBeNeeded) {
  // Interleaved: U = 10 of 25, exact p = 29/42 = 0.69. Runs: IQR 4 each (Q1 12, Q3 16), sd
  // 4 / 1.349 = 2.965; delta 0.2 * 15 = 3; 16.438655 * (2.965 / 3)^2 = 16.06 -> 17.
  const Verdict v =
      compare_cases("fifo", {10, 12, 14, 16, 18}, "iso-emu:70", {11, 13, 15, 17, 19}, kXruns);
  EXPECT_FALSE(v.resolved);
  EXPECT_EQ(v.sentence,
            "fifo vs iso-emu:70: no difference in xruns per minute this machine can resolve with "
            "5 vs 5 runs (median 14 vs 15 /min; p = 0.69); about 145 runs each would be needed "
            "to see a difference as large as the one seen at this noise");
  EXPECT_EQ(*v.runs_needed.runs_per_case, 17u);
  // The difference seen, 1 of 15: 16.438655 * (2.965 / 1)^2 = 144.5 -> 145.
  ASSERT_TRUE(v.runs_needed_seen);
  EXPECT_EQ(*v.runs_needed_seen->runs_per_case, 145u);
}

TEST(Verdict, TooFewRunsCanNeverResolve) {
  // 2 vs 2, completely separated: the best the test can do is p = 1/3. Runs: IQR 0.5 each,
  // sd 0.371, delta 0.2 * 10.5 = 2.1: the formula says 0.51, the floor of the test 4.
  const Verdict v = compare_cases("fifo", {1, 2}, "iso-emu:70", {10, 11}, kXruns);
  EXPECT_FALSE(v.resolved);
  EXPECT_NEAR(v.test->p, 1.0 / 3, 1e-15);
  EXPECT_NEAR(*v.smallest_p, 1.0 / 3, 1e-15);
  EXPECT_FALSE(v.shift->ci95);
  EXPECT_EQ(v.sentence,
            "fifo vs iso-emu:70: no difference in xruns per minute this machine can resolve with "
            "2 vs 2 runs (median 1.5 vs 10.5 /min; the test cannot reach p < 0.05 with so few); "
            "about 4 runs each would be needed to see a difference as large as the one seen at "
            "this noise");
}

TEST(Verdict, TheFloorOfTheExactTestOverridesANormalApproximation) {
  // Ties force the normal approximation: U = 0, variance 9/12 (7 - 48/30) = 4.05,
  // z = (0 - 4.5 + 0.5) / 2.0125 = -1.988, p = 0.047; but no arrangement of 3 vs 3 runs has a
  // probability under 1/20, so the sentence keeps to what 3 runs can show.
  const Verdict v = compare_cases("fifo", {3, 3, 3}, "iso-emu:70", {7, 7, 7}, kXruns);
  EXPECT_NEAR(v.test->p, 0.0468, 1e-4);
  EXPECT_FALSE(v.resolved);
  EXPECT_EQ(v.sentence,
            "fifo vs iso-emu:70: no difference in xruns per minute this machine can resolve with "
            "3 vs 3 runs (median 3 vs 7 /min; the test cannot reach p < 0.05 with so few); no "
            "estimate of the runs needed: every run of each case gave the same value");
}

TEST(Verdict, SignificantButTheIntervalIncludesZero) {
  // rank_tests_test: p = 0.0396 (normal, ties), the interval of the shift [-4, 0].
  // Runs: IQR 0.5 each, sd 0.371, delta 0.2 * 4 = 0.8: 3.53 -> 4, which these runs have.
  const Verdict v = compare_cases("fifo", {1, 2, 2, 3}, "iso-emu:70", {3, 4, 4, 5}, kXruns);
  EXPECT_FALSE(v.resolved);
  EXPECT_LT(v.test->p, 0.05);
  EXPECT_EQ(v.sentence,
            "fifo vs iso-emu:70: no difference in xruns per minute this machine can resolve with "
            "4 vs 4 runs (median 2 vs 4 /min; p = 0.04, but the 95 % CI of the difference, -4..0, "
            "includes 0); about 4 runs each are enough to see a difference as large as the one "
            "seen at this noise");
}

TEST(Verdict, WithoutANoiseEstimateSaysWhy) {
  const Verdict v = compare_cases("fifo", {3, 3, 3, 3, 3}, "iso-emu:70", {3, 3, 3, 3, 3}, kXruns);
  EXPECT_FALSE(v.resolved);
  EXPECT_EQ(v.sentence,
            "fifo vs iso-emu:70: no difference in xruns per minute this machine can resolve with "
            "5 vs 5 runs (median 3 vs 3 /min; p = 1); no estimate of the runs needed: every run "
            "of each case gave the same value");
  EXPECT_FALSE(v.runs_needed_seen) << "equal medians: the 20 % estimate is what is left";
}

TEST(Verdict, ACaseWithoutRunsIsNamed) {
  const Verdict v = compare_cases("fifo", {}, "iso-emu:70", {1, 2, 3}, kXruns);
  EXPECT_FALSE(v.resolved);
  EXPECT_EQ(v.sentence, "fifo vs iso-emu:70: no runs of fifo to compare");
  EXPECT_FALSE(v.median_a);
  EXPECT_FALSE(v.median_b);
  EXPECT_FALSE(v.test);
  EXPECT_FALSE(v.shift);
  EXPECT_EQ(v.n_b, 3u);
  EXPECT_EQ(compare_cases("fifo", {1}, "iso-emu:70", {}, kXruns).sentence,
            "fifo vs iso-emu:70: no runs of iso-emu:70 to compare");
  EXPECT_EQ(compare_cases("fifo", {}, "iso-emu:70", {}, kXruns).sentence,
            "fifo vs iso-emu:70: no runs of either case to compare");
}

TEST(Verdict, AmongManyComparisonsTheAdjustedPMustPassToo) {
  // The same separated 5 vs 5 (p = 0.0079) as one of 125 comparisons: with q = 0.031 the
  // difference is still claimed, and the sentence gives both.
  const Verdict kept =
      compare_cases("fifo", kFifo, "iso-emu:70", kIso, kXruns, Adjusted{0.031, 125});
  EXPECT_TRUE(kept.resolved);
  EXPECT_EQ(kept.q, 0.031);
  EXPECT_EQ(kept.comparisons, 125u);
  EXPECT_EQ(kept.sentence,
            "fifo: fewer xruns per minute than iso-emu:70 (median 31 vs 58 /min; 95 % CI of the "
            "difference -39..-17; p = 0.0079 (0.031 adjusted for 125 comparisons), 5 vs 5 runs)");
  // With q = 0.09 it is not: p alone would have claimed it.
  const Verdict dropped =
      compare_cases("fifo", kFifo, "iso-emu:70", kIso, kXruns, Adjusted{0.09, 125});
  EXPECT_FALSE(dropped.resolved);
  EXPECT_FALSE(dropped.a_better);
  EXPECT_NE(dropped.sentence.find("fifo vs iso-emu:70: no difference in xruns per minute this "
                                  "machine can resolve with 5 vs 5 runs (median 31 vs 58 /min; "
                                  "p = 0.0079, but 0.09 adjusted for 125 comparisons); "),
            std::string::npos)
      << dropped.sentence;
  // One comparison alone is not adjusted, whatever q says.
  const Verdict alone = compare_cases("fifo", kFifo, "iso-emu:70", kIso, kXruns, Adjusted{0.5, 1});
  EXPECT_TRUE(alone.resolved);
  EXPECT_FALSE(alone.q);
  EXPECT_EQ(alone.sentence, compare_cases("fifo", kFifo, "iso-emu:70", kIso, kXruns).sentence);
  EXPECT_EQ(comparison_p(kFifo, kIso), alone.test->p);
  EXPECT_FALSE(comparison_p(kFifo, {}));
  EXPECT_EQ(format_q(0.0312), "0.031");
  EXPECT_EQ(format_q(0.0004), "< 0.001");
}

TEST(FormatNumber, ThreeSignificantDigitsWithoutExponent) {
  EXPECT_EQ(format_number(31), "31");
  EXPECT_EQ(format_number(2.0 / 252), "0.00794");
  EXPECT_EQ(format_number(-12.5), "-12.5");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(1234), "1234");
  EXPECT_EQ(format_number(12345.6), "12346");
  EXPECT_EQ(format_number(999.7), "1000");
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(-0.0), "0");
}

TEST(FormatP, TwoSignificantDigitsThenABound) {
  EXPECT_EQ(format_p(0.2544), "p = 0.25");
  EXPECT_EQ(format_p(2.0 / 252), "p = 0.0079");
  EXPECT_EQ(format_p(1), "p = 1");
  EXPECT_EQ(format_p(0.001), "p = 0.001");
  EXPECT_EQ(format_p(0.000999), "p < 0.001");
}

}  // namespace
}  // namespace xrunlab::stats

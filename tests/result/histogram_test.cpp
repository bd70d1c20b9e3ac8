// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/histogram.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace xrunlab {
namespace {

TEST(Histogram, EmptyHasNoStatistics) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_FALSE(h.min());
  EXPECT_FALSE(h.max());
  EXPECT_FALSE(h.mean());
  EXPECT_FALSE(h.percentile(50));
  EXPECT_TRUE(h.nonzero().empty());
}

TEST(Histogram, OneSampleIsEveryStatistic) {
  Histogram h;
  h.add(42);
  EXPECT_EQ(*h.min(), 42);
  EXPECT_EQ(*h.max(), 42);
  EXPECT_DOUBLE_EQ(*h.mean(), 42.0);
  for (double p : {0.0, 50.0, 99.9, 100.0}) {
    EXPECT_EQ(h.percentile(p)->value_us, 42) << p;
    EXPECT_TRUE(h.percentile(p)->exact);
  }
}

TEST(Histogram, NearestRankPercentiles) {
  Histogram h;
  for (int v = 1; v <= 1000; ++v) h.add(v);
  EXPECT_EQ(h.percentile(50)->value_us, 500);
  EXPECT_EQ(h.percentile(99)->value_us, 990);
  EXPECT_EQ(h.percentile(99.9)->value_us, 999);
  EXPECT_EQ(h.percentile(100)->value_us, 1000);
  EXPECT_DOUBLE_EQ(*h.mean(), 500.5);
}

TEST(Histogram, OverflowValuesStayExact) {
  Histogram h(100, 4);
  for (int i = 0; i < 10; ++i) h.add(10);
  h.add(150);
  h.add(5000);
  EXPECT_EQ(h.overflow_count(), 2u);
  EXPECT_EQ(h.overflow_dropped(), 0u);
  EXPECT_EQ(*h.max(), 5000);
  EXPECT_EQ(h.percentile(100)->value_us, 5000);
  const auto nz = h.nonzero();
  ASSERT_EQ(nz.size(), 3u);
  EXPECT_EQ(nz[1], (std::pair<int64_t, uint64_t>{150, 1}));
  EXPECT_EQ(nz[2], (std::pair<int64_t, uint64_t>{5000, 1}));
}

TEST(Histogram, FullOverflowListKeepsTheLargestAndSaysWhatIsInexact) {
  Histogram h(100, 2);
  for (int v : {200, 300, 400, 500}) h.add(v);  // only 400 and 500 are kept
  EXPECT_EQ(h.overflow_count(), 4u);
  EXPECT_EQ(h.overflow_dropped(), 2u);
  EXPECT_EQ(h.percentile(100)->value_us, 500);
  EXPECT_TRUE(h.percentile(100)->exact);
  EXPECT_EQ(h.percentile(75)->value_us, 400);
  const auto p25 = h.percentile(25);
  EXPECT_FALSE(p25->exact);  // 200 was counted but not kept: only "above the bound" is known
  EXPECT_EQ(p25->value_us, 101);
  EXPECT_EQ(*h.min(), 200);  // min and max are tracked exactly regardless
}

// Many copies of one value above the bound at once (a histogram.csv row read back) are as many
// single adds, and take no longer than the kept list is long: a count of 10^18 returns at once
// (one add per copy hung on 18 million, found by fuzzing histogram.csv's reader).
TEST(Histogram, ManyCopiesOfAnOverflowValueAreOneAdd) {
  Histogram once(100, 3), each(100, 3);
  for (Histogram* h : {&once, &each}) h->add(200, 2);
  once.add(300, 5);
  for (int i = 0; i < 5; ++i) each.add(300);
  EXPECT_EQ(once.nonzero(), each.nonzero());
  EXPECT_EQ(once.overflow_count(), 7u);
  EXPECT_EQ(once.overflow_dropped(), each.overflow_dropped());
  EXPECT_EQ(once.percentile(50)->value_us, each.percentile(50)->value_us);
  EXPECT_EQ(once.percentile(50)->exact, each.percentile(50)->exact);

  Histogram huge(100, 3);
  huge.add(49111, 1'000'000'000'000'000'000ULL);
  EXPECT_EQ(huge.overflow_count(), 1'000'000'000'000'000'000ULL);
  EXPECT_EQ(huge.count(), 1'000'000'000'000'000'000ULL);
  EXPECT_EQ(huge.overflow_dropped(), 1'000'000'000'000'000'000ULL - 3);
  EXPECT_EQ(*huge.max(), 49111);
}

// The extremes of int64 (a telemetry line may carry any): counted without overflow (fuzzing the
// telemetry decoder found -INT64_MIN negated, undefined behaviour).
TEST(Histogram, TheExtremesOfInt64AreCounted) {
  Histogram h(100, 4, 10);
  h.add(std::numeric_limits<int64_t>::min(), 2);
  h.add(std::numeric_limits<int64_t>::max());
  h.add(-3);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.underflow_count(), 3u);
  EXPECT_EQ(*h.min(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*h.max(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(h.percentile(100)->value_us, std::numeric_limits<int64_t>::max());
}

TEST(Histogram, NegativeValuesAreCountedAndMinIsExact) {
  Histogram h;
  h.add(-30);
  h.add(-10);
  h.add(5);
  EXPECT_EQ(h.underflow_count(), 2u);
  EXPECT_EQ(*h.min(), -30);
  EXPECT_EQ(h.percentile(0)->value_us, -30);
  EXPECT_TRUE(h.percentile(0)->exact);
  EXPECT_FALSE(h.percentile(60)->exact);  // the second negative value is not binned
  EXPECT_EQ(h.percentile(100)->value_us, 5);
}

TEST(Histogram, NegativeBinsKeepNegativeValuesExact) {
  // Bins from -100 up: -30 and -10 are binned, -500 lies beyond and is only counted.
  Histogram h(1000, 16, 100);
  EXPECT_EQ(h.negative_bound_us(), 100u);
  h.add(-500);
  h.add(-30, 2);
  h.add(-10);
  h.add(5, 6);
  EXPECT_EQ(h.count(), 10u);
  EXPECT_EQ(h.underflow_count(), 4u) << "every negative value, binned or not";
  EXPECT_EQ(*h.min(), -500);
  EXPECT_EQ(h.percentile(10)->value_us, -500);  // rank 1: the least value, exact
  EXPECT_TRUE(h.percentile(10)->exact);
  EXPECT_EQ(h.percentile(20)->value_us, -30);  // rank 2, from the bins
  EXPECT_TRUE(h.percentile(20)->exact);
  EXPECT_EQ(h.percentile(30)->value_us, -30);
  EXPECT_EQ(h.percentile(40)->value_us, -10);
  EXPECT_TRUE(h.percentile(40)->exact);
  EXPECT_EQ(h.percentile(50)->value_us, 5);
  using V = std::vector<std::pair<int64_t, uint64_t>>;
  EXPECT_EQ(h.nonzero(), (V{{-30, 2}, {-10, 1}, {5, 6}})) << "beyond the bins: not listed";
  // A second value beyond the bins: rank 2 lies among values not kept.
  h.add(-400);
  EXPECT_FALSE(h.percentile(2 * 100.0 / 11)->exact);
  // Counted by add_unknown below 0: all that is known is "below the bins".
  Histogram u(1000, 16, 100);
  u.add_unknown(2, 0);
  u.add(-20);
  EXPECT_EQ(u.percentile(1)->value_us, -101);
  EXPECT_FALSE(u.percentile(1)->exact);
  EXPECT_EQ(u.percentile(100)->value_us, -20);
  EXPECT_TRUE(u.percentile(100)->exact);
}

TEST(Histogram, MergeKeepsNegativeBinsWhereBothHaveThem) {
  Histogram a(1000, 16, 100), b(1000, 16, 100), narrow(1000, 16, 20);
  a.add(-50);
  b.add(-50);
  b.add(-60);
  a.merge(b);
  EXPECT_EQ(a.underflow_count(), 3u);
  using V = std::vector<std::pair<int64_t, uint64_t>>;
  EXPECT_EQ(a.nonzero(), (V{{-60, 1}, {-50, 2}}));
  // Into narrower bins: -50 and -60 go below them, counted with the least value kept.
  narrow.add(-5);
  narrow.merge(a);
  EXPECT_EQ(narrow.underflow_count(), 4u);
  EXPECT_EQ(narrow.nonzero(), (V{{-5, 1}}));
  EXPECT_EQ(*narrow.min(), -60);
  EXPECT_EQ(narrow.percentile(25)->value_us, -60);
  EXPECT_TRUE(narrow.percentile(25)->exact);
  EXPECT_EQ(narrow.percentile(100)->value_us, -5);
}

TEST(Histogram, MergeEqualsAddingEverythingToOne) {
  Histogram a(100, 8), b(100, 8), all(100, 8);
  for (int v : {1, 5, 5, 99, 150}) {
    a.add(v);
    all.add(v);
  }
  for (int v : {3, 5, 700, -2}) {
    b.add(v);
    all.add(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.nonzero(), all.nonzero());
  EXPECT_EQ(*a.min(), *all.min());
  EXPECT_EQ(*a.max(), *all.max());
  EXPECT_DOUBLE_EQ(*a.mean(), *all.mean());
  for (double p : {10.0, 50.0, 90.0, 100.0}) {
    EXPECT_EQ(a.percentile(p)->value_us, all.percentile(p)->value_us) << p;
  }
}

TEST(Histogram, AddWithMultiplicity) {
  Histogram h;
  h.add(7, 3);
  h.add(9, 0);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.nonzero().size(), 1u);
}

// Values known only by number (histogram.csv's underflow and overflow_dropped rows) count, and
// leave min, max and mean to the values known.
TEST(Histogram, UnknownValuesCountButDoNotMoveTheKnownStatistics) {
  Histogram h(100, 2);
  h.add_unknown(2, 3);
  EXPECT_EQ(h.count(), 5u);
  EXPECT_FALSE(h.min());
  EXPECT_FALSE(h.max());
  EXPECT_FALSE(h.mean());
  h.add(10, 4);
  h.add(500);
  EXPECT_EQ(h.count(), 10u);
  EXPECT_EQ(h.underflow_count(), 2u);
  EXPECT_EQ(h.overflow_dropped(), 3u);
  EXPECT_EQ(*h.min(), 10);  // the first value known sets min and max despite the count before
  EXPECT_EQ(*h.max(), 500);
  EXPECT_DOUBLE_EQ(*h.mean(), 108.0);  // (4 * 10 + 500) / 5
  // Ranks: 2 below 0, 4 at 10, 3 dropped above 100, 500.
  EXPECT_EQ(h.percentile(10)->value_us, -1);
  EXPECT_FALSE(h.percentile(10)->exact);
  EXPECT_EQ(h.percentile(50)->value_us, 10);
  EXPECT_TRUE(h.percentile(50)->exact);
  EXPECT_EQ(h.percentile(80)->value_us, 101);
  EXPECT_FALSE(h.percentile(80)->exact);
  EXPECT_EQ(h.percentile(100)->value_us, 500);
  EXPECT_EQ(h.nonzero(), (std::vector<std::pair<int64_t, uint64_t>>{{10, 4}, {500, 1}}));

  // Merged into another histogram they stay counted and unknown.
  Histogram m(100, 2);
  m.add(-7);
  m.merge(h);
  EXPECT_EQ(m.count(), 11u);
  EXPECT_EQ(m.underflow_count(), 3u);
  EXPECT_EQ(m.overflow_dropped(), 3u);
  EXPECT_EQ(*m.min(), -7);
  EXPECT_DOUBLE_EQ(*m.mean(), (40.0 + 500 - 7) / 6);
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

TEST(PagedBins, PagesAreMadeOnFirstUseAndCopiesAreIndependent) {
  PagedBins b(20001);
  EXPECT_EQ(b.size(), 20001u);
  EXPECT_EQ(b[0], 0u);
  EXPECT_EQ(b[20000], 0u);  // the last, in a partial page
  b.add(255, 2);            // the last of the first page
  b.add(256, 3);            // the first of the second
  b.add(20000, 1);
  b.add(7, 0);  // nothing: no page is made for it
  PagedBins copy = b;
  b.add(256, 1);
  EXPECT_EQ(b[255], 2u);
  EXPECT_EQ(b[256], 4u);
  EXPECT_EQ(b[20000], 1u);
  EXPECT_EQ(copy[256], 3u);
  EXPECT_EQ(copy[257], 0u);
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Exact histogram of integer microsecond values: 1 µs bins from 0 to a bound, an exact list of
// the values above the bound (the largest ones are kept when the list is full, so the maximum
// and the high percentiles stay exact), optionally 1 µs bins below 0 down to a negative bound
// (for figures that are negative when something went wrong, as the slack of a missed deadline,
// whose low percentiles are the point), and an exact count/minimum of the negative values
// beyond that.
// Memory is fixed at construction. Not realtime code: used on the drain thread and in the engine.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace xrunlab {

struct Percentile {
  int64_t value_us = 0;
  bool exact = true;  // false: the rank fell among overflow values that were not kept
                      // (value_us is then a lower bound: the bound of the histogram)
};

// 32-bit counts for the values 0..size()-1, in pages of 256 allocated on first use: a run's
// delays fill a few milliseconds of a 20 ms range, so a histogram holds a few KB instead of 80
// (an engine holds five per client: 100 MB at 128 clients with flat bins). Copyable.
class PagedBins {
 public:
  explicit PagedBins(size_t size = 0) : size_(size), pages_((size + kPage - 1) / kPage) {}
  size_t size() const { return size_; }
  uint32_t operator[](size_t v) const {
    const std::vector<uint32_t>& page = pages_[v / kPage];
    return page.empty() ? 0 : page[v % kPage];
  }
  void add(size_t v, uint32_t n) {
    if (n == 0) return;
    std::vector<uint32_t>& page = pages_[v / kPage];
    if (page.empty()) page.assign(kPage, 0);
    page[v % kPage] += n;
  }
  static constexpr size_t kPage = 256;

 private:
  size_t size_;
  std::vector<std::vector<uint32_t>> pages_;
};

class Histogram {
 public:
  static constexpr uint32_t kDefaultBoundUs = 20000;
  static constexpr size_t kDefaultOverflowKeep = 1024;

  // Values from -negative_bound_us to bound_us go into 1 µs bins (negative_bound_us 0: none
  // below 0).
  explicit Histogram(uint32_t bound_us = kDefaultBoundUs,
                     size_t overflow_keep = kDefaultOverflowKeep, uint32_t negative_bound_us = 0);

  void add(int64_t value_us, uint64_t times = 1);
  void merge(const Histogram& other);
  // Counts values known only by their number, as histogram.csv keeps them (its underflow and
  // overflow_dropped rows), so that a histogram read back from it writes the same rows:
  // `below_zero` values < 0 and `above_bound` values > bound_us() that were not kept. They
  // count in count(), underflow_count(), overflow_dropped() and the percentile ranks; min(),
  // max() and mean() are those of the values known (nullopt when none is). A percentile that
  // falls among the unknown values is not exact: {bound + 1} above the bound as for any dropped
  // overflow value, {-1} below 0 (all that is known: the value is negative).
  void add_unknown(uint64_t below_zero, uint64_t above_bound);

  uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::optional<int64_t> min() const;
  std::optional<int64_t> max() const;
  std::optional<double> mean() const;
  // Nearest-rank percentile, p in [0, 100]. nullopt when empty. A rank among the negative
  // values below the negative bins gives the least of them, exact only at rank 1 (above it, a
  // lower bound); above rank 1, -(negative_bound_us + 1), not exact, when some were counted by
  // add_unknown (a value added beside them is taken to be their least, as run.json keeps it).
  std::optional<Percentile> percentile(double p) const;

  uint32_t bound_us() const { return bound_us_; }
  uint32_t negative_bound_us() const { return negative_bound_us_; }
  // Every value < 0, in the negative bins or below them.
  uint64_t underflow_count() const { return underflow_count_; }
  uint64_t overflow_count() const { return overflow_count_; }
  uint64_t overflow_dropped() const { return overflow_count_ - overflow_kept_.size(); }
  // (value, count) for every non-empty bin, ascending (negative bins first); overflow values as
  // (value, 1). Negative values below the negative bins are not listed (underflow_count()).
  std::vector<std::pair<int64_t, uint64_t>> nonzero() const;

 private:
  void keep_overflow(int64_t value_us);

  uint32_t bound_us_;
  size_t overflow_keep_;
  // 32-bit counts halve the memory (an engine holds 4 per client); one bin would need more than
  // 4.29e9 cycles, i.e. over two weeks at 3000 cycles/s - longer than --duration allows.
  uint32_t negative_bound_us_;
  PagedBins bins_;                      // bins_[v] = number of values equal to v, 0 <= v <= bound
  PagedBins neg_bins_;                  // neg_bins_[k] = values equal to -(k + 1), k < neg bound
  uint64_t neg_binned_ = 0;             // values in neg_bins_
  std::vector<int64_t> overflow_kept_;  // min-heap of the largest values above the bound
  uint64_t overflow_count_ = 0;
  uint64_t underflow_count_ = 0;  // values < 0 (possible for DLL-referenced delays), binned or not
  int64_t underflow_min_ = 0;
  uint64_t count_ = 0;
  uint64_t unknown_below_ = 0, unknown_above_ = 0;  // add_unknown: counted, values not known
  long double sum_ = 0;                             // of the values known
  int64_t min_ = 0;
  int64_t max_ = 0;
};

// What the writers show of a histogram: its count, extremes, mean and percentiles (nullopt
// while it is empty).
struct MetricSummary {
  uint64_t count = 0;
  std::optional<int64_t> min_us, max_us;
  std::optional<double> mean_us;
  std::optional<Percentile> p50, p99, p999;
};
MetricSummary summarize(const Histogram& h);

}  // namespace xrunlab

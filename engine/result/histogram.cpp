// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace xrunlab {

Histogram::Histogram(uint32_t bound_us, size_t overflow_keep, uint32_t negative_bound_us)
    : bound_us_(bound_us),
      overflow_keep_(overflow_keep),
      negative_bound_us_(negative_bound_us),
      bins_(size_t{bound_us} + 1),
      neg_bins_(negative_bound_us) {
  overflow_kept_.reserve(overflow_keep_);
}

void Histogram::keep_overflow(int64_t value_us) {
  ++overflow_count_;
  if (overflow_keep_ == 0) return;
  auto cmp = std::greater<int64_t>();
  if (overflow_kept_.size() < overflow_keep_) {
    overflow_kept_.push_back(value_us);
    std::push_heap(overflow_kept_.begin(), overflow_kept_.end(), cmp);
  } else if (value_us > overflow_kept_.front()) {
    std::pop_heap(overflow_kept_.begin(), overflow_kept_.end(), cmp);
    overflow_kept_.back() = value_us;
    std::push_heap(overflow_kept_.begin(), overflow_kept_.end(), cmp);
  }
}

void Histogram::add(int64_t value_us, uint64_t times) {
  if (times == 0) return;
  if (count_ == unknown_below_ + unknown_above_) {  // the first value known
    min_ = max_ = value_us;
  } else {
    min_ = std::min(min_, value_us);
    max_ = std::max(max_, value_us);
  }
  count_ += times;
  sum_ += static_cast<long double>(value_us) * static_cast<long double>(times);
  if (value_us < 0) {
    underflow_count_ += times;
    underflow_min_ = std::min(underflow_min_, value_us);
    // Compared without negating: -INT64_MIN does not exist (a telemetry line may carry any
    // int64; fuzzing the decoder found it).
    if (value_us >= -static_cast<int64_t>(negative_bound_us_)) {
      neg_bins_.add(static_cast<size_t>(-value_us - 1), static_cast<uint32_t>(times));
      neg_binned_ += times;
    }
  } else if (value_us <= static_cast<int64_t>(bound_us_)) {
    bins_.add(static_cast<size_t>(value_us), static_cast<uint32_t>(times));
  } else {
    // Only the overflow_keep_ largest values above the bound are kept: copies of one value past
    // that many change nothing but the count (one add per copy hung on a histogram.csv row
    // counting 18 million of one value, found by fuzzing).
    const uint64_t kept = std::min<uint64_t>(times, overflow_keep_);
    for (uint64_t i = 0; i < kept; ++i) keep_overflow(value_us);
    overflow_count_ += times - kept;
  }
}

void Histogram::add_unknown(uint64_t below_zero, uint64_t above_bound) {
  count_ += below_zero + above_bound;
  underflow_count_ += below_zero;
  unknown_below_ += below_zero;
  overflow_count_ += above_bound;
  unknown_above_ += above_bound;
}

void Histogram::merge(const Histogram& other) {
  if (other.count_ == 0) return;
  if (other.min()) {
    const bool first = !min();
    min_ = first ? other.min_ : std::min(min_, other.min_);
    max_ = first ? other.max_ : std::max(max_, other.max_);
  }
  count_ += other.count_;
  unknown_below_ += other.unknown_below_;
  unknown_above_ += other.unknown_above_;
  sum_ += other.sum_;
  underflow_count_ += other.underflow_count_;
  underflow_min_ = std::min(underflow_min_, other.underflow_min_);
  // The other's negative bins this one has room for; the rest stay counted below the bins
  // (underflow_count_ took them all).
  const size_t nn = std::min(neg_bins_.size(), other.neg_bins_.size());
  for (size_t k = 0; k < nn; ++k) {
    neg_bins_.add(k, other.neg_bins_[k]);
    neg_binned_ += other.neg_bins_[k];
  }
  const size_t n = std::min(bins_.size(), other.bins_.size());
  for (size_t v = 0; v < n; ++v) bins_.add(v, other.bins_[v]);  // see the bound on bins_
  // Bins of a wider histogram that this one cannot hold become overflow values.
  for (size_t v = n; v < other.bins_.size(); ++v) {
    for (uint64_t i = 0; i < other.bins_[v]; ++i) keep_overflow(static_cast<int64_t>(v));
  }
  for (int64_t v : other.overflow_kept_) {
    if (v <= static_cast<int64_t>(bound_us_)) {
      bins_.add(static_cast<size_t>(v), 1);
    } else {
      keep_overflow(v);
    }
  }
  // Values the other histogram counted but did not keep: counted, value unknown (> its bound).
  overflow_count_ += other.overflow_dropped();
}

std::optional<int64_t> Histogram::min() const {
  if (count_ == unknown_below_ + unknown_above_) return std::nullopt;
  return min_;
}

std::optional<int64_t> Histogram::max() const {
  if (count_ == unknown_below_ + unknown_above_) return std::nullopt;
  return max_;
}

std::optional<double> Histogram::mean() const {
  const uint64_t known = count_ - unknown_below_ - unknown_above_;
  if (known == 0) return std::nullopt;
  return static_cast<double>(sum_ / static_cast<long double>(known));
}

std::optional<Percentile> Histogram::percentile(double p) const {
  if (count_ == 0) return std::nullopt;
  p = std::clamp(p, 0.0, 100.0);
  // Nearest rank: the smallest value with at least ceil(p/100 * N) values at or below it.
  // (the epsilon keeps 99.9% of 1000 at rank 999 despite binary floating point)
  uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_) / 100.0 - 1e-9));
  rank = std::max<uint64_t>(rank, 1);
  const uint64_t unbinned = underflow_count_ - neg_binned_;  // below the negative bins
  if (rank <= unbinned) {
    // Values below the bins: only the minimum is known exactly (when every one of them is
    // known: add_unknown).
    // A known value among them is their least (run.json keeps the count and the least value:
    // engine/result/run_json.cpp reads them back so), exact at rank 1.
    const bool least_known = unbinned > unknown_below_;
    if (rank == 1 && least_known) return Percentile{underflow_min_, true};
    const int64_t below_bins = -static_cast<int64_t>(negative_bound_us_) - 1;
    if (unknown_below_ > 0) return Percentile{below_bins, false};
    return Percentile{underflow_min_, false};
  }
  uint64_t seen = unbinned;
  for (size_t k = neg_bins_.size(); k-- > 0;) {
    seen += neg_bins_[k];
    if (seen >= rank) return Percentile{-static_cast<int64_t>(k) - 1, true};
  }
  for (size_t v = 0; v < bins_.size(); ++v) {
    seen += bins_[v];
    if (seen >= rank) return Percentile{static_cast<int64_t>(v), true};
  }
  const uint64_t dropped = overflow_count_ - overflow_kept_.size();
  if (rank <= seen + dropped) return Percentile{static_cast<int64_t>(bound_us_) + 1, false};
  seen += dropped;
  std::vector<int64_t> kept(overflow_kept_);
  std::sort(kept.begin(), kept.end());
  return Percentile{kept[static_cast<size_t>(rank - seen - 1)], true};
}

std::vector<std::pair<int64_t, uint64_t>> Histogram::nonzero() const {
  std::vector<std::pair<int64_t, uint64_t>> out;
  for (size_t k = neg_bins_.size(); k-- > 0;) {
    if (neg_bins_[k] != 0) out.emplace_back(-static_cast<int64_t>(k) - 1, neg_bins_[k]);
  }
  for (size_t v = 0; v < bins_.size(); ++v) {
    if (bins_[v] != 0) out.emplace_back(static_cast<int64_t>(v), bins_[v]);
  }
  std::vector<int64_t> kept(overflow_kept_);
  std::sort(kept.begin(), kept.end());
  for (int64_t v : kept) {
    if (!out.empty() && out.back().first == v) {
      ++out.back().second;
    } else {
      out.emplace_back(v, 1);
    }
  }
  return out;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/stats/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/stats/describe.hpp"

namespace xrunlab::stats {

namespace {

constexpr double kSmallestPShown = 0.001;

// The runs-needed clause of an unresolved verdict, after "; ": for a difference as large as
// the medians' when they differ (what the reader wants to know resolved), else for 20 %.
std::string runs_clause(const RunsNeeded& needed, bool seen, size_t n_a, size_t n_b) {
  if (!needed.runs_per_case) return "no estimate of the runs needed: " + needed.why_absent;
  const std::string what =
      seen ? std::string("a difference as large as the one seen")
           : fmt::format("a {:.0f} % difference", kVerdictRelativeDifference * 100);
  if (*needed.runs_per_case <= std::min(n_a, n_b)) {
    // Saying "N would be needed" with N in hand would mislead; what the runs could not see is
    // left to the reader (a miss at 80 % power happens one campaign in five).
    return fmt::format("about {} runs each are enough to see {} at this noise",
                       *needed.runs_per_case, what);
  }
  return fmt::format("about {} runs each would be needed to see {} at this noise",
                     *needed.runs_per_case, what);
}

}  // namespace

std::string format_number(double v) {
  if (v == 0) return "0";  // also -0, which a difference of equal values can be
  std::string s = fmt::format("{:.3g}", v);
  if (std::fabs(v) >= 1 && s.find('e') != std::string::npos) return fmt::format("{:.0f}", v);
  return s;
}

std::string format_p(double p) {
  if (p < kSmallestPShown) return fmt::format("p < {}", kSmallestPShown);
  return fmt::format("p = {:.2g}", p);
}

std::string format_q(double q) {
  if (q < kSmallestPShown) return fmt::format("< {}", kSmallestPShown);
  return fmt::format("{:.2g}", q);
}

std::optional<double> comparison_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::optional<RankSumTest> t = mann_whitney(a, b);
  return t ? std::optional<double>(t->p) : std::nullopt;
}

Verdict compare_cases(const std::string& name_a, const std::vector<double>& a,
                      const std::string& name_b, const std::vector<double>& b, const Metric& metric,
                      std::optional<Adjusted> adjusted) {
  Verdict v;
  v.name_a = name_a;
  v.name_b = name_b;
  v.n_a = a.size();
  v.n_b = b.size();
  const std::string pair = fmt::format("{} vs {}", name_a, name_b);
  if (a.empty() || b.empty()) {
    const std::string missing =
        a.empty() && b.empty() ? "either case" : (a.empty() ? name_a : name_b);
    v.sentence = fmt::format("{}: no runs of {} to compare", pair, missing);
    return v;
  }
  v.median_a = describe(a).median;
  v.median_b = describe(b).median;
  v.median_difference = *v.median_a - *v.median_b;
  v.shift = hodges_lehmann(a, b);
  v.test = mann_whitney(a, b);
  v.smallest_p = smallest_exact_p(v.n_a, v.n_b);
  v.runs_needed = runs_needed(a, b, kVerdictRelativeDifference);
  const double scale = std::max(std::fabs(*v.median_a), std::fabs(*v.median_b));
  if (*v.median_difference != 0 && scale > 0) {
    v.runs_needed_seen = runs_needed(a, b, std::fabs(*v.median_difference) / scale);
  }

  const std::optional<Interval>& ci = v.shift->ci95;
  const bool reachable = *v.smallest_p < kVerdictAlpha;
  const bool significant = v.test->p < kVerdictAlpha;
  const bool family = adjusted && adjusted->comparisons > 1;
  if (family) {
    v.q = adjusted->q;
    v.comparisons = adjusted->comparisons;
  }
  const bool survives = !family || adjusted->q < kVerdictAlpha;
  v.resolved = reachable && significant && survives && ci && (ci->low > 0 || ci->high < 0);
  // "p = 0.0079" or, among several comparisons, "p = 0.0079 (0.031 adjusted for 125
  // comparisons)".
  const std::string p_text =
      family ? fmt::format("{} ({} adjusted for {} comparisons)", format_p(v.test->p),
                           format_q(adjusted->q), adjusted->comparisons)
             : format_p(v.test->p);

  if (v.resolved) {
    const bool a_larger = ci->low > 0;
    const bool a_better = metric.lower_is_better ? !a_larger : a_larger;
    v.a_better = a_better;
    const std::string& word = metric.lower_is_better ? metric.smaller_word : metric.larger_word;
    const std::string& better = a_better ? name_a : name_b;
    const std::string& worse = a_better ? name_b : name_a;
    const double better_median = a_better ? *v.median_a : *v.median_b;
    const double worse_median = a_better ? *v.median_b : *v.median_a;
    const size_t better_n = a_better ? v.n_a : v.n_b;
    const size_t worse_n = a_better ? v.n_b : v.n_a;
    // The difference better - worse: a - b as computed, or its mirror.
    const double low = a_better ? ci->low : -ci->high;
    const double high = a_better ? ci->high : -ci->low;
    v.sentence = fmt::format(
        "{}: {} {} than {} (median {} vs {}{}; 95 % CI of the difference {}..{}; {}, {} vs {} "
        "runs)",
        better, word, metric.name, worse, format_number(better_median), format_number(worse_median),
        metric.unit.empty() ? "" : " " + metric.unit, format_number(low), format_number(high),
        p_text, better_n, worse_n);
    return v;
  }

  std::string why;
  // The floor comes first: with ties the normal approximation can show p < 0.05 where no
  // arrangement of so few runs could ({3, 3, 3} vs {7, 7, 7}: 0.047 at 3 vs 3).
  if (!reachable) {
    why = fmt::format("the test cannot reach p < {} with so few", kVerdictAlpha);
  } else if (!significant) {
    why = format_p(v.test->p);
  } else if (!survives) {
    why = fmt::format("{}, but {} adjusted for {} comparisons", format_p(v.test->p),
                      format_q(adjusted->q), adjusted->comparisons);
  } else if (ci) {  // significant, but the interval says the shift may be 0
    why = fmt::format("{}, but the 95 % CI of the difference, {}..{}, includes 0", p_text,
                      format_number(ci->low), format_number(ci->high));
  } else {
    why = fmt::format("{}, but {}", p_text, v.shift->why_no_ci);
  }
  const bool seen = v.runs_needed_seen.has_value();
  v.sentence = fmt::format(
      "{}: no difference in {} this machine can resolve with {} vs {} runs "
      "(median {} vs {}{}; {}); {}",
      pair, metric.name, v.n_a, v.n_b, format_number(*v.median_a), format_number(*v.median_b),
      metric.unit.empty() ? "" : " " + metric.unit, why,
      runs_clause(seen ? *v.runs_needed_seen : v.runs_needed, seen, v.n_a, v.n_b));
  return v;
}

}  // namespace xrunlab::stats

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/run_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include "engine/base/errors.hpp"
#include "engine/base/text.hpp"
#include "engine/report/jack_test_labels.hpp"
#include "engine/result/load_record.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

namespace {

const HopSeries* hop(const RunResult& run, std::string_view key) {
  for (const HopSeries& h : run.cycle_table.hops) {
    if (h.key == key) return &h;
  }
  return nullptr;
}

// The value that `pct` % of the hop's cycles were at or below (nearest rank: the smallest value
// with at least that share at or below it), negative ones included (the slack's). A rank whose
// value is not known (among the values kept only as a count: below the slack's bins but the
// least, or above the bound and not kept) is absent, not a bound passed off as the figure.
std::optional<double> exact_percentile(const Histogram& h, double pct) {
  const std::optional<Percentile> p = h.percentile(pct);
  if (!p || !p->exact) return std::nullopt;
  return static_cast<double>(p->value_us);
}

// Every hop of `kind` (e.g. all clients' "client_wakeup") pooled into one distribution: one
// value per client and cycle. nullopt when the run has no hop of that kind.
std::optional<Histogram> pooled_hops(const RunResult& run, std::string_view kind) {
  std::optional<Histogram> pooled;
  for (const HopSeries& h : run.cycle_table.hops) {
    if (h.kind != kind) continue;
    if (pooled) {
      pooled->merge(h.us);
    } else {
      pooled = h.us;
    }
  }
  return pooled;
}

// The run's xrun events: the cycle table's and those outside the chain; without a table, the
// monitor's.
double xrun_events(const RunResult& run) {
  if (run.xrun_cycles.present) return static_cast<double>(run.xrun_cycles.total_events());
  return static_cast<double>(run.xruns.events_total());
}

std::optional<double> slack_min(const RunResult& run) {
  const HopSeries* h = hop(run, "slack");
  if (h == nullptr) return std::nullopt;
  // The least value is kept even among those below the bins (run.json's below_zero_min); a
  // negative value known only by its count leaves the least unknown.
  const std::optional<int64_t> m = h->us.min();
  if (!m || (h->us.underflow_count() > 0 && *m >= 0)) return std::nullopt;
  return static_cast<double>(*m);
}

// Only an exact value: one beyond cyclictest's histogram is a bound, not a figure.
std::optional<double> baseline_percentile(const std::optional<Percentile>& p) {
  if (!p || !p->exact) return std::nullopt;
  return static_cast<double>(p->value_us);
}

// The 2004 realtime-preempt figures of the clients' DSP loop (each client's DSP hop of the cycle
// table against its calibrated nominal length, dsp_target_us): over every client's cycles.
struct DspAgainstNominal {
  uint64_t cycles = 0, within_100us = 0;
  std::optional<double> worst_overhead_pct, worst_us, nominal_us;
  std::map<int64_t, uint64_t> pooled;  // every client's loops, us -> count (in range)
};

// The median loop of every client's cycles pooled (the lower median), us; nullopt without
// cycles or where its rank lies beyond the histogram's range (counted, not known).
std::optional<double> pooled_median(const DspAgainstNominal& d) {
  if (d.cycles == 0) return std::nullopt;
  const uint64_t rank = (d.cycles + 1) / 2;  // 1-based
  uint64_t seen = 0;
  for (const auto& [us, n] : d.pooled) {
    seen += n;
    if (seen >= rank) return static_cast<double>(us);
  }
  return std::nullopt;
}

DspAgainstNominal dsp_against_nominal(const RunResult& run) {
  DspAgainstNominal d;
  for (const HopSeries& h : run.cycle_table.hops) {
    if (h.kind != "dsp" || h.client < 1) continue;
    const ClientResult* c = nullptr;
    for (const ClientResult& cr : run.client_results) {
      if (cr.index == h.client) c = &cr;
    }
    if (c == nullptr || !(c->dsp_target_us > 0)) continue;
    const double nominal = c->dsp_target_us;
    d.nominal_us = d.nominal_us ? std::max(*d.nominal_us, nominal) : nominal;
    d.cycles += h.us.count();
    for (const auto& [us, n] : h.us.nonzero()) {
      if (std::fabs(static_cast<double>(us) - nominal) <= 100.0) d.within_100us += n;
      d.pooled[us] += n;
    }
    if (const std::optional<int64_t> worst = h.us.max()) {
      const auto w = static_cast<double>(*worst);
      const double overhead = (w - nominal) / nominal * 100.0;
      if (!d.worst_overhead_pct || overhead > *d.worst_overhead_pct)
        d.worst_overhead_pct = overhead;
      if (!d.worst_us || w > *d.worst_us) d.worst_us = w;
    }
  }
  return d;
}

// The mean time of a benchmark job over every bench load of the run (--load bench), weighted by
// their jobs: `cpu` the workers' CPU time per job, else its wall time; ms. nullopt when the run
// has no bench load or none finished a job.
std::optional<double> bench_job_ms(const RunResult& run, bool cpu) {
  if (!run.loads) return std::nullopt;
  double sum_ms = 0;
  uint64_t jobs = 0;
  for (const LoadRecord& l : *run.loads) {
    if (!l.report || !l.report->bench) continue;
    const BenchFigures& b = *l.report->bench;
    const std::optional<double>& mean = cpu ? b.job_cpu_ms_mean : b.job_wall_ms_mean;
    if (b.jobs == 0 || !mean) continue;
    sum_ms += *mean * static_cast<double>(b.jobs);
    jobs += b.jobs;
  }
  if (jobs == 0) return std::nullopt;
  return sum_ms / static_cast<double>(jobs);
}

}  // namespace

stats::Metric stats_metric(const RunMetric& m) {
  stats::Metric s;
  s.name = m.label;
  s.unit = m.unit;
  s.lower_is_better = m.lower_is_better;
  const bool count = m.unit.empty() || m.unit == "/min";
  s.smaller_word = count ? "fewer" : "lower";
  s.larger_word = count ? "more" : "higher";
  return s;
}

std::string describe_cell(const stats::Description& d) {
  if (!d.median) return "-";
  return fmt::format("{} [{}..{}] {}..{}", stats::format_number(*d.median),
                     stats::format_number(*d.q1), stats::format_number(*d.q3),
                     stats::format_number(*d.min), stats::format_number(*d.max));
}

const std::vector<RunMetric>& run_metrics() {
  namespace f = jack_test_field;
  static const std::vector<RunMetric> metrics = {
      {"xruns", "xrun events", "", true},
      {"xrun_rate", "xrun events per minute", "/min", true},
      {"xrun_count", fmt::format("driver xruns ({})", f::kXrunCount.label), "", true},
      {"delay_max", std::string(f::kDelayMax.label), "us", true},
      {"cycle_max", std::string(f::kCycleMax.label), "us", true},
      {"slack_min", "slack minimum", "us", false},
      {"slack_p1", "slack 1st percentile", "us", false},
      {"wakeup_p99", "interrupt -> jackd wake-up p99", "us", true},
      {"client_wakeup_p99", "client wake-up p99 (upstream done -> entry, all clients)", "us", true},
      {"baseline_p50", "cyclictest median beside the run", "us", true},
      {"baseline_p99", "cyclictest p99 beside the run", "us", true},
      {"baseline_max", "cyclictest max beside the run", "us", true},
      {"dsp_within_100us_pct", "DSP loops within 100 us of nominal", "%", false},
      {"dsp_overhead_max_pct", "worst DSP loop overhead over nominal", "%", true},
      {"dsp_max_us", "longest DSP loop", "us", true},
      {"dsp_p50_us", "median DSP loop", "us", true},
      {"dsp_nominal_us", "nominal DSP loop (calibrated)", "us", true},
      {"ping_lost_pct", "--ping requests lost", "%", true},
      {"bench_job_ms", "mean wall time of a benchmark job (--load bench)", "ms", true},
      {"bench_job_cpu_ms", "mean CPU time of a benchmark job (--load bench)", "ms", true},
      {"glitches", "audible glitches", "", true},
      {"dsp_load", std::string(f::kDspLoad.label), "%", true},
  };
  return metrics;
}

const RunMetric* find_run_metric(const std::string& name) {
  for (const RunMetric& m : run_metrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::optional<double> run_metric(const RunResult& run, const std::string& name) {
  if (name == "xruns") return xrun_events(run);
  if (name == "xrun_rate") {
    if (run.seconds_ran <= 0) return std::nullopt;
    return xrun_events(run) * 60.0 / run.seconds_ran;
  }
  if (name == "xrun_count") return static_cast<double>(run.xrun_count);
  if (name == "delay_max") return run.jack_test.delay_max_us;
  if (name == "cycle_max") return run.jack_test.cycle_max_us;
  if (name == "dsp_load") return run.avg_dsp_load;
  if (name == "glitches") {
    // A --source file the check could not work on has no glitch count (run.json: not_checked).
    if (!run.audio || !run.audio->totals.not_checked.empty()) return std::nullopt;
    return static_cast<double>(run.audio->totals.glitches);
  }
  if (name == "slack_min") return slack_min(run);
  if (name == "slack_p1") {
    const HopSeries* h = hop(run, "slack");
    return h == nullptr ? std::nullopt : exact_percentile(h->us, 1.0);
  }
  if (name == "baseline_p50" || name == "baseline_p99") {
    if (!run.baseline) return std::nullopt;
    return baseline_percentile(name == "baseline_p50" ? run.baseline->p50 : run.baseline->p99);
  }
  if (name.rfind("dsp_", 0) == 0 && name != "dsp_load") {
    const DspAgainstNominal d = dsp_against_nominal(run);
    if (d.cycles == 0) return std::nullopt;
    if (name == "dsp_within_100us_pct") {
      return std::round(1000.0 * static_cast<double>(d.within_100us) /
                        static_cast<double>(d.cycles)) /
             10.0;
    }
    if (name == "dsp_overhead_max_pct" && d.worst_overhead_pct) {
      return std::round(*d.worst_overhead_pct * 10.0) / 10.0;
    }
    if (name == "dsp_max_us") return d.worst_us;
    if (name == "dsp_p50_us") return pooled_median(d);
    if (name == "dsp_nominal_us" && d.nominal_us) return std::round(*d.nominal_us);
    return std::nullopt;
  }
  if (name == "baseline_max") {
    if (!run.baseline || run.baseline->error || !run.baseline->max_us) return std::nullopt;
    return static_cast<double>(*run.baseline->max_us);
  }
  if (name == "ping_lost_pct") {
    if (!run.ping || run.ping->error || run.ping->sent == 0) return std::nullopt;
    return run.ping->lost_pct;
  }
  if (name == "bench_job_ms") return bench_job_ms(run, false);
  if (name == "bench_job_cpu_ms") return bench_job_ms(run, true);
  if (name == "wakeup_p99") {
    const HopSeries* h = hop(run, "jackd_wakeup");
    return h == nullptr ? std::nullopt : exact_percentile(h->us, 99.0);
  }
  if (name == "client_wakeup_p99") {
    const std::optional<Histogram> h = pooled_hops(run, "client_wakeup");
    return h ? exact_percentile(*h, 99.0) : std::nullopt;
  }
  return std::nullopt;
}

Threshold parse_threshold(const std::string& text) {
  auto bad = [&](const std::string& why) -> Threshold {
    throw Error(ExitCode::kUsage, "--fail-if '" + text + "': " + why);
  };
  Threshold t;
  t.text = text;
  size_t at = text.find_first_of("<>=");
  if (at == std::string::npos || at == 0) return bad("expected NAME OP VALUE, e.g. xruns>0");
  t.metric = text.substr(0, at);
  for (const char* op : {">=", "<=", "==", ">", "<"}) {
    if (text.compare(at, std::string(op).size(), op) == 0) {
      t.op = op;
      break;
    }
  }
  if (t.op.empty()) return bad("the operator must be one of > >= < <= ==");
  const RunMetric* m = find_run_metric(t.metric);
  if (m == nullptr) {
    std::string names;
    for (const RunMetric& r : run_metrics()) names += (names.empty() ? "" : ", ") + r.name;
    // Slack is better when larger: its bad tail is the low one, so "the slack p99" people ask
    // for is the slack 99 % of cycles had at least, the 1st percentile.
    const std::string hint =
        t.metric == "slack_p99"
            ? "; the slack 99 % of cycles had at least is slack_p1, the low tail's percentile"
            : "";
    return bad("'" + t.metric + "' is not a figure xrunlab checks (" + names + ")" + hint);
  }
  const std::string rest = text.substr(at + t.op.size());
  char* end = nullptr;
  const double v = std::strtod(rest.c_str(), &end);
  if (rest.empty() || end == rest.c_str() || !std::isfinite(v))
    return bad("no number after " + t.op);
  const std::string unit(end);
  double scale = 1;
  if (m->unit == "us" || m->unit == "ms") {
    // VALUE in us, ms or s, converted to the metric's unit.
    const double per_us = m->unit == "us" ? 1.0 : 1e-3;
    if (unit == "ms") {
      scale = 1000 * per_us;
    } else if (unit == "s") {
      scale = 1e6 * per_us;
    } else if (unit == "us") {
      scale = per_us;
    } else if (!unit.empty()) {
      return bad("'" + unit + "' is not a time unit (us, ms, s)");
    }
  } else if (!unit.empty() && unit != m->unit) {
    return bad(fmt::format("'{}' is not {}'s unit{}", unit, m->name,
                           m->unit.empty() ? " (a count has none)" : " (" + m->unit + ")"));
  }
  t.value = v * scale;
  return t;
}

ThresholdCheck check_threshold(const Threshold& t, std::optional<double> value) {
  ThresholdCheck c;
  c.threshold = t;
  c.value = value;
  const RunMetric* m = find_run_metric(t.metric);
  const std::string unit = m == nullptr || m->unit.empty() ? "" : " " + m->unit;
  if (!value) {
    // Not measured is not a pass: a threshold that cannot be checked fails, and says why.
    c.crossed = true;
    c.message = fmt::format("{}: not measured, so it cannot pass '{}'", t.metric, t.text);
    return c;
  }
  const double v = *value;
  if (t.op == ">") c.crossed = v > t.value;
  if (t.op == ">=") c.crossed = v >= t.value;
  if (t.op == "<") c.crossed = v < t.value;
  if (t.op == "<=") c.crossed = v <= t.value;
  if (t.op == "==") c.crossed = v == t.value;
  c.message = fmt::format("{} = {:.6g}{} ({}: {})", t.metric, v, unit, t.text,
                          c.crossed ? "fails" : "passes");
  return c;
}

namespace {

std::string xml_escaped(const std::string& s) {
  return markup_escape(s);
}

}  // namespace

std::string junit_xml(const std::string& suite, const std::vector<JunitCase>& cases) {
  size_t failures = 0, errors = 0;
  double seconds = 0;
  for (const JunitCase& c : cases) {
    seconds += c.seconds;
    if (!c.error.empty()) {
      ++errors;
      continue;
    }
    for (const ThresholdCheck& k : c.checks) {
      if (k.crossed) {
        ++failures;
        break;
      }
    }
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites>\n  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n",
      xml_escaped(suite), cases.size(), failures, errors, seconds);
  for (const JunitCase& c : cases) {
    out += fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3f}\">\n",
                       xml_escaped(c.name), xml_escaped(c.classname), c.seconds);
    if (!c.error.empty()) {
      out += fmt::format("      <error message=\"{}\"/>\n", xml_escaped(c.error));
    } else {
      std::string failed, all;
      for (const ThresholdCheck& k : c.checks) {
        all += k.message + "\n";
        if (k.crossed) failed += (failed.empty() ? "" : "; ") + k.message;
      }
      if (!failed.empty()) {
        out += fmt::format("      <failure message=\"{}\">{}</failure>\n", xml_escaped(failed),
                           xml_escaped(all));
      }
      if (!all.empty()) out += fmt::format("      <system-out>{}</system-out>\n", xml_escaped(all));
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/run_metrics.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <map>

#include "engine/base/errors.hpp"

namespace xrunlab {

namespace {

using nlohmann::json;

std::optional<double> number_at(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

const json* hop(const json& run, const std::string& key) {
  if (!run.contains("cycles") || !run["cycles"].is_object()) return nullptr;
  const json& cycles = run["cycles"];
  if (!cycles.contains("hops") || !cycles["hops"].is_array()) return nullptr;
  for (const json& h : cycles["hops"]) {
    if (h.value("key", "") == key) return &h;
  }
  return nullptr;
}

// The value that `pct` % of the hop's cycles were at or below (R's type 1: the smallest value
// with at least that share at or below it), from its exact 1 usec bins, negative ones included
// (the slack's, down to its negative_bound_us). Values below the bins are kept only as a count
// and a minimum: a rank among them gives the minimum at rank 1 (exact), and otherwise nothing
// (a figure that is not known is absent, not a bound passed off as it).
std::optional<double> hop_percentile(const json& h, double pct) {
  const auto count = h.value("summary_us", json::object()).value("count", uint64_t{0});
  if (count == 0) return std::nullopt;
  const auto rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(pct / 100.0 * static_cast<double>(count))));
  if (!h.contains("bins") || !h["bins"].is_array()) return std::nullopt;
  uint64_t binned_below = 0;
  for (const json& b : h["bins"]) {
    if (b.at(0).get<int64_t>() < 0) binned_below += b.at(1).get<uint64_t>();
  }
  const uint64_t below = h.value("below_zero", uint64_t{0});
  const uint64_t unbinned = below > binned_below ? below - binned_below : 0;
  if (rank <= unbinned) {
    const json& m = h.value("below_zero_min", json());
    if (rank == 1 && m.is_number()) return m.get<double>();
    return std::nullopt;
  }
  uint64_t seen = unbinned;
  for (const json& b : h["bins"]) {
    seen += b.at(1).get<uint64_t>();
    if (seen >= rank) return b.at(0).get<double>();
  }
  return std::nullopt;
}

// Every hop of `kind` (e.g. all clients' "client_wakeup") pooled into one hop of the same shape
// (counts and bins summed, the smallest value below zero kept): one value per client and cycle.
// nullopt when the run has no hop of that kind.
std::optional<json> pooled_hops(const json& run, const std::string& kind) {
  if (!run.contains("cycles") || !run["cycles"].is_object()) return std::nullopt;
  const json& cycles = run["cycles"];
  if (!cycles.contains("hops") || !cycles["hops"].is_array()) return std::nullopt;
  std::map<int64_t, uint64_t> bins;
  uint64_t count = 0, below = 0;
  std::optional<double> below_min;
  bool any = false;
  for (const json& h : cycles["hops"]) {
    if (h.value("kind", "") != kind) continue;
    any = true;
    count += h.value("summary_us", json::object()).value("count", uint64_t{0});
    below += h.value("below_zero", uint64_t{0});
    const json& m = h.value("below_zero_min", json());
    if (m.is_number() && (!below_min || m.get<double>() < *below_min)) below_min = m.get<double>();
    if (!h.contains("bins") || !h["bins"].is_array()) continue;
    for (const json& b : h["bins"]) bins[b.at(0).get<int64_t>()] += b.at(1).get<uint64_t>();
  }
  if (!any) return std::nullopt;
  json pooled;
  pooled["summary_us"]["count"] = count;
  pooled["below_zero"] = below;
  pooled["below_zero_min"] = below_min ? json(*below_min) : json();
  pooled["bins"] = json::array();
  for (const auto& [us, n] : bins) pooled["bins"].push_back({us, n});
  return pooled;
}

std::optional<double> xrun_events(const json& run) {
  if (const auto e = number_at(run, {"xrun_cycles", "events"})) return e;
  return number_at(run, {"xruns", "events_total"});
}

}  // namespace

const std::vector<RunMetric>& run_metrics() {
  static const std::vector<RunMetric> metrics = {
      {"xruns", "xrun events", "", true},
      {"xrun_rate", "xrun events per minute", "/min", true},
      {"xrun_count", "driver xruns (XRUN Count)", "", true},
      {"delay_max", "Delay Maximum", "us", true},
      {"cycle_max", "Cycle Maximum", "us", true},
      {"slack_min", "slack minimum", "us", false},
      {"slack_p1", "slack 1st percentile", "us", false},
      {"wakeup_p99", "interrupt -> jackd wake-up p99", "us", true},
      {"client_wakeup_p99", "client wake-up p99 (upstream done -> entry, all clients)", "us", true},
      {"baseline_p99", "cyclictest p99 beside the run", "us", true},
      {"glitches", "audible glitches", "", true},
      {"dsp_load", "Average DSP Load", "%", true},
  };
  return metrics;
}

const RunMetric* find_run_metric(const std::string& name) {
  for (const RunMetric& m : run_metrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::optional<double> run_metric(const json& run, const std::string& name) {
  if (!run.is_object()) return std::nullopt;
  if (name == "xruns") return xrun_events(run);
  if (name == "xrun_rate") {
    const auto e = xrun_events(run);
    const auto s = number_at(run, {"measurement", "seconds_ran"});
    if (!e || !s || *s <= 0) return std::nullopt;
    return *e * 60.0 / *s;
  }
  if (name == "xrun_count") return number_at(run, {"totals", "xrun_count"});
  if (name == "delay_max") return number_at(run, {"jack_test", "delay_max_us"});
  if (name == "cycle_max") return number_at(run, {"jack_test", "cycle_max_us"});
  if (name == "dsp_load") return number_at(run, {"totals", "avg_dsp_load_pct"});
  if (name == "glitches") {
    // A --source file the check could not work on has no glitch count (run.json: not_checked).
    const json* a = run.contains("audio") ? &run["audio"] : nullptr;
    if (a != nullptr && a->is_object() && a->contains("not_checked") &&
        !(*a)["not_checked"].is_null()) {
      return std::nullopt;
    }
    return number_at(run, {"audio", "glitches"});
  }
  if (name == "slack_min") {
    const json* h = hop(run, "slack");
    if (h == nullptr) return std::nullopt;
    if (h->value("below_zero", uint64_t{0}) > 0) return number_at(*h, {"below_zero_min"});
    return number_at(*h, {"summary_us", "min"});
  }
  if (name == "slack_p1") {
    const json* h = hop(run, "slack");
    return h == nullptr ? std::nullopt : hop_percentile(*h, 1.0);
  }
  if (name == "baseline_p99") {
    // Only an exact value: one beyond cyclictest's histogram is a bound, not a figure.
    if (!run.contains("baseline") || !run["baseline"].is_object()) return std::nullopt;
    const json& p = run["baseline"].value("p99", json());
    if (!p.is_object() || !p.value("exact", false)) return std::nullopt;
    return number_at(p, {"value_us"});
  }
  if (name == "wakeup_p99") {
    const json* h = hop(run, "jackd_wakeup");
    return h == nullptr ? std::nullopt : hop_percentile(*h, 99.0);
  }
  if (name == "client_wakeup_p99") {
    const std::optional<json> h = pooled_hops(run, "client_wakeup");
    return h ? hop_percentile(*h, 99.0) : std::nullopt;
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
  if (m->unit == "us") {
    if (unit == "ms") {
      scale = 1000;
    } else if (unit == "s") {
      scale = 1e6;
    } else if (!unit.empty() && unit != "us") {
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
  std::string out;
  for (const char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no other control characters than tab, newline and carriage return.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  return out;
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

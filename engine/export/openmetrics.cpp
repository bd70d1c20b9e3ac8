// SPDX-License-Identifier: GPL-2.0-or-later
// OpenMetrics text exposition of the latest run of each case, for Prometheus node-exporter's
// textfile collector (which reads the Prometheus text format: the OpenMetrics lines it does not
// know, "# UNIT" and "# EOF", are comments to it). Base units, as Prometheus names them:
// microseconds and milliseconds become seconds, percentages ratios (0..1), per minute per
// second. No timestamps (the textfile collector refuses them): the run's start is a gauge of
// its own. Non-realtime.
#include <fmt/format.h>
#include <time.h>

#include <cmath>
#include <map>

#include "engine/base/text.hpp"
#include "engine/export/exports.hpp"

namespace xrunlab {

namespace {

// The run's started_utc ("2026-12-06T13:57:38Z") as seconds since the epoch; nullopt when it
// is not in that form.
std::optional<double> epoch_seconds(const std::string& utc) {
  std::tm tm{};
  const char* end = ::strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<double>(::timegm(&tm));
}

// HELP's text: backslash and newline escaped (both formats), and no double quote (OpenMetrics
// escapes it, the Prometheus format does not, so neither reads the other's escape).
std::string help_text(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c == '"' ? '\'' : c;
    }
  }
  return out;
}

std::string labels_of(const ExportRun& e) {
  const RunResult& r = e.run;
  const std::string policy =
      !r.policy_spec.empty() ? r.policy_spec : (r.spec ? r.spec->policy : "");
  const std::pair<const char*, std::string> labels[] = {
      {"case", e.label},
      {"host", r.host ? r.host->hostname : ""},
      {"kernel", r.host ? r.host->kernel.release : ""},
      {"policy", policy},
      {"period", r.frames > 0 ? std::to_string(r.frames) : ""},
      {"clients", r.clients > 0 ? std::to_string(r.clients) : ""},
      {"backend", r.backend.name}};
  std::string s;
  for (const auto& [name, value] : labels) {
    s += fmt::format("{}{}=\"{}\"", s.empty() ? "" : ",", name, openmetrics_escaped(value));
  }
  return "{" + s + "}";
}

std::string number(double v) {
  return fmt::format("{:.12g}", v);
}

struct Family {
  std::string name, help, unit;
  std::vector<std::string> samples;  // "{labels} value"
};

std::string family_text(const Family& f) {
  if (f.samples.empty()) return "";
  std::string out = fmt::format("# TYPE {} gauge\n", f.name);
  if (!f.unit.empty()) out += fmt::format("# UNIT {} {}\n", f.name, f.unit);
  out += fmt::format("# HELP {} {}\n", f.name, help_text(f.help));
  for (const std::string& s : f.samples) out += f.name + s + "\n";
  return out;
}

}  // namespace

OpenMetricsName openmetrics_name(const RunMetric& m) {
  std::string base = m.name;
  for (const char* suffix : {"_us", "_ms", "_pct"}) {
    if (ends_with(base, suffix)) base.resize(base.size() - std::string(suffix).size());
  }
  OpenMetricsName n;
  if (m.unit == "us" || m.unit == "ms") {
    n.unit = "seconds";
    n.scale = m.unit == "us" ? 1e-6 : 1e-3;
    n.name = "xrunlab_" + base + "_seconds";
  } else if (m.unit == "%") {
    n.unit = "ratio";
    n.scale = 0.01;
    n.name = "xrunlab_" + base + "_ratio";
  } else if (m.unit == "/min") {
    n.scale = 1.0 / 60.0;
    n.name = "xrunlab_" + base + "_per_second";
  } else {
    n.name = "xrunlab_" + base;
  }
  return n;
}

std::string openmetrics_escaped(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string openmetrics_text(const std::vector<ExportRun>& runs) {
  // The latest run of each case (by started_utc; the runs' order breaks ties).
  std::vector<std::string> order;
  std::map<std::string, const ExportRun*> latest;
  for (const ExportRun& e : runs) {
    auto it = latest.find(e.label);
    if (it == latest.end()) {
      order.push_back(e.label);
      latest[e.label] = &e;
    } else if (e.run.started_utc >= it->second->run.started_utc) {
      it->second = &e;
    }
  }
  Family started{"xrunlab_run_start_timestamp_seconds",
                 "When the case's latest run started (seconds since the epoch)",
                 "seconds",
                 {}};
  Family completed{"xrunlab_run_completed",
                   "1 when the case's latest run measured its whole window, 0 when it did not "
                   "(interrupted, failed, killed): its figures are of a cut window",
                   "",
                   {}};
  std::vector<Family> figures;
  for (const RunMetric& m : run_metrics()) {
    const OpenMetricsName n = openmetrics_name(m);
    figures.push_back({n.name,
                       m.label + (m.unit.empty() ? ""
                                                 : " (xrunlab's figure " + m.name + ", " + m.unit +
                                                       ", here in base units)"),
                       n.unit,
                       {}});
  }
  for (const std::string& label : order) {
    const ExportRun& e = *latest[label];
    const std::string labels = labels_of(e);
    if (const auto t = epoch_seconds(e.run.started_utc)) {
      started.samples.push_back(labels + " " + number(*t));
    }
    completed.samples.push_back(labels + (e.run.status == RunStatus::kCompleted ? " 1" : " 0"));
    const auto& metrics = run_metrics();
    for (size_t i = 0; i < metrics.size(); ++i) {
      const std::optional<double> v = run_metric(e.run, metrics[i].name);
      if (!v || !std::isfinite(*v)) continue;  // absent, never 0
      figures[i].samples.push_back(labels + " " + number(*v * openmetrics_name(metrics[i]).scale));
    }
  }
  std::string out = family_text(started) + family_text(completed);
  for (const Family& f : figures) out += family_text(f);
  return out + "# EOF\n";
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// --lava: a run's or a campaign's figures as LAVA test cases (lava.hpp). Non-realtime.
#include "engine/report/lava.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "engine/base/errors.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

namespace {

bool lava_char(char ch, bool unit) {
  const bool alnum =
      (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
  return alnum || ch == '-' || ch == '_' || ch == '.' || (unit && ch == '/');
}

std::string sanitised(std::string_view text, bool unit) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) out += lava_char(ch, unit) ? ch : '_';
  return out.empty() ? std::string("_") : out;
}

}  // namespace

const std::vector<std::string>& lava_figures() {
  static const std::vector<std::string> figures = {"xrun_count", "delay_max", "cycle_max",
                                                   "xruns",      "slack_p1",  "wakeup_p99"};
  return figures;
}

std::string lava_name(std::string_view text) {
  return sanitised(text, false);
}

std::string lava_units(const std::string& metric) {
  const RunMetric* m = find_run_metric(metric);
  if (m == nullptr || m->unit.empty()) return "count";
  if (m->unit == "%") return "percent";
  return sanitised(m->unit, true);
}

std::string lava_measurement(double v) {
  std::string s = fmt::format("{:.6f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::vector<LavaCase> lava_cases(
    const std::string& label, bool completed, std::optional<size_t> runs,
    const std::function<std::optional<double>(const std::string&)>& figure,
    const std::vector<Threshold>& thresholds) {
  std::vector<LavaCase> out;
  const std::string prefix = lava_name(label) + "-";
  if (runs) {
    out.push_back(
        {prefix + "runs", *runs > 0 ? "pass" : "fail", static_cast<double>(*runs), "runs"});
  } else {
    out.push_back({prefix + "run", completed ? "pass" : "fail", std::nullopt, ""});
  }
  std::vector<std::string> names = lava_figures();
  for (const Threshold& t : thresholds) {
    if (std::find(names.begin(), names.end(), t.metric) == names.end()) names.push_back(t.metric);
  }
  for (const std::string& name : names) {
    std::optional<double> v = figure(name);
    if (v && !std::isfinite(*v)) v.reset();
    bool checked = false, crossed = false;
    for (const Threshold& t : thresholds) {
      if (t.metric != name) continue;
      checked = true;
      crossed = crossed || check_threshold(t, v).crossed;
    }
    LavaCase c{prefix + lava_name(name), "pass", v, v ? lava_units(name) : ""};
    if (crossed) {
      c.result = "fail";
    } else if (!v && !checked) {
      c.result = "skip";
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> lava_test_case_argv(const LavaCase& c) {
  std::vector<std::string> argv = {"lava-test-case", c.name, "--result", c.result};
  if (c.measurement) {
    argv.insert(argv.end(),
                {"--measurement", lava_measurement(*c.measurement), "--units", c.units});
  }
  return argv;
}

std::string lava_line(const LavaCase& c) {
  std::string line;
  for (const std::string& w : lava_test_case_argv(c)) line += (line.empty() ? "" : " ") + w;
  return line;
}

int report_lava_cases(const std::vector<LavaCase>& cases) {
  const std::optional<std::string> helper = find_program("lava-test-case");
  std::fflush(stdout);
  int failed = 0;
  for (const LavaCase& c : cases) {
    if (!helper) {
      std::printf("%s\n", lava_line(c).c_str());
      continue;
    }
    SpawnSpec s;
    s.argv = lava_test_case_argv(c);
    s.argv[0] = *helper;
    std::string why;
    try {
      Child child = Child::spawn(s);
      if (!child.wait_for(std::chrono::seconds(30))) {
        child.stop(std::chrono::seconds(1));
        why = "did not finish within 30 s";
      } else if (child.wait_status().value_or(1) != 0) {
        why = child.describe_exit();
      }
    } catch (const Error& e) {
      why = e.what();
    }
    if (!why.empty()) {
      ++failed;
      std::fprintf(stderr, "xrunlab: warning: --lava: %s %s: %s\n", helper->c_str(), c.name.c_str(),
                   why.c_str());
    }
  }
  std::fflush(stdout);
  return failed;
}

}  // namespace xrunlab

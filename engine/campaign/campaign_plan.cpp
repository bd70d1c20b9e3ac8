// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/campaign_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "engine/base/errors.hpp"
#include "engine/run/run_options.hpp"

namespace xrunlab {

namespace {

// `xrunlab run` arguments for one option as the file gives it.
void add_args(const std::string& key, const std::vector<std::string>& values,
              std::vector<std::string>& args) {
  if (key == "audio-check") {
    if (values.front() == "false") args.emplace_back("--no-audio-check");
    return;
  }
  if (key == "plots") {
    if (values.front() == "false") args.emplace_back("--no-plots");
    return;
  }
  if (key == "explain") {  // true: --explain (5 worst cycles); N: --explain=N; false: off
    if (values.front() == "true") args.emplace_back("--explain");
    if (values.front() != "true" && values.front() != "false") {
      args.push_back("--explain=" + values.front());
    }
    return;
  }
  if (key == "record" || key == "dma-latency" || key == "trace-on-xrun" || key == "full-log" ||
      key == "ping") {
    if (values.front() == "true") args.emplace_back("--" + key);
    return;
  }
  for (const std::string& v : values) {
    if (key == "load" && v == "none") continue;  // an axis value: this case has no load
    args.push_back("--" + key);
    args.push_back(v);
  }
}

std::string slug(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// A value of the file refused by `run`'s parser: the file's line and the value named.
template <typename F>
void checked(const std::string& path, int line, const std::string& what, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    throw Error(ExitCode::kUsage, fmt::format("{}:{}: {}: {}", path, line, what, e.what()));
  }
}

}  // namespace

std::vector<int> blocked_order(int n, int rounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> out;
  for (int r = 0; r < rounds; ++r) {
    std::vector<int> p(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i;
    for (int i = n - 1; i > 0; --i) {
      const auto j = static_cast<int>(rng() % static_cast<uint64_t>(i + 1));
      std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(j)]);
    }
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

CampaignPlan plan_campaign(const CampaignSpec& spec, uint64_t seed,
                           const std::optional<std::string>& order, const RunArgsCheck& check) {
  CampaignPlan plan;
  plan.name = spec.name;
  plan.repetitions = spec.repetitions;
  plan.order = order.value_or(spec.order);
  if (plan.order != "shuffled" && plan.order != "sequential") {
    throw Error(ExitCode::kUsage,
                "--order '" + plan.order + "': expected \"shuffled\" or \"sequential\"");
  }
  plan.seed = spec.seed.value_or(seed);
  plan.warmup_s = spec.warmup_s;
  plan.sections = spec.sections;
  plan.duration_s = RunOptions{}.duration_s;

  std::vector<std::string> fixed;
  for (const CampaignOption& o : spec.fixed) {
    std::vector<std::string> one;
    add_args(o.key, o.values, one);
    checked(spec.path, o.line, "[run] " + o.key, [&] { check(one); });
    fixed.insert(fixed.end(), one.begin(), one.end());
    if (o.key == "duration") plan.duration_s = std::stod(o.values.front());
  }
  checked(spec.path, 1, "[run]", [&] { check(fixed); });
  // Each axis value on its own, with the fixed options: an error names its line and value.
  for (const CampaignAxis& a : spec.axes) {
    for (const std::string& v : a.values) {
      std::vector<std::string> args = fixed;
      add_args(a.key, {v}, args);
      checked(spec.path, a.line, fmt::format("[axes] {} '{}'", a.key, v), [&] { check(args); });
    }
  }

  // The product, the last axis fastest.
  size_t total = 1;
  for (const CampaignAxis& a : spec.axes) total *= a.values.size();
  if (total > 1000) {
    throw Error(ExitCode::kUsage,
                fmt::format("{}: the axes make {} cases; at most 1000", spec.path, total));
  }
  for (size_t c = 0; c < total; ++c) {
    CampaignCase k;
    k.index = static_cast<int>(c) + 1;
    k.run_args = fixed;
    size_t rest = c;
    std::vector<std::pair<std::string, std::string>> picked(spec.axes.size());
    for (size_t i = spec.axes.size(); i-- > 0;) {
      const CampaignAxis& a = spec.axes[i];
      picked[i] = {a.key, a.values[rest % a.values.size()]};
      rest /= a.values.size();
    }
    std::vector<std::string> names;
    for (const auto& [key, value] : picked) {
      add_args(key, {value}, k.run_args);
      names.push_back(value);
    }
    k.axes = picked;
    k.name = names.empty() ? std::string("default") : fmt::format("{}", fmt::join(names, ", "));
    const std::string s =
        slug(names.empty() ? std::string("default") : fmt::format("{}", fmt::join(names, "-")));
    k.label = fmt::format("{:02d}-{}", k.index, s.empty() ? std::string("case") : s);
    checked(spec.path, 1, "case " + k.name, [&] { check(k.run_args); });
    plan.cases.push_back(std::move(k));
  }
  // [[cases]]: [run]'s options with the case's replacing those of the same key, after the
  // product; its options stand where the axes' values do (sections read them there).
  for (const CampaignExtraCase& x : spec.extra_cases) {
    if (plan.cases.size() >= 1000) {
      throw Error(ExitCode::kUsage,
                  fmt::format("{}: the axes and [[cases]] make over 1000 cases", spec.path));
    }
    CampaignCase k;
    k.index = static_cast<int>(plan.cases.size()) + 1;
    std::vector<std::string> names;
    for (const CampaignOption& o : spec.fixed) {
      const bool replaced = std::any_of(x.options.begin(), x.options.end(),
                                        [&](const CampaignOption& c) { return c.key == o.key; });
      if (!replaced) add_args(o.key, o.values, k.run_args);
    }
    for (const CampaignOption& o : x.options) {
      add_args(o.key, o.values, k.run_args);
      const std::string value = fmt::format("{}", fmt::join(o.values, "+"));
      k.axes.emplace_back(o.key, value);
      names.push_back(o.key + " " + value);
    }
    k.name = x.name.empty() ? fmt::format("{}", fmt::join(names, ", ")) : x.name;
    const std::string s = slug(k.name);
    k.label = fmt::format("{:02d}-{}", k.index, s.empty() ? std::string("case") : s);
    checked(spec.path, x.line, "[[cases]] " + k.name, [&] { check(k.run_args); });
    plan.cases.push_back(std::move(k));
  }

  const int n = static_cast<int>(plan.cases.size());
  int index = 0;
  if (plan.warmup_s > 0) {
    plan.runs.push_back({++index, 1, 0, true});
    const std::vector<std::string>& first = plan.cases.front().run_args;
    for (size_t i = 0; i < first.size(); ++i) {
      if (first[i] == "--duration" && i + 1 < first.size()) {
        ++i;  // its own duration instead
        continue;
      }
      plan.warmup_args.push_back(first[i]);
    }
    plan.warmup_args.emplace_back("--duration");
    plan.warmup_args.push_back(fmt::format("{}", plan.warmup_s));
  }
  if (plan.order == "sequential") {
    for (int c = 0; c < n; ++c) {
      for (int r = 1; r <= plan.repetitions; ++r) plan.runs.push_back({++index, c + 1, r, false});
    }
  } else {
    const std::vector<int> order_of = blocked_order(n, plan.repetitions, plan.seed);
    std::vector<int> reps(static_cast<size_t>(n), 0);
    for (const int c : order_of) {
      plan.runs.push_back({++index, c + 1, ++reps[static_cast<size_t>(c)], false});
    }
  }
  return plan;
}

CampaignPlan plan_single_case(const std::string& name, const std::vector<std::string>& run_args,
                              int repetitions, const RunArgsCheck& check) {
  check(run_args);
  CampaignPlan plan;
  plan.name = name;
  plan.repetitions = repetitions;
  plan.order = "sequential";
  plan.duration_s = RunOptions{}.duration_s;
  for (size_t i = 0; i + 1 < run_args.size(); ++i) {
    if (run_args[i] == "--duration") plan.duration_s = std::stod(run_args[i + 1]);
  }
  CampaignCase k;
  k.index = 1;
  k.name = name;
  const std::string s = slug(name);
  k.label = s.empty() ? std::string("run") : s;
  k.run_args = run_args;
  plan.cases.push_back(std::move(k));
  for (int r = 1; r <= repetitions; ++r) plan.runs.push_back({r, 1, r, false});
  return plan;
}

nlohmann::json plan_json(const CampaignPlan& plan) {
  nlohmann::json cases = nlohmann::json::array();
  for (const CampaignCase& c : plan.cases) {
    nlohmann::json axes = nlohmann::json::object();
    for (const auto& [k, v] : c.axes) axes[k] = v;
    cases.push_back({{"index", c.index},
                     {"name", c.name},
                     {"label", c.label},
                     {"axes", axes},
                     {"run_args", c.run_args}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const PlannedRun& r : plan.runs) {
    runs.push_back(
        {{"index", r.index}, {"case", r.case_index}, {"rep", r.rep}, {"warmup", r.warmup}});
  }
  return {{"name", plan.name},
          {"repetitions", plan.repetitions},
          {"order", plan.order},
          {"seed", plan.seed},
          {"warmup_s", plan.warmup_s},
          {"duration_s", plan.duration_s},
          {"warmup_args", plan.warmup_args},
          {"cases", std::move(cases)},
          {"runs", std::move(runs)}};
}

double measured_seconds(const CampaignPlan& plan, const PlannedRun& run) {
  return run.warmup ? plan.warmup_s : plan.duration_s;
}

bool is_owned_run_option(const std::string& arg, const std::vector<std::string>& flags,
                         bool quiet) {
  for (const std::string& flag : flags) {
    if (arg == flag || arg.rfind(flag + "=", 0) == 0) return true;
  }
  return quiet && (arg == "-q" || arg == "--quiet");
}

}  // namespace xrunlab

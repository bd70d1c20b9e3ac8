// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/campaign_spec.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {

namespace {

// `xrunlab run`'s options a campaign file may set in [run] (without dashes). The campaign sets
// --label, --output and --quiet itself.
const std::set<std::string>& run_keys() {
  static const std::set<std::string> keys = {
      "clients",       "ports",          "period",        "rate",     "duration",      "dsp-load",
      "priority",      "policy",         "load",          "inject",   "inject-client", "jackd",
      "client-binary", "server-timeout", "backend",       "nperiods", "audio-check",   "record",
      "plots",         "baseline",       "record-format", "source",   "dma-latency",   "cpus",
      "load-cpus",     "explain",        "trace-on-xrun", "full-log", "plot-format",   "ping",
      "ping-rate",     "ping-drop-every"};
  return keys;
}

const std::set<std::string>& bool_keys() {
  static const std::set<std::string> keys = {"audio-check",   "record",   "plots", "dma-latency",
                                             "trace-on-xrun", "full-log", "ping"};
  return keys;
}

std::string dashed(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

int line_of(const toml::node& n) {
  return static_cast<int>(n.source().begin.line);
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(int line, const std::string& key, const std::string& why) const {
    throw Error(ExitCode::kUsage, fmt::format("{}:{}: {}: {}", path_, line, key, why));
  }

  // A scalar as the text `xrunlab run` would take on its command line.
  std::string scalar_text(const toml::node& n, const std::string& key) const {
    if (const auto* s = n.as_string()) return s->get();
    if (const auto* i = n.as_integer()) return std::to_string(i->get());
    if (const auto* f = n.as_floating_point()) return fmt::format("{}", f->get());
    if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
    fail(line_of(n), key, "expected a string, a number or true/false");
  }

  // An option of [run] or [[cases]]: `flag` (dashed) checked against what a campaign may set.
  CampaignOption run_option(const std::string& flag, const toml::node& n,
                            const std::string& where) const {
    const int line = line_of(n);
    if (flag == "label" || flag == "output" || flag == "quiet") {
      fail(line, where, "the campaign sets it (each case's label, the campaign folder)");
    }
    if (run_keys().count(flag) == 0) {
      fail(line, where, "not an option of `xrunlab run` a campaign can set");
    }
    if (bool_keys().count(flag) != 0 && n.as_boolean() == nullptr) {
      fail(line, where, "expected true or false");
    }
    std::vector<std::string> vals = values(n, where);
    if (vals.size() > 1 && flag != "load") {
      fail(line, where, "one value (only load may be a list: several loads at once)");
    }
    return {flag, std::move(vals), line};
  }

  // A [[cases]] table: an optional name and run options, duration excepted.
  CampaignExtraCase extra_case(const toml::table& t) const {
    CampaignExtraCase c;
    c.line = static_cast<int>(t.source().begin.line);
    for (const auto& [k, n] : t) {
      const std::string raw(k.str());
      const std::string where = "[[cases]] " + raw;
      if (raw == "name") {
        const auto* s = n.as_string();
        if (s == nullptr || s->get().empty())
          fail(line_of(n), where, "expected a non-empty string");
        c.name = s->get();
        continue;
      }
      const std::string flag = dashed(raw);
      if (flag == "duration") {
        fail(line_of(n), where, "every run of a campaign is as long: give duration in [run]");
      }
      c.options.push_back(run_option(flag, n, where));
    }
    if (c.options.empty()) fail(c.line, "[[cases]]", "a case needs at least one run option");
    std::stable_sort(c.options.begin(), c.options.end(),
                     [](const auto& a, const auto& b) { return a.line < b.line; });
    return c;
  }

  std::vector<std::string> values(const toml::node& n, const std::string& key) const {
    std::vector<std::string> out;
    if (const auto* a = n.as_array()) {
      for (const toml::node& e : *a) out.push_back(scalar_text(e, key));
      if (out.empty()) fail(line_of(n), key, "an empty list");
      return out;
    }
    out.push_back(scalar_text(n, key));
    return out;
  }

 private:
  std::string path_;
};

}  // namespace

const std::vector<std::string>& campaign_axis_keys() {
  static const std::vector<std::string> keys = {"policy",  "load",     "backend", "period",
                                                "clients", "dsp-load", "ports",   "nperiods"};
  return keys;
}

const std::vector<std::string>& campaign_section_names() {
  static const std::vector<std::string> names = {"maxima-spread", "preempt-2004", "periodic-2001"};
  return names;
}

CampaignSpec parse_campaign(const std::string& text, const std::string& path) {
  const Reader r(path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw Error(ExitCode::kUsage, fmt::format("{}:{}: not valid TOML: {}", path,
                                              e.source().begin.line, e.description()));
  }
  CampaignSpec spec;
  spec.path = path;
  spec.text = text;
  for (const auto& [k, node] : root) {
    const std::string key(k.str());
    const int line = line_of(node);
    if (key == "name") {
      const auto* s = node.as_string();
      if (s == nullptr || s->get().empty()) r.fail(line, key, "expected a non-empty string");
      const std::string& name = s->get();
      const bool safe = std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
      });
      if (!safe || name.front() == '.') {
        r.fail(line, key,
               "'" + name + "': use letters, digits, '-', '_' and '.' (it names a folder)");
      }
      spec.name = name;
    } else if (key == "repetitions") {
      const auto* i = node.as_integer();
      if (i == nullptr || i->get() < 1 || i->get() > 1000) {
        r.fail(line, key, "expected a whole number from 1 to 1000");
      }
      spec.repetitions = static_cast<int>(i->get());
    } else if (key == "order") {
      const auto* s = node.as_string();
      if (s == nullptr || (s->get() != "shuffled" && s->get() != "sequential")) {
        r.fail(line, key, "expected \"shuffled\" or \"sequential\"");
      }
      spec.order = s->get();
    } else if (key == "seed") {
      const auto* i = node.as_integer();
      if (i == nullptr || i->get() < 0) r.fail(line, key, "expected a whole number >= 0");
      spec.seed = static_cast<uint64_t>(i->get());
    } else if (key == "warmup_s" || key == "warmup-s") {
      const auto* i = node.as_integer();
      const auto* f = node.as_floating_point();
      const double v = i != nullptr ? static_cast<double>(i->get()) : f != nullptr ? f->get() : -1;
      if (!(v >= 0 && v <= 3600)) r.fail(line, key, "expected seconds from 0 to 3600");  // NaN
      spec.warmup_s = v;
    } else if (key == "sections") {
      const auto* a = node.as_array();
      if (a == nullptr) r.fail(line, key, "expected a list of report sections");
      for (const auto& e : *a) {
        const auto* v = e.as_string();
        const auto& known = campaign_section_names();
        if (v == nullptr || std::find(known.begin(), known.end(), v->get()) == known.end()) {
          r.fail(line, key,
                 fmt::format("expected report sections from: {}", fmt::join(known, ", ")));
        }
        if (std::find(spec.sections.begin(), spec.sections.end(), v->get()) ==
            spec.sections.end()) {
          spec.sections.push_back(v->get());
        }
      }
    } else if (key == "run" || key == "axes") {
      const auto* table = node.as_table();
      if (table == nullptr) r.fail(line, key, "expected a table: [" + key + "]");
      for (const auto& [sk, sn] : *table) {
        const std::string raw(sk.str());
        const std::string flag = dashed(raw);
        const std::string where = "[" + key + "] " + raw;
        const int sline = line_of(sn);
        if (key == "run") {
          spec.fixed.push_back(r.run_option(flag, sn, where));
        } else {
          const auto& axes = campaign_axis_keys();
          if (std::find(axes.begin(), axes.end(), flag) == axes.end()) {
            r.fail(
                sline, where,
                fmt::format("not an axis a campaign can vary (axes: {})", fmt::join(axes, ", ")));
          }
          std::vector<std::string> vals = r.values(sn, where);
          std::set<std::string> seen;
          for (const std::string& v : vals) {
            if (!seen.insert(v).second) r.fail(sline, where, "'" + v + "' is listed twice");
          }
          spec.axes.push_back({flag, std::move(vals), sline});
        }
      }
    } else if (key == "cases") {
      const auto* a = node.as_array();
      if (a == nullptr) r.fail(line, key, "expected tables: [[cases]]");
      for (const toml::node& e : *a) {
        const auto* table = e.as_table();
        if (table == nullptr) r.fail(line_of(e), key, "expected tables: [[cases]]");
        spec.extra_cases.push_back(r.extra_case(*table));
      }
    } else {
      r.fail(line, key,
             "not a campaign key (name, repetitions, order, seed, warmup_s, sections, [run], "
             "[axes], [[cases]])");
    }
  }
  if (spec.name.empty()) r.fail(1, "name", "missing: every campaign needs a name (its folder)");
  for (const CampaignAxis& a : spec.axes) {
    for (const CampaignOption& f : spec.fixed) {
      if (f.key == a.key) {
        r.fail(a.line, "[axes] " + a.key,
               fmt::format("also fixed in [run] (line {}): give it in one place", f.line));
      }
    }
  }
  // toml++ keeps keys sorted; the file's order is what people read, so the axes and options
  // are put back in it (the product's order follows the axes).
  auto by_line = [](const auto& a, const auto& b) { return a.line < b.line; };
  std::stable_sort(spec.axes.begin(), spec.axes.end(), by_line);
  std::stable_sort(spec.fixed.begin(), spec.fixed.end(), by_line);
  return spec;
}

void adjust_campaign(CampaignSpec& spec, std::optional<double> scale,
                     std::optional<double> duration, std::optional<int> repetitions) {
  if (scale && !(*scale > 0 && *scale <= 100)) {
    throw Error(ExitCode::kUsage,
                fmt::format("--scale {}: must be above 0 and at most 100", *scale));
  }
  if (duration && !(*duration >= 1 && *duration <= 86400)) {
    throw Error(ExitCode::kUsage,
                fmt::format("--duration {}: must be 1..86400 seconds", *duration));
  }
  if (repetitions && (*repetitions < 1 || *repetitions > 1000)) {
    throw Error(ExitCode::kUsage, fmt::format("--repetitions {}: must be 1..1000", *repetitions));
  }
  if (repetitions) spec.repetitions = *repetitions;
  if (!scale && !duration) return;
  CampaignOption* d = nullptr;
  for (CampaignOption& o : spec.fixed) {
    if (o.key == "duration") d = &o;
  }
  double seconds = 300;  // `xrunlab run`'s default
  if (duration) {
    seconds = *duration;
  } else if (d != nullptr) {
    // The file's text, checked here only because --scale computes with it (`xrunlab run`
    // checks it otherwise): a whole string that is a finite number of seconds > 0.
    const std::string& v = d->values.front();
    char* end = nullptr;
    seconds = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(seconds) || seconds <= 0) {
      throw Error(ExitCode::kUsage,
                  fmt::format("{}:{}: [run] duration: '{}' is not a number of seconds above 0 "
                              "(--scale multiplies it)",
                              spec.path, d->line, v));
    }
  }
  if (scale) {
    seconds = std::max(1.0, seconds * *scale);
    const double warmup = spec.warmup_s > 0 ? std::max(1.0, spec.warmup_s * *scale) : 0;
    // The scaled values stay in the ranges the file's own are held to.
    if (seconds > 86400) {
      throw Error(ExitCode::kUsage,
                  fmt::format("--scale {} makes each run {} s long, beyond 86400 s: use a smaller "
                              "--scale or --duration",
                              *scale, seconds));
    }
    if (warmup > 3600) {
      throw Error(ExitCode::kUsage,
                  fmt::format("--scale {} makes {}'s warm-up {} s, beyond 3600 s (warmup_s): use "
                              "a smaller --scale",
                              *scale, spec.path, warmup));
    }
    spec.warmup_s = warmup;
  }
  const std::string text = fmt::format("{}", seconds);
  if (d != nullptr) {
    d->values = {text};
  } else {
    spec.fixed.push_back({"duration", {text}, 0});
  }
}

CampaignSpec load_campaign(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    const int err = errno;
    throw Error(ExitCode::kUsage, "cannot read the campaign file '" + path +
                                      "': " + errno_text(err) +
                                      " (give a campaign TOML file, or --preset NAME)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_campaign(text.str(), path);
}

}  // namespace xrunlab

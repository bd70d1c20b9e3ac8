// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/run_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "engine/base/file.hpp"
#include "engine/base/json_read.hpp"
#include "engine/base/text.hpp"
#include "engine/report/jack_test_labels.hpp"
#include "engine/report/json_members.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/report_text.hpp"
#include "engine/result/run_json.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

// Lower case, runs of spaces squeezed: "XRUN Count  " and "xrun count" compare equal.
std::string canonical_label(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// What import accepts for a field (see import_jack_test in the header): jack_test's unit
// after the value, the largest plausible value, whole numbers only, and what the value is
// (for messages).
struct ImportRule {
  std::string_view unit;  // "" when jack_test printed none
  double min, max;
  const char* max_words;  // why max ("one hour"), "" when the number says it
  bool whole;
  const char* noun;  // "a time", "a count"
};

const ImportRule& import_rule(FieldKind kind) {
  static const ImportRule kSeconds{"", 0, 31536000, "one year", false, "a duration"};
  static const ImportRule kSetting{"", 0, 1e6, "", true, "a setting"};
  static const ImportRule kCount{"", 0, 1e9, "", true, "a count"};
  static const ImportRule kUsecs{"usecs", 0, 3.6e9, "one hour", false, "a time"};
  static const ImportRule kPercent{"%", 0, 100, "", false, "a load"};
  static const ImportRule kPerSecond{"/sec", 0, 1e9, "", false, "a rate"};
  static const ImportRule kPerHour{"/hour", 0, 1e8, "", false, "a rate"};
  switch (kind) {
    case FieldKind::kSeconds:
      return kSeconds;
    case FieldKind::kSetting:
      return kSetting;
    case FieldKind::kCount:
      return kCount;
    case FieldKind::kUsecs:
      return kUsecs;
    case FieldKind::kPercent:
      return kPercent;
    case FieldKind::kPerSecond:
      return kPerSecond;
    case FieldKind::kPerHour:
      return kPerHour;
  }
  return kCount;
}

const ImportRule& runs_rule() {
  static const ImportRule rule{"", 1, 1e6, "", true, "a number of runs"};
  return rule;
}

// A plain decimal number, the whole of `s`: sign, digits, one '.', an exponent. Not "inf",
// "nan", hex or ">=N" (what strtod alone would take or half-take).
std::optional<double> plain_number(std::string_view s) {
  size_t i = 0, digits = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t exponent = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == exponent) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return std::strtod(std::string(s).c_str(), nullptr);  // +-inf when too large: over the bound
}

bool is_unit(std::string_view s) {
  for (std::string_view u : {"usecs", "usec", "us", "msecs", "msec", "ms", "secs", "sec", "s", "%",
                             "/sec", "/s", "/hour", "/h"}) {
    if (s == u) return true;
  }
  return false;
}

// One column of a field's text: its value (nullopt for "n/a" or "-") and the text it came from.
struct Column {
  std::optional<double> value;
  std::string token;
};

// The columns of a field's text ("12    30     7", "(    0)(    1)", "150   usecs", "n/a"), each
// checked against the rule; nullopt with *problem (what follows "FIELD" in the message) when
// the text is not what jack_test printed for this field.
std::optional<std::vector<Column>> columns_of(std::string_view text, const ImportRule& rule,
                                              std::string* problem) {
  text = trim(text);
  if (text.empty()) {
    *problem = "has no value";
    return std::nullopt;
  }
  const std::string quoted = "is \"" + std::string(text) + "\"";
  std::vector<Column> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t') {
      ++i;
      continue;
    }
    std::string_view token;
    bool in_parens = false;
    if (text[i] == '(') {
      const size_t close = text.find(')', i);
      if (close == std::string_view::npos) {
        *problem = quoted + ", not a number";
        return std::nullopt;
      }
      token = trim(text.substr(i + 1, close - i - 1));
      in_parens = true;
      i = close + 1;
    } else {
      const size_t start = i;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '(') ++i;
      token = text.substr(start, i - start);
    }
    if (!in_parens && !out.empty() && !rule.unit.empty() && token == rule.unit) continue;
    if (token == "n/a" || token == "-") {
      out.push_back(Column{std::nullopt, std::string(token)});
      continue;
    }
    std::string_view number = token;
    if (!in_parens && !rule.unit.empty() && number.size() > rule.unit.size() &&
        ends_with(number, rule.unit)) {
      number.remove_suffix(rule.unit.size());  // "36.3%"
    }
    const std::optional<double> v = plain_number(number);
    if (!v) {
      if (is_unit(token) && !out.empty()) {
        *problem =
            quoted + (rule.unit.empty() ? ": jack_test gave it without a unit"
                                        : ": jack_test gave it in " + std::string(rule.unit));
      } else {
        *problem = quoted + ", not a number";
      }
      return std::nullopt;
    }
    const std::string shown =
        std::string(number) + (rule.unit.empty() ? "" : " ") + std::string(rule.unit);
    if (*v < rule.min) {
      *problem = rule.min == 0
                     ? fmt::format("is {}: {} cannot be negative", shown, rule.noun)
                     : fmt::format("is {}: {} is at least {}", shown, rule.noun, rule.min);
      return std::nullopt;
    }
    if (!(*v <= rule.max)) {
      *problem =
          fmt::format("is {}: more than {:.0f}{}{}{}, not plausible for {}", shown, rule.max,
                      rule.unit.empty() ? "" : " ", rule.unit,
                      *rule.max_words ? fmt::format(" ({})", rule.max_words) : "", rule.noun);
      return std::nullopt;
    }
    if (rule.whole && *v != std::floor(*v)) {
      *problem = fmt::format("is {}: {} is a whole number", shown, rule.noun);
      return std::nullopt;
    }
    out.push_back(Column{*v, std::string(token)});
  }
  if (out.empty()) {  // only a unit
    *problem = quoted + ", not a number";
    return std::nullopt;
  }
  return out;
}

std::string stem_of(std::string_view path) {
  std::string name = fs::path(std::string(path)).filename().string();
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

void set_why(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
}

// The top-level parts of run.json that a RunRecord needs (host and jack for the host name,
// kernel and backend; jack_test for the definitions); the rest (per-client and per-second
// arrays, the system samples: most of the file) is skipped (parse_json_members).
const std::vector<std::string_view>& record_parts() {
  static const std::vector<std::string_view> parts = {
      "schema_version", "spec",   "started_utc", "status", "scheduling", "settings",
      "measurement",    "totals", "loads",       "host",   "jack",       "jack_test"};
  return parts;
}

std::optional<double> number(const std::optional<int64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

}  // namespace

const char* definitions_meaning(std::string_view id) {
  if (id == "jack_test") {
    return "jack_test's summaries (2004-2005): JACK1's own messages, read by jack_test's awk "
           "scripts";
  }
  if (id == "callback-delay") {
    return "xrunlab before jack_test's definitions: Delay Maximum, Cycle Maximum and the Delay "
           "Counts are the clients' callback delays against the interrupt, NOT comparable with "
           "jack_test's";
  }
  if (id == "jack1-rules") {
    return "xrunlab with jack_test's definitions: JACK1's rules applied to jackd's wake-ups";
  }
  return nullptr;
}

const std::vector<RecordField>& record_fields() {
  namespace f = jack_test_field;
  static const std::vector<RecordField> fields = {
      {f::kSeconds, &RunRecord::seconds, FieldKind::kSeconds},
      {f::kClients, &RunRecord::clients, FieldKind::kSetting},
      {f::kPorts, &RunRecord::ports, FieldKind::kSetting},
      {f::kFrames, &RunRecord::frames, FieldKind::kSetting},
      {f::kTimeoutCount, &RunRecord::timeout_count, FieldKind::kCount},
      {f::kXrunCount, &RunRecord::xrun_count, FieldKind::kCount},
      {f::kDelayOverSpare, &RunRecord::delay_over_spare, FieldKind::kCount},
      {f::kDelayOver1000, &RunRecord::delay_over_1000, FieldKind::kCount},
      {f::kDelayMax, &RunRecord::delay_max_us, FieldKind::kUsecs},
      {f::kCycleMax, &RunRecord::cycle_max_us, FieldKind::kUsecs},
      {f::kDspLoad, &RunRecord::dsp_load_pct, FieldKind::kPercent},
      {f::kCpuSystem, &RunRecord::cpu_system_pct, FieldKind::kPercent},
      {f::kCpuUser, &RunRecord::cpu_user_pct, FieldKind::kPercent},
      {f::kCpuNice, &RunRecord::cpu_nice_pct, FieldKind::kPercent},
      {f::kCpuIowait, &RunRecord::cpu_iowait_pct, FieldKind::kPercent},
      {f::kCpuIrq, &RunRecord::cpu_irq_pct, FieldKind::kPercent},
      {f::kCpuSoftirq, &RunRecord::cpu_softirq_pct, FieldKind::kPercent},
      {f::kIntrRate, &RunRecord::intr_rate, FieldKind::kPerSecond},
      {f::kCtxtRate, &RunRecord::ctxt_rate, FieldKind::kPerSecond},
      {f::kDelayP99, &RunRecord::delay_p99_us, FieldKind::kUsecs},
      // Appended after the older fields, so that scripts reading CSV columns by position keep
      // working.
      {f::kXrunRate, &RunRecord::xrun_rate_per_hour, FieldKind::kPerHour},
      {f::kDelayOverSpareRate, &RunRecord::delay_over_spare_rate_per_hour, FieldKind::kPerHour},
      {f::kDelayOver1000Rate, &RunRecord::delay_over_1000_rate_per_hour, FieldKind::kPerHour},
  };
  return fields;
}

RunRecord record_of(const RunResult& r) {
  RunRecord rec;
  rec.definitions = r.jack_test.definitions.empty() ? "callback-delay" : r.jack_test.definitions;
  rec.label = r.spec ? r.spec->label : "";
  rec.started_utc = r.started_utc;
  rec.status = run_status_name(r.status);
  rec.policy = r.scheduling;
  if (r.host) {
    rec.host = r.host->hostname;
    rec.kernel = r.host->kernel.release;
  }
  rec.backend = r.backend.name;
  if (r.loads) {
    for (const LoadRecord& l : *r.loads) {
      if (l.spec.empty()) continue;
      if (!rec.loads.empty()) rec.loads += '+';
      rec.loads += l.spec;
    }
  }
  rec.seconds = r.seconds_ran;
  rec.clients = r.clients;
  rec.ports = r.ports;
  rec.frames = r.frames;
  rec.timeout_count = static_cast<double>(r.timeout_count);
  rec.xrun_count = static_cast<double>(r.xrun_count);
  rec.delay_over_spare = static_cast<double>(r.delay_over_spare);
  rec.delay_over_1000 = static_cast<double>(r.delay_over_1000);
  rec.delay_max_us = number(r.delay.max_us);
  rec.cycle_max_us = number(r.cycle.max_us);
  rec.dsp_load_pct = r.avg_dsp_load;
  rec.cpu_system_pct = r.avg_system;
  rec.cpu_user_pct = r.avg_user;
  rec.cpu_nice_pct = r.avg_nice;
  rec.cpu_iowait_pct = r.avg_iowait;
  rec.cpu_irq_pct = r.avg_irq;
  rec.cpu_softirq_pct = r.avg_softirq;
  rec.intr_rate = r.avg_intr;
  rec.ctxt_rate = r.avg_ctxt;
  if (r.delay.p99) rec.delay_p99_us = static_cast<double>(r.delay.p99->value_us);
  if (rec.definitions == "jack1-rules") {
    const JackTestFields& jt = r.jack_test;
    rec.delay_max_us = jt.delay_max_us;
    rec.cycle_max_us = jt.cycle_max_us;
    rec.delay_over_spare = static_cast<double>(jt.delay_over_spare);
    rec.delay_over_1000 = static_cast<double>(jt.delay_over_1000);
    if (jt.dsp_load_pct) rec.dsp_load_pct = jt.dsp_load_pct;
  }
  return rec;
}

std::optional<RunRecord> read_run_folder(const std::string& dir, std::string* why) {
  const std::string path = (fs::path(dir) / "run.json").string();
  const std::optional<std::string> text = read_file(path);
  if (!text) {
    set_why(why, path + ": cannot read");
    return std::nullopt;
  }
  std::string problem;
  const std::optional<nlohmann::json> j = parse_json_members(*text, record_parts(), &problem);
  if (!j) {
    set_why(why, path + ": " + problem);
    return std::nullopt;
  }
  if (!j->is_object() || !j->contains("totals") || !j->contains("spec")) {
    set_why(why, path + ": not an xrunlab run.json (no 'spec' or 'totals')");
    return std::nullopt;
  }
  const std::optional<RunResult> r = run_result_from_json(*j, &problem);
  if (!r) {
    set_why(why, path + ": " + problem);
    return std::nullopt;
  }
  RunRecord rec = record_of(*r);
  if (rec.label.empty()) {
    rec.label = fs::path(dir).lexically_normal().parent_path().filename().string();
  }
  rec.source = dir;
  return rec;
}

namespace {

// A campaign's folder (campaign.json beside runs/): its finished counted runs, as campaign.json
// records them (not the warm-up, not a run set aside as .incomplete-N or still to redo).
// nullopt when `dir` is not a campaign folder or its campaign.json cannot be read.
std::optional<std::vector<std::string>> campaign_run_folders(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "campaign.json", ec)) return std::nullopt;
  const std::optional<nlohmann::json> j = read_json_file((dir / "campaign.json").string());
  if (!j) return std::nullopt;
  std::vector<std::string> out;
  try {
    const JsonObject campaign(*j, "", "campaign.json");
    if (campaign.find("runs") == nullptr) return std::nullopt;
    campaign.each("runs", [&](const JsonObject& r) {
      bool warmup = false;
      std::string status, run_dir;
      r.get("warmup", warmup);
      r.get("status", status);
      r.get("run_dir", run_dir);
      if (warmup || status != "completed" || run_dir.empty()) return;
      if (fs::is_regular_file(dir / run_dir / "run.json", ec)) {
        out.push_back((dir / run_dir).lexically_normal().string());
      }
    });
  } catch (const JsonRefused&) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::vector<std::string> find_run_folders(const std::vector<std::string>& roots) {
  std::set<std::string> found;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(root) / "run.json", ec)) {
      found.insert(fs::path(root).lexically_normal().string());
      continue;
    }
    if (const auto runs = campaign_run_folders(root)) {
      found.insert(runs->begin(), runs->end());
      continue;
    }
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) continue;
    for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
      if (ec) break;
      if (!it->is_directory(ec)) continue;
      if (fs::is_regular_file(it->path() / "run.json", ec)) {
        found.insert(it->path().lexically_normal().string());
        it.disable_recursion_pending();
      } else if (const auto runs = campaign_run_folders(it->path())) {
        found.insert(runs->begin(), runs->end());
        it.disable_recursion_pending();
      }
    }
  }
  std::vector<std::string> out;
  for (std::string s : found) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<RunRecord> import_jack_test(std::string_view text, const std::string& source,
                                        std::string* why) {
  const std::vector<RecordField>& fields = record_fields();
  std::map<std::string, size_t> by_label;  // canonical label -> index in fields
  for (size_t i = 0; i < fields.size(); ++i) {
    by_label.emplace(canonical_label(fields[i].field.label), i);
  }
  const std::string runs_label = canonical_label(jack_test_field::kRuns.label);

  // One value of a field for one run, and the line it was read from.
  struct Cell {
    std::optional<double> value;
    size_t line = 0;
  };
  struct Section {
    std::string name;
    // Per field (index in fields): the values in file order (run i gets the i-th); a line of
    // several columns gives one value per column.
    std::vector<std::vector<Cell>> values;
    std::vector<Cell> runs;     // "Number of runs"
    size_t columns = 1;         // the most columns of one line (a multi-run block's run count)
    bool consolidated = false;  // started by a "CONSOLIDATED RESULTS" title
    size_t title_line = 0;      // that title's line
  };
  std::vector<Section> sections;
  std::map<std::string, size_t> index;
  auto section = [&](const std::string& name) -> Section& {
    const auto it = index.find(name);
    if (it != index.end()) return sections[it->second];
    index.emplace(name, sections.size());
    sections.push_back(
        Section{name, std::vector<std::vector<Cell>>(fields.size()), {}, 1, false, 0});
    return sections.back();
  };
  const std::string default_name = stem_of(source).empty() ? source : stem_of(source);
  std::string header = default_name;   // the section named by the last header
  std::string current = default_name;  // the section fields go to
  bool any_field = false;
  for (const SummaryLine& line : parse_summary_lines(text)) {
    const std::string& label = line.label;
    const std::string& value = line.value;
    if (label == "#" || label == "==>") {
      header = value.empty() ? default_name : label == "#" ? value : stem_of(value);
      // "==> dir/ <==" names no file: its stem is empty, and a record needs a label.
      if (header.empty()) header = default_name;
      current = header;
      continue;
    }
    if (label == "***") {  // a title: a consolidated block, or the end of one
      if (canonical_label(value) == "consolidated results") {
        current = header + " (consolidated)";
        Section& s = section(current);
        s.consolidated = true;
        if (s.title_line == 0) s.title_line = line.line;
      } else {
        current = header;
      }
      continue;
    }
    const std::string key = canonical_label(label);
    const auto it = by_label.find(key);
    if (key != runs_label && it == by_label.end()) continue;
    const ImportRule& rule = key == runs_label ? runs_rule() : import_rule(fields[it->second].kind);
    std::string problem;
    const std::optional<std::vector<Column>> columns = columns_of(line.text, rule, &problem);
    if (!columns) {
      set_why(why, fmt::format("{}:{}: \"{}\" {}", source, line.line, label, problem));
      return {};
    }
    Section& s = section(current);
    s.columns = std::max(s.columns, columns->size());
    std::vector<Cell>& cells = key == runs_label ? s.runs : s.values[it->second];
    for (const Column& c : *columns) cells.push_back(Cell{c.value, line.line});
    any_field = any_field || key != runs_label;
  }
  if (!any_field) {
    set_why(why, source + ": not a jack_test summary (no known field such as 'XRUN Count')");
    return {};
  }
  auto shown = [&](size_t f) { return std::string(fields[f].field.label); };
  std::vector<RunRecord> out;
  for (const Section& s : sections) {
    // n runs: the most values any field has; every field must have n, none, or (a setting of a
    // multi-run block, printed once for its columns) one.
    size_t n = 0, widest = 0;
    for (size_t f = 0; f < fields.size(); ++f) {
      if (s.values[f].size() > n) n = s.values[f].size(), widest = f;
    }
    if (n == 0) continue;
    const bool block_of_columns = n > 1 && s.columns == n;
    auto misaligned = [&](std::string_view label, const std::vector<Cell>& cells) {
      set_why(why, fmt::format("{}:{}: \"{}\" has {} value{} in \"{}\" but \"{}\" (line {}) has "
                               "{}: cannot tell which runs {} to; give each block its own "
                               "\"==> name <==\" header",
                               source, cells.front().line, label, cells.size(),
                               cells.size() == 1 ? "" : "s", s.name, shown(widest),
                               s.values[widest].front().line, n,
                               cells.size() == 1 ? "it belongs" : "they belong"));
    };
    std::vector<bool> once(fields.size(), false);  // a setting given once for all columns
    for (size_t f = 0; f < fields.size(); ++f) {
      const size_t k = s.values[f].size();
      if (k == 0 || k == n) continue;
      const FieldKind kind = fields[f].kind;
      if (k == 1 && block_of_columns &&
          (kind == FieldKind::kSeconds || kind == FieldKind::kSetting)) {
        once[f] = true;
        continue;
      }
      misaligned(shown(f), s.values[f]);
      return {};
    }
    // Consolidated: rates per hour (and means of maxima) over "Number of runs" runs.
    std::optional<size_t> rate, count;  // the first field of each kind with values
    for (size_t f = 0; f < fields.size(); ++f) {
      if (s.values[f].empty()) continue;
      if (fields[f].kind == FieldKind::kPerHour && !rate) rate = f;
      if (fields[f].kind == FieldKind::kCount && !count) count = f;
    }
    const bool consolidated = s.consolidated || rate;
    if (rate && count) {
      set_why(why, fmt::format("{}:{}: \"{}\" (a rate of a CONSOLIDATED RESULTS block) and \"{}\" "
                               "(a count, line {}) in one section \"{}\": give the consolidated "
                               "block its own header",
                               source, s.values[*rate].front().line, shown(*rate), shown(*count),
                               s.values[*count].front().line, s.name));
      return {};
    }
    if (consolidated && count) {
      set_why(why, fmt::format("{}:{}: \"{}\" in a CONSOLIDATED RESULTS block (line {}), which "
                               "gives rates per hour over its runs, not counts",
                               source, s.values[*count].front().line, shown(*count), s.title_line));
      return {};
    }
    const bool runs_known =
        !s.runs.empty() && std::all_of(s.runs.begin(), s.runs.end(),
                                       [](const Cell& c) { return c.value.has_value(); });
    if (consolidated && !runs_known) {
      set_why(why, fmt::format("{}:{}: the CONSOLIDATED RESULTS block \"{}\" has no \"{}\": its "
                               "rates and means cannot be told from one run's",
                               source, s.title_line ? s.title_line : s.values[widest].front().line,
                               s.name, jack_test_field::kRuns.label));
      return {};
    }
    // "Number of runs": one per run; or, for a block of n columns, once, saying n (the columns
    // are its runs, one each). Without it a block is one run (jack_test3 did not print it).
    std::vector<int> runs(n, 1);
    if (s.runs.size() == n) {
      for (size_t i = 0; i < n; ++i) {
        if (s.runs[i].value) runs[i] = static_cast<int>(*s.runs[i].value);
      }
    } else if (s.runs.size() == 1 && block_of_columns) {
      const Cell& c = s.runs.front();
      if (c.value && *c.value != static_cast<double>(n)) {
        set_why(why, fmt::format("{}:{}: \"{}\" is {} but the block has {} columns (\"{}\", "
                                 "line {}): cannot tell which runs they are",
                                 source, c.line, jack_test_field::kRuns.label, *c.value, n,
                                 shown(widest), s.values[widest].front().line));
        return {};
      }
    } else if (!s.runs.empty()) {
      misaligned(jack_test_field::kRuns.label, s.runs);
      return {};
    }
    // "name [definitions]": a SUMMARY of runs of several definitions (see the header).
    std::string name = s.name, definitions = "jack_test";
    if (const size_t open = name.rfind(" ["); open != std::string::npos && name.back() == ']') {
      const std::string id = name.substr(open + 2, name.size() - open - 3);
      if (definitions_meaning(id)) {
        definitions = id;
        name.resize(open);
        // "==> dir/ [jack1-rules] <==" names the definitions but no run: the source's name.
        if (name.empty()) name = stem_of(source).empty() ? source : stem_of(source);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      RunRecord r;
      r.label = name;
      r.source = source;
      r.imported = true;
      r.definitions = definitions;
      r.status = "imported";
      for (size_t f = 0; f < fields.size(); ++f) {
        if (once[f]) {
          r.*fields[f].member = s.values[f].front().value;
        } else if (i < s.values[f].size()) {
          r.*fields[f].member = s.values[f][i].value;
        }
      }
      r.runs = runs[i];
      if (consolidated) {
        r.maxima_are_means = true;
        if (r.seconds) *r.seconds *= r.runs;  // each run's length -> the runs' total
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

namespace {

// A record's members as its JSON names them, in the order to_json writes them: io(key, member).
// to_json and run_record_from_json both walk it.
template <typename IO, typename R>
void record_members(IO& io, R& r) {
  io("label", r.label);
  io("source", r.source);
  io("imported", r.imported);
  io("definitions", r.definitions);
  io("started_utc", r.started_utc);
  io("status", r.status);
  io("policy", r.policy);
  io("loads", r.loads);
  io("host", r.host);
  io("kernel", r.kernel);
  io("backend", r.backend);
  io(jack_test_field::kRuns.key, r.runs);
  io("maxima_are_means", r.maxima_are_means);
  for (const RecordField& f : record_fields()) io(f.field.key, r.*f.member);
}

struct RecordOut {
  nlohmann::json& j;
  template <typename T>
  void operator()(std::string_view key, const T& v) {
    j[std::string(key)] = v;
  }
  void operator()(std::string_view key, const std::optional<double>& v) {
    j[std::string(key)] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  }
};

struct RecordIn {
  const JsonObject& o;
  template <typename T>
  void operator()(std::string_view key, T& v) {
    o.get(key, v);
  }
};

}  // namespace

nlohmann::json to_json(const RunRecord& r) {
  nlohmann::json j = nlohmann::json::object();
  RecordOut out{j};
  record_members(out, r);
  return j;
}

std::optional<RunRecord> run_record_from_json(const nlohmann::json& j, std::string* why) {
  if (!j.is_object()) {
    set_why(why, "run record: not a JSON object");
    return std::nullopt;
  }
  RunRecord r;
  try {
    const JsonObject o(j, "");
    RecordIn in{o};
    record_members(in, r);
  } catch (const JsonRefused& e) {
    set_why(why, std::string("run record: ") + e.what());
    return std::nullopt;
  }
  if (r.label.empty()) {
    set_why(why, "run record: no 'label'");
    return std::nullopt;
  }
  if (r.runs < 1) {
    set_why(why,
            fmt::format("run record: '{}' is not a positive integer", jack_test_field::kRuns.key));
    return std::nullopt;
  }
  r.runs = std::min(r.runs, 1000000);
  if (r.definitions.empty()) r.definitions = r.imported ? "jack_test" : "callback-delay";
  return r;
}

nlohmann::json records_file_json(const std::vector<RunRecord>& records, const std::string& source) {
  nlohmann::json out = {{"xrunlab_records", kRecordsVersion},
                        {"source", source},
                        {"records", nlohmann::json::array()}};
  for (const RunRecord& r : records) out["records"].push_back(to_json(r));
  return out;
}

std::optional<std::vector<RunRecord>> records_from_file_json(const nlohmann::json& j,
                                                             std::string* why) {
  if (!j.is_object() || !j.contains("records") || !j["records"].is_array()) {
    set_why(why, "not an xrunlab records file (from xrunlab import)");
    return std::nullopt;
  }
  // Files of the first version may lack the version; it is 1 then.
  int64_t version = 1;
  try {
    JsonObject(j, "").get("xrunlab_records", version);
  } catch (const JsonRefused&) {
    version = 0;
  }
  if (version < 1) {
    set_why(why, "'xrunlab_records' is not a positive integer (the records file's version)");
    return std::nullopt;
  }
  if (version > kRecordsVersion) {
    set_why(why, fmt::format("records file version {} is newer than this xrunlab reads ({}): "
                             "update xrunlab or import the jack_test files again",
                             version, kRecordsVersion));
    return std::nullopt;
  }
  std::vector<RunRecord> out;
  for (const nlohmann::json& r : j["records"]) {
    std::optional<RunRecord> rec = run_record_from_json(r, why);
    if (!rec) return std::nullopt;
    out.push_back(std::move(*rec));
  }
  return out;
}

}  // namespace xrunlab

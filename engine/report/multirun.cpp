// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/multirun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "engine/report/jack_test_labels.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/report_text.hpp"
#include "engine/stats/describe.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {
namespace {

using Member = std::optional<double> RunRecord::*;

// How a value is printed in jack_test's block ("{:6d}", "({:5d})", "{:6d}   usecs", "{:8.1f} %",
// "{:8.1f} /sec") and how a label aggregates it.
// "{:8.1f} /hour" is how the consolidated block's rates are printed.
enum class Style { kInt, kParen, kUsecs, kPercent, kRate, kHour };
// kPerHour: events per hour over all the runs: the rates weighted by the runs' total time when
// every run with a rate has one, else their plain mean.
enum class Agg { kTotal, kWorst, kMean, kSame, kPerHour };

struct Metric {
  Member member;
  JackTestField field;  // its key (record_fields) and jack_test's line up to ':'
  Style style;
  Agg agg;
  const char* unit;  // for compare's last column
};

// jack_test 4.1's order (the consolidated block's rates after the counts they replace), then
// xrunlab's p99.
const std::vector<Metric>& metrics() {
  namespace f = jack_test_field;
  static const std::vector<Metric> m = {
      {&RunRecord::seconds, f::kSeconds, Style::kInt, Agg::kTotal, "s"},
      {&RunRecord::clients, f::kClients, Style::kInt, Agg::kSame, ""},
      {&RunRecord::ports, f::kPorts, Style::kInt, Agg::kSame, ""},
      {&RunRecord::frames, f::kFrames, Style::kInt, Agg::kSame, ""},
      {&RunRecord::timeout_count, f::kTimeoutCount, Style::kParen, Agg::kTotal, ""},
      {&RunRecord::xrun_count, f::kXrunCount, Style::kInt, Agg::kTotal, ""},
      {&RunRecord::delay_over_spare, f::kDelayOverSpare, Style::kInt, Agg::kTotal, ""},
      {&RunRecord::delay_over_1000, f::kDelayOver1000, Style::kInt, Agg::kTotal, ""},
      {&RunRecord::xrun_rate_per_hour, f::kXrunRate, Style::kHour, Agg::kPerHour, "/hour"},
      {&RunRecord::delay_over_spare_rate_per_hour, f::kDelayOverSpareRate, Style::kHour,
       Agg::kPerHour, "/hour"},
      {&RunRecord::delay_over_1000_rate_per_hour, f::kDelayOver1000Rate, Style::kHour,
       Agg::kPerHour, "/hour"},
      {&RunRecord::delay_max_us, f::kDelayMax, Style::kUsecs, Agg::kWorst, "usecs"},
      {&RunRecord::cycle_max_us, f::kCycleMax, Style::kUsecs, Agg::kWorst, "usecs"},
      {&RunRecord::dsp_load_pct, f::kDspLoad, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::cpu_system_pct, f::kCpuSystem, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::cpu_user_pct, f::kCpuUser, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::cpu_nice_pct, f::kCpuNice, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::cpu_iowait_pct, f::kCpuIowait, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::cpu_irq_pct, f::kCpuIrq, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::cpu_softirq_pct, f::kCpuSoftirq, Style::kPercent, Agg::kMean, "%"},
      {&RunRecord::intr_rate, f::kIntrRate, Style::kRate, Agg::kMean, "/sec"},
      {&RunRecord::ctxt_rate, f::kCtxtRate, Style::kRate, Agg::kMean, "/sec"},
      {&RunRecord::delay_p99_us, f::kDelayP99, Style::kUsecs, Agg::kWorst, "usecs"},
  };
  return m;
}

const Metric& metric(Member member) {
  for (const Metric& m : metrics()) {
    if (m.member == member) return m;
  }
  return metrics().front();  // not reached: every member is listed
}

// The SUMMARY's metric order (the 2005 file starts with Delay Maximum, then XRUN Count).
const std::vector<Member>& summary_order() {
  static const std::vector<Member> order = {&RunRecord::delay_max_us,
                                            &RunRecord::xrun_count,
                                            &RunRecord::cycle_max_us,
                                            &RunRecord::timeout_count,
                                            &RunRecord::delay_over_spare,
                                            &RunRecord::delay_over_1000,
                                            &RunRecord::xrun_rate_per_hour,
                                            &RunRecord::delay_over_spare_rate_per_hour,
                                            &RunRecord::delay_over_1000_rate_per_hour,
                                            &RunRecord::dsp_load_pct,
                                            &RunRecord::cpu_system_pct,
                                            &RunRecord::cpu_user_pct,
                                            &RunRecord::cpu_nice_pct,
                                            &RunRecord::cpu_iowait_pct,
                                            &RunRecord::cpu_irq_pct,
                                            &RunRecord::cpu_softirq_pct,
                                            &RunRecord::intr_rate,
                                            &RunRecord::ctxt_rate,
                                            &RunRecord::delay_p99_us};
  return order;
}

long long as_int(double v) {
  if (!std::isfinite(v)) return 0;
  return std::llround(std::clamp(v, -9e18, 9e18));
}

// The value as jack_test printed it after the ':'.
std::string jack_value(Style style, double v) {
  switch (style) {
    case Style::kInt:
      return fmt::format("{:6d}", as_int(v));
    case Style::kParen:
      return fmt::format("({:5d})", as_int(v));
    case Style::kUsecs:
      return fmt::format("{:6d}   usecs", as_int(v));
    case Style::kPercent:
      return fmt::format("{:8.1f} %", v);
    case Style::kRate:
      return fmt::format("{:8.1f} /sec", v);
    case Style::kHour:
      return fmt::format("{:8.1f} /hour", v);
  }
  return {};
}

// What `tr -s ' '` made of a jack_test line in the 2005 .SUMMARY, without the leading space.
std::string squeeze(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  return out;
}

// One .SUMMARY line: jack_test's line squeezed; a value that filled its whole width
// (":217192") still gets the one space the 2005 file shows (": 217192 usecs").
std::string summary_line(const Metric& m, double v) {
  std::string line = squeeze(std::string(m.field.leader) + jack_value(m.style, v));
  const size_t colon = line.find(':');
  if (colon + 1 < line.size() && line[colon + 1] != ' ' && line[colon + 1] != '(') {
    line.insert(colon + 1, " ");
  }
  return line + "\n";
}

// A plain cell: integers for counts and microseconds, one decimal for loads and rates.
std::string cell(Style style, double v) {
  if (style == Style::kPercent || style == Style::kRate || style == Style::kHour) {
    return fmt::format("{:.1f}", v);
  }
  return fmt::format("{}", as_int(v));
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string raw_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

struct Group {
  std::string name;   // value, or "value (imported)", and " [definitions]" when they differ
  std::string value;  // what the runs share: their label, host, kernel, backend or policy
  bool imported = false;
  bool maxima_are_means = false;  // jack_test's consolidated blocks: never grouped with maxima
  std::string definitions;        // one per group: figures of two definitions never aggregate
  std::vector<const RunRecord*> runs;
};

constexpr const char* kNotRecorded = "(not recorded)";

// What `by` groups the run by ("" when its record does not say).
std::string group_value(const RunRecord& r, GroupBy by) {
  switch (by) {
    case GroupBy::kLabelKernel:
      return r.label + " @ " + (r.kernel.empty() ? std::string(kNotRecorded) : r.kernel);
    case GroupBy::kHost:
      return r.host;
    case GroupBy::kKernel:
      return r.kernel;
    case GroupBy::kBackend:
      return r.backend;
    case GroupBy::kPolicy:
      return r.policy;
    case GroupBy::kRun:
    case GroupBy::kLabel:
      break;
  }
  return r.label;
}

// The definitions ids of the runs shown, in order of first appearance ("" shown as
// kNotRecorded). More than one: every group, column and row says which it has.
std::vector<std::string> definitions_of(const std::vector<RunRecord>& runs) {
  std::vector<std::string> ids;
  for (const RunRecord& r : runs) {
    const std::string id = r.definitions.empty() ? kNotRecorded : r.definitions;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

// " [jack_test]": the mark of a name when the runs shown have several definitions.
std::string definitions_mark(const RunRecord& r, bool mixed) {
  if (!mixed) return "";
  return " [" + (r.definitions.empty() ? std::string(kNotRecorded) : r.definitions) + "]";
}

// "definitions:" and one line per id, when the runs shown have more than one ("" otherwise):
// what each mark means. Each line starts with `indent`.
std::string definitions_legend(const std::vector<RunRecord>& runs, const std::string& indent) {
  const std::vector<std::string> ids = definitions_of(runs);
  if (ids.size() < 2) return "";
  std::string out = indent + "definitions (figures of different definitions are not comparable):\n";
  for (const std::string& id : ids) {
    const char* meaning = definitions_meaning(id);
    out += fmt::format("{}  [{}] {}\n", indent, one_line(id),
                       meaning              ? meaning
                       : id == kNotRecorded ? "the record does not say"
                                            : "not known to this xrunlab");
  }
  return out;
}

// The group's name: the value ("(not recorded)" when the record lacks it), "(imported)" for
// imports, "(consolidated)" for records whose maxima are means (unless the label says it
// already, as imported consolidated blocks do), and " [definitions]" when `mixed`.
std::string group_name(const RunRecord& r, GroupBy by, bool mixed) {
  const std::string value = group_value(r, by);
  std::string name = value.empty() ? kNotRecorded : value;
  if (r.maxima_are_means && name.find("(consolidated)") == std::string::npos) {
    name += " (consolidated)";
  }
  if (r.imported) name += " (imported)";
  return name + definitions_mark(r, mixed);
}

// {id: meaning} of the definitions of the runs shown (for the JSON outputs).
nlohmann::json definitions_json(const std::vector<RunRecord>& runs) {
  nlohmann::json j = nlohmann::json::object();
  for (const RunRecord& r : runs) {
    const char* meaning = definitions_meaning(r.definitions);
    j[r.definitions] = meaning ? nlohmann::json(meaning) : nlohmann::json(nullptr);
  }
  return j;
}

// Groups in order of first appearance; with kRun every run is a group of its own.
std::vector<Group> group_runs(const std::vector<RunRecord>& runs, GroupBy by) {
  const bool mixed = definitions_of(runs).size() > 1;
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (const RunRecord& r : runs) {
    const std::string name = group_name(r, by, mixed);
    auto it = by == GroupBy::kRun ? index.end() : index.find(name);
    if (it == index.end()) {
      it = index.emplace(name, groups.size()).first;
      groups.push_back(
          Group{name, group_value(r, by), r.imported, r.maxima_are_means, r.definitions, {}});
    }
    groups[it->second].runs.push_back(&r);
  }
  return groups;
}

// The marks of figures that are not what their row says. "(m)": a mean of the runs' maxima.
constexpr const char* kMeanMark = " (m)";
constexpr const char* kMeanLegend =
    "(m): the mean of the runs' maxima (jack_test's CONSOLIDATED RESULTS), not a maximum";

bool is_maximum(Member m) {
  return m == &RunRecord::delay_max_us || m == &RunRecord::cycle_max_us;
}

std::vector<double> values_of(const std::vector<const RunRecord*>& runs, Member m) {
  std::vector<double> out;
  for (const RunRecord* r : runs) {
    if (r->*m && std::isfinite(*(r->*m))) out.push_back(*(r->*m));
  }
  return out;
}

std::optional<double> mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

std::optional<double> max_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return *std::max_element(v.begin(), v.end());
}

std::optional<double> total_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return sum;
}

// A label's aggregate of one field: a number, nullopt (no run has it), or "mixed" (kSame fields
// whose runs disagree) signalled by *mixed.
std::optional<double> aggregate(const Group& g, const Metric& m, bool* mixed) {
  *mixed = false;
  const std::vector<double> v = values_of(g.runs, m.member);
  switch (m.agg) {
    case Agg::kTotal:
      return total_of(v);
    case Agg::kWorst:
      return max_of(v);
    case Agg::kMean:
      return mean_of(v);
    case Agg::kPerHour: {
      double events = 0, seconds = 0;
      for (const RunRecord* r : g.runs) {
        const std::optional<double>& rate = r->*m.member;
        if (!rate || !std::isfinite(*rate)) continue;
        if (!r->seconds || !(*r->seconds > 0)) return mean_of(v);
        events += *rate * *r->seconds;
        seconds += *r->seconds;
      }
      return seconds > 0 ? std::optional<double>(events / seconds) : std::nullopt;
    }
    case Agg::kSame:
      if (v.empty()) return std::nullopt;
      for (double x : v) {
        if (x != v.front()) {
          *mixed = true;
          return std::nullopt;
        }
      }
      return v.front();
  }
  return std::nullopt;
}

int jack_runs(const std::vector<const RunRecord*>& runs) {
  int n = 0;
  for (const RunRecord* r : runs) n += std::max(1, r->runs);
  return n;
}

bool has_averaged_block(const Group& g) {
  for (const RunRecord* r : g.runs) {
    if (r->runs > 1) return true;
  }
  return false;
}

// One compare column: its two header lines and one cell per metric ("-" when missing), plus
// the "Number of runs" row.
struct Column {
  std::string title, subtitle;
  bool imported = false;
  bool maxima_are_means = false;  // its Delay and Cycle Maximum are marked kMeanMark
  std::string definitions;
  int jack_runs = 1;
  std::vector<std::optional<double>> values;  // per metrics()
  std::vector<bool> mixed;                    // per metrics()
};

std::vector<Column> compare_columns(const std::vector<RunRecord>& runs, GroupBy by) {
  std::vector<Column> cols;
  const std::vector<Metric>& ms = metrics();
  if (by == GroupBy::kRun) {
    const bool mixed = definitions_of(runs).size() > 1;
    for (const RunRecord& r : runs) {
      Column c;
      c.title = one_line(group_name(r, GroupBy::kLabel, mixed));
      c.definitions = r.definitions;
      c.subtitle = r.imported ? std::string("imported") : one_line(r.started_utc);
      c.imported = r.imported;
      c.maxima_are_means = r.maxima_are_means;
      c.jack_runs = std::max(1, r.runs);
      for (const Metric& m : ms) {
        c.values.push_back(r.*m.member);
        c.mixed.push_back(false);
      }
      cols.push_back(std::move(c));
    }
    return cols;
  }
  for (const Group& g : group_runs(runs, by)) {
    Column c;
    c.title = one_line(g.name);
    c.subtitle = fmt::format("{} run{}", g.runs.size(), g.runs.size() == 1 ? "" : "s");
    c.imported = g.imported;
    c.maxima_are_means = g.maxima_are_means;
    c.definitions = g.definitions;
    c.jack_runs = jack_runs(g.runs);
    for (const Metric& m : ms) {
      bool mixed = false;
      c.values.push_back(aggregate(g, m, &mixed));
      c.mixed.push_back(mixed);
    }
    cols.push_back(std::move(c));
  }
  return cols;
}

std::string column_cell(const Column& c, size_t i) {
  if (c.mixed[i]) return "mixed";
  if (!c.values[i]) return "-";
  const Metric& m = metrics()[i];
  return cell(m.style, *c.values[i]) +
         (c.maxima_are_means && is_maximum(m.member) ? kMeanMark : "");
}

std::string optional_cell(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(spec, *v) : std::string("-");
}

}  // namespace

const char* group_by_name(GroupBy by) {
  switch (by) {
    case GroupBy::kRun:
      return "run";
    case GroupBy::kLabel:
      return "label";
    case GroupBy::kHost:
      return "host";
    case GroupBy::kKernel:
      return "kernel";
    case GroupBy::kBackend:
      return "backend";
    case GroupBy::kPolicy:
      return "policy";
    case GroupBy::kLabelKernel:
      return "label-kernel";
  }
  return "label";
}

std::optional<GroupBy> parse_group_by(std::string_view word) {
  for (GroupBy by : {GroupBy::kRun, GroupBy::kLabel, GroupBy::kHost, GroupBy::kKernel,
                     GroupBy::kBackend, GroupBy::kPolicy, GroupBy::kLabelKernel}) {
    if (word == group_by_name(by)) return by;
  }
  return std::nullopt;
}

std::string format_summary_file(const std::vector<RunRecord>& runs, GroupBy by) {
  const std::vector<Group> groups = group_runs(runs, by);
  std::string out;
  // A group has a line per run for every metric any of its runs has ("n/a" for the others),
  // so that run i of every metric is the same run when the file is imported again.
  for (Member member : summary_order()) {
    const Metric& m = metric(member);
    for (const Group& g : groups) {
      if (values_of(g.runs, member).empty()) continue;
      out += "# " + one_line(g.name) + "\n";
      for (const RunRecord* r : g.runs) {
        const std::optional<double>& v = r->*member;
        out += v && std::isfinite(*v) ? summary_line(m, *v) : squeeze(m.field.leader) + " n/a\n";
      }
    }
  }
  // "Number of runs" of the groups that have records standing for several runs (jack_test's
  // averaged and consolidated blocks), so that an import of this file keeps them.
  for (const Group& g : groups) {
    if (!has_averaged_block(g) && !g.maxima_are_means) continue;
    out += "# " + one_line(g.name) + "\n";
    for (const RunRecord* r : g.runs) {
      out += squeeze(std::string(jack_test_field::kRuns.leader) +
                     jack_value(Style::kParen, std::max(1, r->runs))) +
             "\n";
    }
  }

  // The compact table: one row per group. The XRUN rate column only when a consolidated block
  // (which has rates, not counts) is among the runs.
  bool any_rate = false;
  for (const RunRecord& r : runs) any_rate = any_rate || r.xrun_rate_per_hour.has_value();
  std::vector<std::vector<std::string>> rows;
  rows.push_back({group_by_name(by), "runs", "delay_max_mean", "delay_max_worst", "xruns_total",
                  "cycle_max_worst", "dsp_load_mean", "delay_p99_worst"});
  if (any_rate) rows.front().insert(rows.front().begin() + 5, "xruns_per_hour");
  std::vector<std::string> notes;
  bool any_mean = false;
  for (const Group& g : groups) {
    const std::vector<double> delay = values_of(g.runs, &RunRecord::delay_max_us);
    const std::vector<double> xruns = values_of(g.runs, &RunRecord::xrun_count);
    const std::vector<double> cycle = values_of(g.runs, &RunRecord::cycle_max_us);
    const std::vector<double> dsp = values_of(g.runs, &RunRecord::dsp_load_pct);
    const std::vector<double> p99 = values_of(g.runs, &RunRecord::delay_p99_us);
    const std::string mean_mark = g.maxima_are_means ? kMeanMark : "";
    any_mean = any_mean || (g.maxima_are_means && (!delay.empty() || !cycle.empty()));
    auto maximum = [&](const std::optional<double>& v, const char* spec) {
      return v ? fmt::format(fmt::runtime(spec), *v) + mean_mark : std::string("-");
    };
    std::string count = std::to_string(g.runs.size());
    if (g.maxima_are_means) {
      count += "*";
      notes.push_back(fmt::format(
          "  * {}: jack_test's CONSOLIDATED RESULTS; {} record{} stand{} for {} runs: events "
          "are rates per hour over them, maxima the mean of their maxima",
          one_line(g.name), g.runs.size(), g.runs.size() == 1 ? "" : "s",
          g.runs.size() == 1 ? "s" : "", jack_runs(g.runs)));
    } else if (has_averaged_block(g)) {
      count += "*";
      notes.push_back(
          fmt::format("  * {}: has jack_test averages (\"Number of runs\" > 1); {} record{} "
                      "stand{} for {} runs",
                      one_line(g.name), g.runs.size(), g.runs.size() == 1 ? "" : "s",
                      g.runs.size() == 1 ? "s" : "", jack_runs(g.runs)));
    }
    rows.push_back({one_line(g.name), count, maximum(mean_of(delay), "{:.1f}"),
                    maximum(max_of(delay), "{:.0f}"), optional_cell(total_of(xruns), "{:.0f}"),
                    maximum(max_of(cycle), "{:.0f}"), optional_cell(mean_of(dsp), "{:.1f}"),
                    optional_cell(max_of(p99), "{:.0f}")});
    if (any_rate) {
      bool unused = false;
      rows.back().insert(
          rows.back().begin() + 5,
          optional_cell(aggregate(g, metric(&RunRecord::xrun_rate_per_hour), &unused), "{:.1f}"));
    }
  }
  if (any_mean) notes.push_back(std::string("  ") + kMeanLegend);
  if (const std::string legend = definitions_legend(runs, "  "); !legend.empty()) {
    notes.push_back(legend.substr(0, legend.size() - 1));
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  if (!out.empty()) out += '\n';
  out += fmt::format("Per {} (delays and cycles in usecs, DSP load in %)\n", group_by_name(by));
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i == 0 ? fmt::format("  {:<{}}", row[i], width[i])
                     : fmt::format("  {:>{}}", row[i], width[i]);
    }
    out += line + "\n";
  }
  for (const std::string& n : notes) out += n + "\n";
  return out;
}

std::string format_summary_csv(const std::vector<RunRecord>& runs) {
  // Columns added later come last, so that scripts reading columns by position keep working.
  std::string out = "label,source,imported,started_utc,status,policy,loads,runs";
  for (const RecordField& f : record_fields()) {
    out += ',';
    out += f.field.key;
  }
  out += ",maxima_are_means,definitions,host,kernel,backend\n";
  for (const RunRecord& r : runs) {
    out += csv_field(r.label) + "," + csv_field(r.source) + "," + (r.imported ? "1" : "0") + "," +
           csv_field(r.started_utc) + "," + csv_field(r.status) + "," + csv_field(r.policy) + "," +
           csv_field(r.loads) + "," + std::to_string(r.runs);
    for (const RecordField& f : record_fields()) out += "," + raw_number(r.*f.member);
    out += r.maxima_are_means ? ",1" : ",0";
    out += "," + csv_field(r.definitions) + "," + csv_field(r.host) + "," + csv_field(r.kernel) +
           "," + csv_field(r.backend) + "\n";
  }
  return out;
}

nlohmann::json summary_json(const std::vector<RunRecord>& runs, GroupBy by) {
  nlohmann::json j = nlohmann::json::object();
  j["runs"] = nlohmann::json::array();
  for (const RunRecord& r : runs) j["runs"].push_back(to_json(r));
  j["labels"] = nlohmann::json::array();
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  j["by"] = group_by_name(by);
  j["definitions"] = definitions_json(runs);
  for (const Group& g : group_runs(runs, by)) {
    const std::vector<double> delay = values_of(g.runs, &RunRecord::delay_max_us);
    nlohmann::json l = nlohmann::json::object();
    l["name"] = g.name;
    l[group_by_name(by)] = g.value;
    l["imported"] = g.imported;
    l["maxima_are_means"] = g.maxima_are_means;
    l["definitions"] = g.definitions;
    l["runs"] = g.runs.size();
    l["jack_test_runs"] = jack_runs(g.runs);
    l["delay_max_mean_us"] = opt(mean_of(delay));
    l["delay_max_worst_us"] = opt(max_of(delay));
    l["xrun_total"] = opt(total_of(values_of(g.runs, &RunRecord::xrun_count)));
    bool unused = false;
    l["xrun_rate_per_hour"] = opt(aggregate(g, metric(&RunRecord::xrun_rate_per_hour), &unused));
    l["cycle_max_worst_us"] = opt(max_of(values_of(g.runs, &RunRecord::cycle_max_us)));
    l["dsp_load_mean_pct"] = opt(mean_of(values_of(g.runs, &RunRecord::dsp_load_pct)));
    l["delay_p99_worst_us"] = opt(max_of(values_of(g.runs, &RunRecord::delay_p99_us)));
    j["labels"].push_back(std::move(l));
  }
  return j;
}

std::string format_compare(const std::vector<RunRecord>& runs, GroupBy by) {
  const std::vector<Column> cols = compare_columns(runs, by);
  const std::vector<Metric>& ms = metrics();

  // Rows: header lines, then the metrics with "Number of runs" after "Frames per buffer".
  struct Row {
    std::string head;
    std::vector<std::string> cells;
    std::string unit;
  };
  std::vector<Row> rows;
  Row title{"", {}, ""}, subtitle{"", {}, ""};
  for (const Column& c : cols) {
    title.cells.push_back(c.title);
    subtitle.cells.push_back(c.subtitle);
  }
  rows.push_back(std::move(title));
  rows.push_back(std::move(subtitle));
  bool any_mean = false;
  for (size_t i = 0; i < ms.size(); ++i) {
    Row row{std::string(ms[i].field.leader), {}, ms[i].unit};
    bool any_value = false;
    for (const Column& c : cols) {
      row.cells.push_back(column_cell(c, i));
      any_value = any_value || c.values[i].has_value() || c.mixed[i];
      any_mean = any_mean || (c.maxima_are_means && is_maximum(ms[i].member) && c.values[i]);
    }
    // The consolidated block's rates only when one is shown (other runs have counts).
    if (ms[i].agg != Agg::kPerHour || any_value) rows.push_back(std::move(row));
    if (ms[i].member == &RunRecord::frames) {
      Row n{std::string(jack_test_field::kRuns.leader), {}, ""};
      for (const Column& c : cols) n.cells.push_back(fmt::format("({})", c.jack_runs));
      rows.push_back(std::move(n));
    }
  }
  std::vector<size_t> width(cols.size(), 0);
  size_t head_width = 0;
  for (const Row& r : rows) {
    head_width = std::max(head_width, r.head.size());
    for (size_t i = 0; i < r.cells.size(); ++i) width[i] = std::max(width[i], r.cells[i].size());
  }
  std::string out;
  for (const Row& r : rows) {
    std::string line = fmt::format("{:<{}}", r.head, head_width);
    for (size_t i = 0; i < r.cells.size(); ++i) {
      line += fmt::format("  {:>{}}", r.cells[i], width[i]);
    }
    if (!r.unit.empty()) line += "  " + r.unit;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (any_mean) out += std::string("\n") + kMeanLegend + "\n";
  if (const std::string legend = definitions_legend(runs, ""); !legend.empty()) {
    out += "\n" + legend;
  }
  return out;
}

std::string format_compare_csv(const std::vector<RunRecord>& runs, GroupBy by) {
  const std::vector<Column> cols = compare_columns(runs, by);
  const std::vector<Metric>& ms = metrics();
  std::string out = "field";
  for (const Column& c : cols) out += "," + csv_field(c.title);
  out += by == GroupBy::kRun ? "\nstarted_utc" : "\nruns";
  for (const Column& c : cols) out += "," + csv_field(c.subtitle);
  out += "\nnumber_of_runs";
  for (const Column& c : cols) out += "," + std::to_string(c.jack_runs);
  out += "\nmaxima_are_means";
  for (const Column& c : cols) out += c.maxima_are_means ? ",1" : ",0";
  out += "\ndefinitions";
  for (const Column& c : cols) out += "," + csv_field(c.definitions);
  out += '\n';
  for (size_t i = 0; i < ms.size(); ++i) {
    out += ms[i].field.key;
    for (const Column& c : cols) out += "," + (c.mixed[i] ? "mixed" : raw_number(c.values[i]));
    out += '\n';
  }
  return out;
}

nlohmann::json compare_json(const std::vector<RunRecord>& runs, GroupBy by) {
  nlohmann::json j = nlohmann::json::object();
  j["by"] = group_by_name(by);
  j["definitions"] = definitions_json(runs);
  j["columns"] = nlohmann::json::array();
  const std::vector<Metric>& ms = metrics();
  for (const Column& c : compare_columns(runs, by)) {
    nlohmann::json col = nlohmann::json::object();
    col["title"] = c.title;
    col["subtitle"] = c.subtitle;
    col["imported"] = c.imported;
    col["number_of_runs"] = c.jack_runs;
    col["maxima_are_means"] = c.maxima_are_means;
    col["definitions"] = c.definitions;
    nlohmann::json fields = nlohmann::json::object();
    for (size_t i = 0; i < ms.size(); ++i) {
      fields[ms[i].field.key] = c.mixed[i]    ? nlohmann::json("mixed")
                                : c.values[i] ? nlohmann::json(*c.values[i])
                                              : nlohmann::json(nullptr);
    }
    col["fields"] = std::move(fields);
    j["columns"].push_back(std::move(col));
  }
  return j;
}

std::string write_compare_data(const std::vector<RunRecord>& runs, const std::string& dir,
                               GroupBy by) {
  // x: the group's position, runs spread within +-0.3 of it; tick: the group on its first run;
  // group: its position; the group's medians (of the runs that have the figure) on every row,
  // so the plot draws them as bars beside the runs (a distribution, not a bar per run).
  std::string out =
      "label,run_index,delay_max_us,delay_p99_us,xrun_count,imported,x,tick,group,"
      "median_xrun_count,median_delay_max_us\n";
  size_t group = 0;
  auto median_of = [](const std::vector<const RunRecord*>& rs, auto field) {
    std::vector<double> v;
    for (const RunRecord* r : rs) {
      if (const auto x = field(*r)) v.push_back(static_cast<double>(*x));
    }
    return stats::describe(v).median;
  };
  for (const Group& g : group_runs(runs, by == GroupBy::kRun ? GroupBy::kLabel : by)) {
    size_t index = 0;
    const double n = static_cast<double>(g.runs.size());
    const auto xruns = median_of(g.runs, [](const RunRecord& r) { return r.xrun_count; });
    const auto delay = median_of(g.runs, [](const RunRecord& r) { return r.delay_max_us; });
    for (const RunRecord* r : g.runs) {
      const double x = static_cast<double>(group) +
                       (n > 1 ? -0.3 + 0.6 * static_cast<double>(index) / (n - 1) : 0.0);
      const std::string name = csv_field(one_line(g.name));
      out += fmt::format(
          "{},{},{},{},{},{},{:.3f},{},{},{},{}\n", name, index + 1, raw_number(r->delay_max_us),
          raw_number(r->delay_p99_us), raw_number(r->xrun_count), r->imported ? 1 : 0, x,
          index == 0 ? name : std::string(), group, raw_number(xruns), raw_number(delay));
      ++index;
    }
    ++group;
  }
  std::string path = (std::filesystem::path(dir) / "compare_runs.csv").string();
  write_output_file(path, out);
  return path;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/report_html.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "engine/base/base64.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"
#include "engine/report/html_page.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/run_answer.hpp"

namespace xrunlab {
namespace {

using Row = std::vector<std::string>;  // cells, already HTML

std::string esc(std::string_view s) {
  return html_escape(s);
}

std::string cell_opt(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

std::string cell_opt(const std::optional<Percentile>& p) {
  if (!p) return "-";
  return (p->exact ? "" : "&gt;=") + std::to_string(p->value_us);
}

std::string us_of_ns(const std::optional<int64_t>& ns) {
  return ns ? fmt::format("{:.1f}", static_cast<double>(*ns) / 1000.0) : "-";
}

// A table: the header's cells, then the rows; cells are HTML already. Columns listed in
// `text_columns` are text, the others numbers (right-aligned).
std::string table(const Row& header, const std::vector<Row>& rows,
                  const std::vector<size_t>& text_columns = {0}) {
  std::string out = "<table><thead><tr>";
  for (const std::string& h : header) out += "<th>" + h + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const Row& row : rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const bool text =
          std::find(text_columns.begin(), text_columns.end(), i) != text_columns.end();
      out += (text ? "<td>" : "<td class=\"n\">") + row[i] + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string list(const std::vector<std::string>& items) {
  std::string out = "<ul>\n";
  for (const std::string& i : items) out += "<li>" + esc(i) + "</li>\n";
  return out + "</ul>\n";
}

std::string answer_section(const RunResult& r, const RunAnswer& a) {
  std::string out = fmt::format("<h1 id=\"verdict\" class=\"{}\">{}</h1>\n",
                                a.clean ? "clean" : "dirty", esc(a.verdict));
  out += html_paragraph("Status: " + esc(trim(summary_status_text(r))));
  std::vector<Row> rows;
  for (const AnswerFigure& f : a.figures) {
    rows.push_back({esc(f.label), esc(f.value), esc(f.definition)});
  }
  out += table({"figure", "value", "definition"}, rows, {0, 2});
  if (!a.count_by.empty())
    out += html_paragraph("The xrun events are counted by " + esc(a.count_by) + ".");
  if (!a.causes.empty() && r.xrun_causes) {
    const std::vector<CauseCount> sorted = causes_by_events(*r.xrun_causes);
    std::vector<Row> causes;
    causes.reserve(sorted.size());
    for (const CauseCount& c : sorted) {
      causes.push_back(
          {esc(cause_text(c)), fmt::format("{}", c.chain), fmt::format("{}", c.outside)});
    }
    out += html_section("causes", "Causes of the xrun events") +
           html_paragraph(
               "Each event's cause is read from jackd's lines that fell to it: the first client "
               "jackd found still running at the deadline (or that finished after it), the "
               "driver, or only clients that had not started. Events outside the chain are "
               "xruns JACK reported that no cycle of the run's chain explains.") +
           table({"cause", "in the chain", "outside the chain"}, causes, {0});
  }
  if (!a.witnesses.empty()) out += html_section("witnesses", "Witnesses") + list(a.witnesses);
  if (!a.worst_cycle.empty()) {
    out += html_section("worst-cycle", "Worst cycle") + html_paragraph(esc(a.worst_cycle));
  }
  if (!a.floor.empty()) out += html_section("floor", "Floor") + html_paragraph(esc(a.floor));
  return out;
}

std::string plots_section(const std::vector<ReportPlot>& plots, std::string_view no_plots) {
  std::string out = html_section("plots", "Plots");
  if (plots.empty()) return out + html_paragraph("No plots.", "missing");
  for (const ReportPlot& p : plots) out += html_plot(p, no_plots);
  return out;
}

std::string client_section(const RunResult& r) {
  std::string out = html_section("clients", "Per client (usecs)");
  if (r.client_results.empty()) return out + html_paragraph("No clients.");
  std::vector<Row> rows;
  for (const ClientResult& c : r.client_results) {
    const ClientSummaries& m = c.summary;
    rows.push_back({std::to_string(c.index), esc(c.name), std::to_string(c.cycles),
                    cell_opt(m.delay.max_us), cell_opt(m.delay.p99), cell_opt(m.cycle.max_us),
                    cell_opt(m.duration.max_us), std::to_string(c.over_spare),
                    std::to_string(c.late), esc(c.error)});
  }
  return out + table({"idx", "name", "cycles", "delay max", "delay p99", "cycle max",
                      "duration max", "over period", "late", "error"},
                     rows, {1, 9});
}

std::string hop_section(const CycleTableResult& t) {
  if (!t.present) return {};
  std::string out = html_section("hops", "Cycles hop by hop (usecs)");
  out += html_paragraph(fmt::format(
      "{} cycles, {} complete, {} missed ({} past the deadline, {} out of chain order); times: {}",
      t.cycles, t.complete, t.missed, t.deadline_missed, t.out_of_order, esc(t.time_source)));
  std::vector<Row> rows;
  for (const HopSeries& h : t.hops) {
    const MetricSummary m = summarize(h.us);
    rows.push_back({esc(h.label), std::to_string(m.count), cell_opt(m.min_us), cell_opt(m.p50),
                    cell_opt(m.p99), cell_opt(m.p999), cell_opt(m.max_us)});
  }
  out += table({"hop", "count", "min", "p50", "p99", "p99.9", "max"}, rows);
  std::vector<std::string> not_run;
  for (size_t k = 0; k < t.not_run.size(); ++k) {
    if (t.not_run[k] > 0) {
      not_run.push_back(fmt::format("c{:02d} did not run in {} cycle(s)", k + 1, t.not_run[k]));
    }
  }
  return not_run.empty() ? out : out + list(not_run);
}

std::string xrun_source_section(const XrunCycles& x) {
  if (!x.present) return {};
  std::string out = html_section("xrun-sources", "Xrun sources against the cycle table");
  out += html_paragraph(fmt::format(
      "{} xrun cycle(s) in {} event(s): an xrun cycle missed its deadline, ran out of chain "
      "order or had a client that did not run; consecutive ones are one event.",
      x.cycles, x.events));
  std::vector<Row> rows;
  for (const SourceTally& t : x.sources) {
    rows.push_back({esc(t.label), esc(fmt::format("{} {}", t.reports, t.unit)),
                    fmt::format("{} of {}", t.events_reported, t.events_judged),
                    std::to_string(t.events_missed), std::to_string(t.reports_unmatched)});
  }
  return out +
         table({"source", "reports", "events reported", "missed", "reports without an xrun cycle"},
               rows, {0, 1});
}

std::string client_cells(const CycleRow& c) {
  std::string out;
  for (size_t k = 0; k < c.clients.size(); ++k) {
    const CycleClient& cl = c.clients[k];
    out += k == 0 ? "" : "; ";
    out += cl.ran ? fmt::format("c{:02d} {:.1f}-{:.1f}", k + 1,
                                static_cast<double>(cl.entry_ns) / 1000.0,
                                static_cast<double>(cl.exit_ns) / 1000.0)
                  : fmt::format("c{:02d} did not run", k + 1);
  }
  return out;
}

std::string worst_cycles_section(const RunResult& r) {
  std::string out = html_section("worst-cycles", "Worst cycles");
  if (r.explain && !r.explain->cycles.empty()) {
    out += html_paragraph("As the kernel trace explains them (--explain).");
    std::vector<Row> rows;
    for (const ExplainedCycle& c : r.explain->cycles) {
      rows.push_back({std::to_string(c.cycle), fmt::format("{:.3f}", c.t_s),
                      c.slack_ns ? us_of_ns(c.slack_ns) : "a client did not run", esc(c.line)});
    }
    return out + table({"cycle", "time (s)", "slack (usecs)", "explanation"}, rows, {2, 3});
  }
  const CycleTableResult& t = r.cycle_table;
  if (!t.present || t.worst.empty()) return out + html_paragraph("No cycle table.");
  out += html_paragraph(
      "By slack, worst first; times in usecs after the interrupt (each client's entry-exit). "
      "<code>xrunlab run --explain</code> has the kernel trace explain them.");
  std::vector<Row> rows;
  for (const CycleRow& c : t.worst) {
    rows.push_back({std::to_string(c.id), fmt::format("{:.3f}", c.t_s), us_of_ns(c.slack_ns),
                    us_of_ns(c.jackd_wake_ns), esc(client_cells(c)), c.missed ? "yes" : "no"});
  }
  return out +
         table({"cycle", "time (s)", "slack", "jackd wake-up", "clients", "missed"}, rows, {4, 5});
}

std::string xrun_events_section(const XrunCounts& x) {
  std::string out = html_section("xrun-events", "Xrun events");
  const uint64_t total = x.events_total();
  if (total == 0) return out + html_paragraph("No xrun event reached the monitor.");
  const size_t shown = std::min(x.events.size(), kHtmlXrunEvents);
  out += html_paragraph(fmt::format("The first {} of {} event(s) the monitor received{}.", shown,
                                    total,
                                    x.events_cut() ? " (run.json lists the first ones only)" : ""));
  std::vector<Row> rows;
  for (size_t i = 0; i < shown; ++i) {
    const XrunEvent& e = x.events[i];
    rows.push_back({std::to_string(i + 1), fmt::format("{:.3f}", e.t_s), std::to_string(e.frame),
                    std::to_string(e.callbacks)});
  }
  return out + table({"#", "time (s)", "frame", "callbacks"}, rows, {});
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The events outside the chain, with their causes (engine/result/xrun_causes.hpp).
std::string outside_events_section(const RunResult& r) {
  if (!r.xrun_causes || r.xrun_causes->outside_events == 0) return "";
  const XrunAttribution& a = *r.xrun_causes;
  std::string out = html_section("outside-events", "Xrun events outside the chain");
  const size_t shown = std::min(a.outside.size(), kHtmlXrunEvents);
  out += html_paragraph(fmt::format(
      "The first {} of {} xrun event(s) JACK reported that no cycle of the run's chain explains.",
      shown, a.outside_events));
  std::vector<Row> rows;
  for (size_t i = 0; i < shown; ++i) {
    const OutsideXrun& o = a.outside[i];
    rows.push_back({std::to_string(i + 1), fmt::format("{:.3f}", o.t_s),
                    o.cycle ? std::to_string(*o.cycle) : "-", esc(outside_cause_text(a, o)),
                    std::to_string(o.callbacks), std::to_string(o.lines)});
  }
  return out + table({"#", "time (s)", "cycle", "cause", "callbacks", "lines"}, rows, {3});
}

// The audible glitches the tail heard (the first ones), with the xrun event that explains each.
std::string glitches_section(const RunResult& r) {
  if (!r.audio) return "";
  const AudioResult& a = *r.audio;
  std::string out = html_section("glitches", "Audible glitches");
  const uint64_t total = a.glitches_total();
  if (total == 0) return out + html_paragraph("The tail heard no glitch.");
  const size_t shown = std::min(a.glitches.size(), kHtmlXrunEvents);
  out +=
      html_paragraph(fmt::format("The first {} of {} glitch(es) the tail heard{}.", shown, total,
                                 a.glitches_cut() ? " (run.json lists the first ones only)" : ""));
  std::vector<Row> rows;
  for (size_t i = 0; i < shown; ++i) {
    const GlitchResult& g = a.glitches[i];
    std::string xrun = "none";
    if (g.matched && g.xrun_t_s) {
      xrun = fmt::format("{:.3f} s", *g.xrun_t_s);
      if (g.driver_xrun) {
        xrun += " (the driver)";
      } else if (!g.late_clients.empty()) {
        xrun += " (late: " + joined_names(g.late_clients) + ")";
      }
    }
    rows.push_back({std::to_string(i + 1), fmt::format("{:.3f}", g.t_s), esc(g.report.kind),
                    std::to_string(g.report.jump), std::to_string(g.report.length), esc(xrun)});
  }
  return out + table({"#", "time (s)", "kind", "jump (frames)", "frames affected", "its xrun"},
                     rows, {2, 5});
}

std::string warnings_section(const RunResult& r) {
  std::string out = html_section("warnings", "Warnings");
  return r.warnings.empty() ? out + html_paragraph("None.") : out + list(r.warnings);
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::pair<std::string, std::string>> context_items(const RunResult& r) {
  std::vector<std::pair<std::string, std::string>> items = {
      {"xrunlab", r.xrunlab_version},
      {"started (UTC)", r.started_utc},
      {"ended (UTC)", r.ended_utc},
      {"seconds measured", fmt::format("{:.1f}", r.seconds_ran)},
      {"period", fmt::format("{} frames at {} Hz ({:.0f} usecs)", r.frames, r.rate, r.period_us)},
      {"clients, ports", fmt::format("{}, {}", r.clients, r.ports)},
  };
  if (r.host) {
    const HostRecord& h = *r.host;
    items.emplace_back("host", h.hostname);
    items.emplace_back(
        "kernel", fmt::format("{} {} ({})", h.kernel.sysname, h.kernel.release, h.kernel.preempt));
    items.emplace_back("CPU", fmt::format("{} ({} online)", h.cpu.model, h.cpu.count));
    items.emplace_back("JACK", h.jackd_version);
  }
  items.emplace_back(
      "backend", r.backend.name.empty()
                     ? std::string("-")
                     : r.backend.name + (r.backend.driver.empty() ? std::string()
                                                                  : " (" + r.backend.driver + ")"));
  items.emplace_back("policy", r.policy_spec);
  items.emplace_back("scheduling", r.scheduling);
  items.emplace_back("server name", r.server_name);
  items.emplace_back("command line", joined(r.command_line));
  items.emplace_back("jackd", joined(r.jackd_argv));
  return items;
}

std::string context_section(const RunResult& r) {
  std::vector<Row> rows;
  for (const auto& [label, value] : context_items(r)) {
    rows.push_back({esc(label), "<span class=\"mono\">" + esc(value) + "</span>"});
  }
  return html_section("context", "Context") + table({"", ""}, rows, {0, 1});
}

}  // namespace

std::string format_report_html(const RunResult& r, const std::vector<ReportPlot>& plots,
                               std::string_view no_plots) {
  const RunAnswer a = run_answer(r);
  std::string out = answer_section(r, a);
  out += plots_section(plots, no_plots);
  out += client_section(r);
  out += hop_section(r.cycle_table);
  out += xrun_source_section(r.xrun_cycles);
  out += worst_cycles_section(r);
  out += xrun_events_section(r.xruns);
  out += outside_events_section(r);
  out += glitches_section(r);
  out += warnings_section(r);
  out += context_section(r);
  return html_page("xrunlab: " + a.verdict, out);
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/report_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "engine/base/text.hpp"
#include "engine/report/jack_test_labels.hpp"
#include "engine/report/report_text.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

constexpr std::string_view kTitleLine = " ************* SUMMARY RESULT ****************\n";
constexpr std::string_view kOwnTitleLine = " ************* XRUNLAB RESULT ****************\n";
constexpr std::string_view kStarLine = " *********************************************\n";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Value texts. Integers end in column 38 like jack_test's "%6d"; "%8.1f" puts the integer part
// of a real number in the same place; units then start in column 42 either way.
std::string int6(uint64_t v) {
  return fmt::format("{:6d}", v);
}
std::string paren5(uint64_t v) {
  return fmt::format("({:5d})", v);
}
std::string usecs6(int64_t v) {
  return fmt::format("{:6d}   usecs", v);
}
std::string percent(double v) {
  return fmt::format("{:8.1f} %", v);
}
std::string per_sec(double v) {
  return fmt::format("{:8.1f} /sec", v);
}
std::string usecs_real(double v) {
  return fmt::format("{:8.1f} usecs", v);
}

std::string opt_usecs6(const std::optional<int64_t>& v) {
  return v ? usecs6(*v) : "   n/a";
}

std::string opt_usecs_real(const std::optional<double>& v) {
  return v ? usecs_real(*v) : "     n/a";
}

std::string percentile_text(const Percentile& p) {
  return p.exact ? std::to_string(p.value_us) : ">=" + std::to_string(p.value_us);
}

std::string opt_percentile6(const std::optional<Percentile>& p) {
  return p ? fmt::format("{:>6}   usecs", percentile_text(*p)) : "   n/a";
}

// jack_test's line of the field: its leader, then the value.
void jack_line(std::string& out, const JackTestField& field, std::string_view value) {
  out += field.leader;
  out += value;
  out += '\n';
}

std::string delay_reference_text(const RunResult& r) {
  std::string s = " " + (r.delay_reference.empty() ? std::string("unknown") : r.delay_reference);
  if (r.delay_resolution_us > 0)
    s += fmt::format(" (resolution {:.1f} usecs)", r.delay_resolution_us);
  return s;
}

std::string resolution_text(double us) {
  if (us > 0 && us < 0.01) return fmt::format("{:.0f} ns", us * 1000.0);
  return fmt::format("{:.1f} usecs", us);
}

void jack_test_block(std::string& out, const RunResult& r) {
  const double seconds = std::isfinite(r.seconds_ran) ? std::max(0.0, r.seconds_ran) : 0.0;
  out += kTitleLine;
  jack_line(out, jack_test_field::kSeconds, int6(static_cast<uint64_t>(std::floor(seconds))));
  jack_line(out, jack_test_field::kClients, int6(static_cast<uint64_t>(std::max(0, r.clients))));
  jack_line(out, jack_test_field::kPorts, int6(static_cast<uint64_t>(std::max(0, r.ports))));
  jack_line(out, jack_test_field::kFrames, int6(r.frames));
  jack_line(out, jack_test_field::kRuns, paren5(1));
  out += kStarLine;
  const bool jack1 = r.jack_test.definitions == "jack1-rules";
  // jack_test's "%5d": whole usecs, truncated.
  auto whole = [](const std::optional<double>& v) {
    return v ? usecs6(static_cast<int64_t>(std::floor(*v))) : std::string("   n/a   usecs");
  };
  jack_line(out, jack_test_field::kTimeoutCount, paren5(r.timeout_count));
  jack_line(out, jack_test_field::kXrunCount, int6(r.xrun_count));
  jack_line(out, jack_test_field::kDelayOverSpare, int6(r.delay_over_spare));
  jack_line(out, jack_test_field::kDelayOver1000, int6(r.delay_over_1000));
  if (jack1) {
    jack_line(out, jack_test_field::kDelayMax, whole(r.jack_test.delay_max_us));
    jack_line(out, jack_test_field::kCycleMax, whole(r.jack_test.cycle_max_us));
    const std::optional<double> load =
        r.jack_test.dsp_load_pct ? r.jack_test.dsp_load_pct : r.avg_dsp_load;
    jack_line(out, jack_test_field::kDspLoad, load ? percent(*load) : "     n/a");
  } else {
    jack_line(out, jack_test_field::kDelayMax, usecs6(r.delay.max_us.value_or(0)));
    jack_line(out, jack_test_field::kCycleMax, usecs6(r.cycle.max_us.value_or(0)));
    jack_line(out, jack_test_field::kDspLoad,
              r.avg_dsp_load ? percent(*r.avg_dsp_load) : "     n/a");
  }
  jack_line(out, jack_test_field::kCpuSystem, percent(r.avg_system));
  jack_line(out, jack_test_field::kCpuUser, percent(r.avg_user));
  jack_line(out, jack_test_field::kCpuNice, percent(r.avg_nice));
  jack_line(out, jack_test_field::kCpuIowait, percent(r.avg_iowait));
  jack_line(out, jack_test_field::kCpuIrq, percent(r.avg_irq));
  jack_line(out, jack_test_field::kCpuSoftirq, percent(r.avg_softirq));
  jack_line(out, jack_test_field::kIntrRate, per_sec(r.avg_intr));
  jack_line(out, jack_test_field::kCtxtRate, per_sec(r.avg_ctxt));
  out += kStarLine;
  if (r.audio) {  // jack_test4's audible chain: its own block, as jack_test4.1 printed it
    // A file the check could not work on has no Delta Maximum: it was not measured.
    const bool checked = r.audio->totals.not_checked.empty();
    jack_line(out, jack_test_field::kDeltaMax,
              checked ? fmt::format(" {:.5f}", r.audio->totals.delta_max) : " not checked");
    out += kStarLine;
  }
  // Where the block's numbers come from (no dot leader: old parsers skip it).
  const bool pipewire = r.backend.is_pipewire();
  if (jack1 && pipewire) {
    out += fmt::format(
        " (jack_test's definitions: JACK1's rules on {} PipeWire wake-ups, {} resolution;\n"
        "  XRUN Count = PipeWire's xrun callbacks (its driver's count); no client-late count)\n",
        r.jack_test.wakes, resolution_text(r.jack_test.wake_resolution_us));
  } else if (jack1) {
    out += fmt::format(
        " (jack_test's definitions: JACK1's rules on {} jackd wake-ups, {} resolution;\n"
        "  XRUN Count = driver xruns only; JACK2's client-late xruns below, labelled)\n",
        r.jack_test.wakes, resolution_text(r.jack_test.wake_resolution_us));
  } else if (!r.client_results.empty()) {
    out +=
        " (xrunlab before jack_test's definitions: Delay = the clients' callback delay against "
        "the interrupt,\n  not jack_test's driver wake-up delay; not comparable with 2005)\n";
  }
}

// JACK2's witnesses of an xrun: the monitor's callbacks, jackd's client-late lines and its
// driver's xrun lines.
void jack2_xrun_lines(std::string& out, const XrunCounts& x) {
  out += summary_field_line(
      "JACK2 xrun events (monitor)",
      fmt::format("{}   ({} callbacks)", int6(x.monitor_events), x.monitor_callbacks));
  out += summary_field_line(
      "Client-late xruns (jackd)",
      fmt::format("{}   ({} lines)", int6(x.log_client_events), x.log_client_lines));
  std::string driver = int6(x.log_driver_xruns);
  // jackd's "xrun of at least N msecs" is the time since the stream's trigger as the driver
  // reads it; on the virtual card (an ioplug plug-in, the one backend with a card record)
  // that is the time since the stream started, not a duration, so it is not shown: the
  // card's record says when each xrun happened.
  if (x.log_driver_xruns > 0 && x.log_driver_max_delay_us > 0) {
    driver += x.card_xruns ? std::string("   (jackd's durations are not meaningful on vcard)")
                           : fmt::format("   (max {:.1f} usecs)", x.log_driver_max_delay_us);
  }
  out += summary_field_line("Driver XRUNs (jackd log)", driver);
}

// --ping: what was sent and lost, and the round trip; or why there are no figures.
std::string ping_summary_lines(const PingRecord& p) {
  const std::string label = "Ping (--ping)";
  if (p.error) return summary_field_line(label, " none: " + one_line(*p.error));
  auto us = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.0f}", *v) : std::string("n/a");
  };
  std::string out = summary_field_line(
      label, fmt::format(" {} sent, {} lost ({:.1f} %), round trip p50 {} / p99 {} / max {} usecs "
                         "({}/s from {} into the run's network namespace; sent up to {} usecs "
                         "late; {})",
                         p.sent, p.lost, p.lost_pct, us(p.rtt_p50_us), us(p.rtt_p99_us),
                         us(p.rtt_max_us), p.rate_hz, p.source, us(p.send_late_max_us), p.file));
  if (p.expected_lost) {
    out += summary_field_line(
        "Injected loss",
        fmt::format(" every {}th request dropped by an nftables rule: {} expected, "
                    "{} lost{}",
                    p.drop_every, *p.expected_lost, p.lost,
                    *p.expected_lost == p.lost ? " (as expected)" : ""));
  }
  return out;
}

void own_block_rest(std::string& out, const RunResult& r);

void own_block(std::string& out, const RunResult& r) {
  const XrunCounts& x = r.xruns;
  out += kOwnTitleLine;
  out += summary_field_line("Status", summary_status_text(r));
  if (!r.scheduling.empty()) out += summary_field_line("Scheduling", " " + r.scheduling);
  if (!r.backend.name.empty()) out += summary_field_line("Backend", " " + one_line(r.backend.name));
  out += summary_field_line("Sample rate", fmt::format("{:6d}   Hz", r.rate));
  out += summary_field_line("Period", usecs_real(r.period_us));
  if (r.jack_test.spare_min_us) {
    out += summary_field_line(
        "Spare time (JACK1 estimate)",
        fmt::format("{}   (lowest; last {:.1f})", usecs_real(*r.jack_test.spare_min_us),
                    r.jack_test.spare_last_us.value_or(0.0)));
  }
  if (r.jack_test.cycle_max_all_us) {
    out += summary_field_line("JACK1 cycle max, all cycles",
                              usecs_real(*r.jack_test.cycle_max_all_us));
  }
  out += summary_field_line("Delay reference", delay_reference_text(r));
  out += summary_field_line("Callback delay p50", opt_percentile6(r.delay.p50));
  out += summary_field_line("Callback delay p99", opt_percentile6(r.delay.p99));
  out += summary_field_line("Callback delay p99.9", opt_percentile6(r.delay.p999));
  out += summary_field_line("Callback delay mean", opt_usecs_real(r.delay.mean_us));
  out += summary_field_line("Callback end p50", opt_percentile6(r.cycle.p50));
  out += summary_field_line("Callback end p99", opt_percentile6(r.cycle.p99));
  out += summary_field_line("Callback end p99.9", opt_percentile6(r.cycle.p999));
  out += summary_field_line("Callback duration max", opt_usecs6(r.duration.max_us));
  // PipeWire's JACK: its xrun callbacks, and no server log of xruns (nothing to count there).
  if (r.backend.is_pipewire()) {
    out += summary_field_line("PipeWire xruns (monitor)",
                              fmt::format("{}   ({} callbacks; at most one a cycle)",
                                          int6(x.monitor_events), x.monitor_callbacks));
    out += summary_field_line("Server xrun log", " none (PipeWire writes no xrun lines)");
  } else {
    jack2_xrun_lines(out, x);
  }
  own_block_rest(out, r);
}

void own_block_rest(std::string& out, const RunResult& r) {
  const XrunCounts& x = r.xruns;
  if (x.card_xruns) out += summary_field_line("Card XRUNs (vcard record)", int6(*x.card_xruns));
  if (r.audio) {
    const AudioResult& a = *r.audio;
    // Audible events are grouped from the glitch list: of its first glitches when it is cut.
    const std::string events = a.glitches_cut() ? fmt::format("{} events in the first {} glitches",
                                                              a.events, a.glitches.size())
                                                : fmt::format("{} events", a.events);
    // Before the tail's totals arrive (an interrupted run), the list is what is known.
    out += summary_field_line(
        "Audible glitches",
        fmt::format("{}   ({}, {} frames checked{})", int6(a.glitches_total()), events,
                    a.totals.frames, a.final_received ? "" : ", incomplete"));
    // --source FILE: what played, and how much of it the check could judge.
    if (!a.source.empty()) out += summary_field_line("Audio source", " " + a.source);
    if (!a.totals.not_checked.empty()) {
      out += summary_field_line("Audio check", " not checked: " + a.totals.not_checked);
    } else if (!a.source.empty() && a.final_received) {
      out += summary_field_line(
          "Audio check",
          fmt::format(" {} blocks of {} frames judged, {} not judgeable (equal to the block "
                      "before or after)",
                      a.totals.judged_blocks, a.totals.block_frames, a.totals.unjudged_blocks));
    }
    if (a.totals.clipped_samples > 0) {
      out += summary_field_line(
          "Recording clipped",
          fmt::format(" {} samples beyond +-1.0 (24-bit FLAC)", a.totals.clipped_samples));
    }
    if (a.glitches_total() > 0 || a.xruns_without_glitch > 0) {
      out += summary_field_line("Glitches without xrun", int6(a.glitches_without_xrun));
      out += summary_field_line("XRUNs without glitch", int6(a.xruns_without_glitch));
      // Cut lists: the two counts are of what match_glitches could judge (result.hpp). Keyed
      // by the cycle table, the "Xrun events by cycle" table says what was judged.
      if (a.matched_by == "window" && (x.events_cut() || a.glitches_cut())) {
        const GlitchMatchScope s = glitch_match_scope(x.events, x.events_cut(), a);
        out += summary_field_line(
            "Glitches and XRUNs judged",
            fmt::format(" the first {} of {} glitches, the first {} of {} xrun events (run.json "
                        "lists only the first ones)",
                        s.glitches, a.glitches_total(), s.xruns, x.events_total()));
      }
    }
  }
  if (r.backend.vcard && r.backend.vcard->card) {
    const MetricSummary& w = r.backend.vcard->card->wake_latency_us;
    auto num = [](const std::optional<int64_t>& v) -> std::string {
      return v ? fmt::format("{}", *v) : "n/a";
    };
    auto pct = [&](const std::optional<Percentile>& p) {
      return num(p ? std::optional<int64_t>(p->value_us) : std::nullopt);
    };
    out += summary_field_line("jackd wake-up (vcard)",
                              fmt::format(" p50 {} / p99 {} / max {} usecs after the interrupt",
                                          pct(w.p50), pct(w.p99), num(w.max_us)));
  }
  if (r.baseline) {
    const BaselineRecord& b = *r.baseline;
    if (b.error) {
      out += summary_field_line("Timer baseline (cyclictest)", " none: " + one_line(*b.error));
    } else {
      auto pct = [](const std::optional<Percentile>& p) -> std::string {
        if (!p) return "n/a";
        return fmt::format("{}{}", p->exact ? "" : ">", p->value_us);
      };
      out += summary_field_line(
          "Timer baseline (cyclictest)",
          fmt::format(" p50 {} / p99 {} / p99.9 {} / max {} usecs late, {} wake-ups ({} {}, "
                      "every {} usecs, beside the run)",
                      pct(b.p50), pct(b.p99), pct(b.p99_9),
                      b.max_us ? fmt::format("{}", *b.max_us) : "n/a", b.wakeups, b.policy,
                      b.priority, b.interval_us));
      auto ratio = [](const std::optional<double>& v) -> std::string {
        return v ? fmt::format("{:.2f}x", *v) : "n/a";
      };
      out += summary_field_line(
          "Against its p99",
          fmt::format(" jackd wake-up p99 {}, head client's callback delay p99 {}",
                      ratio(b.jackd_wakeup_ratio), ratio(b.head_client_delay_ratio)));
    }
  }
  if (r.ping) out += ping_summary_lines(*r.ping);
  if (r.dma_latency) {
    const DmaLatencyRecord& d = *r.dma_latency;
    out += summary_field_line("CPU DMA latency",
                              fmt::format(" held at {} usecs during the run ({}; read back: {})",
                                          d.requested_us, d.device,
                                          d.read_back_us ? fmt::format("{} usecs", *d.read_back_us)
                                                         : std::string("not readable")));
  }
  if (r.affinity) {
    const AffinityRecord& a = *r.affinity;
    std::string sets;
    if (!a.cpus.empty()) sets += " audio threads on CPUs " + format_cpu_list(a.cpus);
    if (!a.load_cpus.empty()) {
      sets +=
          std::string(sets.empty() ? "" : ";") + " loads on CPUs " + format_cpu_list(a.load_cpus);
    }
    const std::string read_backs =
        fmt::format("{} thread and {} load read-backs", a.threads_checked, a.loads_checked);
    std::string outcome =
        "not verified: the run ended before it was read back (" + read_backs + ")";
    if (a.verified) {
      outcome = *a.verified ? "verified: " + read_backs + " matched"
                            : "NOT as requested: see run.json scheduling";
    }
    out += summary_field_line("CPU affinity", fmt::format("{} ({})", sets, outcome));
  }
  if (r.ramp) out += summary_field_line("DSP ramp", ramp_text(*r.ramp));
  if (r.explain) {
    // --explain: the trace's coverage, then one line per worst cycle (engine/trace/explain.hpp).
    const ExplainRecord& e = *r.explain;
    out += summary_field_line(
        "Explained (kernel trace)",
        fmt::format(" {} worst cycles; {} events kept, {} lost by the kernel, {} not kept (store "
                    "full); 1 usec resolution",
                    e.cycles.size(), e.trace.events, e.trace.lost_kernel, e.trace.dropped_store));
    for (const ExplainedCycle& c : e.cycles) {
      out += summary_field_line(fmt::format("Cycle {}", c.cycle), " " + one_line(c.line));
    }
  }
  if (r.trace_on_xrun) {
    // --trace-on-xrun: the frozen ring's file and how far back it reaches (xrun_trace.hpp).
    const XrunTraceRecord& t = *r.trace_on_xrun;
    std::string text;
    if (t.file) {
      const int64_t xrun = t.xrun_mono_ns.value_or(0);
      const int64_t frozen = t.frozen_mono_ns.value_or(0);
      text = fmt::format(
          " {} (trace-cmd report -i, KernelShark): every CPU from {} before the "
          "first xrun to {:.1f} ms after it",
          *t.file,
          t.covered_before_xrun_ms ? fmt::format("{:.1f} ms", *t.covered_before_xrun_ms)
                                   : std::string("an unknown time"),
          static_cast<double>(frozen - xrun) / 1e6);
    } else {
      text = " nothing saved: " + one_line(t.error.value_or("unknown"));
    }
    out += summary_field_line("Trace at first xrun", text);
  }
  if (r.logs) {
    // The log filter (engine/jack/log_filter.hpp): one line when it dropped anything.
    auto part = [](const LogCounts& l, const char* what) -> std::string {
      if (l.kept >= l.lines) return "";
      return fmt::format("{} of {} {} lines", l.lines - l.kept, l.lines, what);
    };
    const std::string jackd = part(r.logs->jackd, "jackd");
    const std::string clients = part(r.logs->clients, "client");
    // Repeated xrun lines and messages are dropped only past their own, much larger bound.
    std::optional<uint64_t> repeats;
    for (const LogCounts* l : {&r.logs->jackd, &r.logs->clients}) {
      for (const auto& [kind, n] : l->dropped) {
        if (kind.rfind("xrun: ", 0) == 0 || kind.rfind("message: ", 0) == 0) {
          repeats = l->repeats_kept_per_kind;
        }
      }
    }
    if (!jackd.empty() || !clients.empty()) {
      const std::string repeated =
          repeats ? fmt::format(", xrun lines and messages after {} of each kind", *repeats) : "";
      out += summary_field_line(
          "Log lines dropped",
          fmt::format(" {}{}{} (JACK debug lines after {} of each kind{}; counts in run.json "
                      "logs; --full-log keeps every line)",
                      jackd, !jackd.empty() && !clients.empty() ? ", " : "", clients,
                      r.logs->jackd.examples_per_kind, repeated));
    }
  }
  if (!x.late_clients.empty()) {
    std::string names;
    for (const std::string& n : x.late_clients) names += (names.empty() ? "" : ", ") + one_line(n);
    out += summary_field_line("Late clients (jackd log)", " " + names);
  }
  out += summary_field_line("Injected overruns", int6(r.injected));
  if (r.iso_emulation) {
    const IsoReport& iso = *r.iso_emulation;
    out += summary_field_line("ISO emulation", " " + iso.label);
    out += summary_field_line(
        "ISO demotions", fmt::format("{:6d}   (promotions {}, {:.1f} s demoted)", iso.demotions,
                                     iso.promotions, iso.time_demoted_s));
    out += summary_field_line(
        "ISO avg share peak",
        fmt::format("{:8.1f} %   (decayed over ISO_PERIOD)", iso.peak_share_pct));
    out += summary_field_line(
        "ISO CPU share mean",
        fmt::format("{:8.1f} %   (all audio threads, whole run)", iso.mean_share_pct));
  }
  out += kStarLine;
}

std::string opt_cell(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

std::string opt_cell(const std::optional<Percentile>& p) {
  return p ? percentile_text(*p) : "-";
}

void client_table(std::string& out, const RunResult& r) {
  out += " Per client (usecs):\n";
  if (r.client_results.empty()) {
    out += "   (no clients)\n";
    return;
  }
  bool any_error = false;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"idx", "name", "cycles", "delay_max", "delay_p99", "cycle_max", "duration_max",
                  "over_period", "late", "error"});
  for (const ClientResult& c : r.client_results) {
    const ClientSummaries& m = c.summary;
    rows.push_back({std::to_string(c.index), one_line(c.name), std::to_string(c.cycles),
                    opt_cell(m.delay.max_us), opt_cell(m.delay.p99), opt_cell(m.cycle.max_us),
                    opt_cell(m.duration.max_us), std::to_string(c.over_spare),
                    std::to_string(c.late), one_line(c.error)});
    any_error = any_error || !c.error.empty();
  }
  const size_t columns = any_error ? rows.front().size() : rows.front().size() - 1;
  std::vector<size_t> width(columns, 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < columns; ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < columns; ++i) {
      const bool left = i == 1 || i == 9;  // name and error are text
      line += "  ";
      line +=
          left ? fmt::format("{:<{}}", row[i], width[i]) : fmt::format("{:>{}}", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
}

std::string opt_i64(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

// Every cycle decomposed hop by hop: the distributions of the hops, then what did not run.
// Columns: the first left-aligned, the others right-aligned, each as wide as its widest cell.
void table_lines(std::string& out, const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      line += "  ";
      line += i == 0 ? fmt::format("{:<{}}", row[i], width[i])
                     : fmt::format("{:>{}}", row[i], width[i]);
    }
    out += line + "\n";
  }
}

void hop_table(std::string& out, const RunResult& r) {
  const CycleTableResult& t = r.cycle_table;
  if (!t.present) return;
  out += fmt::format(
      "\n Cycles hop by hop (usecs): {} cycles, {} complete, {} missed ({} past the deadline, "
      "{}{} with a client that did not run){}\n",
      t.cycles, t.complete, t.missed, t.deadline_missed,
      t.out_of_order > 0 ? fmt::format("{} out of chain order, ", t.out_of_order) : "",
      t.missed - t.deadline_missed - t.out_of_order,
      t.rows_lost > 0 ? fmt::format(", {} rows lost", t.rows_lost) : "");
  out += "   times: " + one_line(t.time_source) + "\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"hop", "count", "min", "p50", "p99", "p99.9", "max"});
  for (const HopSeries& h : t.hops) {
    const MetricSummary m = summarize(h.us);
    rows.push_back({one_line(h.label), std::to_string(m.count), opt_i64(m.min_us), opt_cell(m.p50),
                    opt_cell(m.p99), opt_cell(m.p999), opt_i64(m.max_us)});
  }
  table_lines(out, rows);
  for (const auto& d : t.dsp_nominal) {
    out += fmt::format(
        "   c{:02d} DSP against its nominal {:.0f} usecs: p50 {:+.1f} %, max {:+.1f} %, {:.1f} % "
        "of cycles within 100 usecs of nominal\n",
        d.client, d.nominal_us, d.overhead_p50_pct, d.overhead_max_pct, d.within_100us_pct);
  }
  for (size_t k = 0; k < t.not_run.size(); ++k) {
    if (t.not_run[k] == 0) continue;
    out += fmt::format(
        "   c{:02d} did not run in {} cycle(s) (the first of the chain not to run "
        "in {})\n",
        k + 1, t.not_run[k], k < t.not_run_first.size() ? t.not_run_first[k] : 0);
  }
  if (t.out_of_order > 0) {
    out += fmt::format(
        "   {} cycle(s) ran out of chain order within the deadline: a client entered before its "
        "upstream exited (JACK2 started it from the upstream's late signal for the previous "
        "cycle), so it read stale buffers; its wake-up hop is not counted\n",
        t.out_of_order);
  }
}

// The xrun events outside the chain (engine/result/xrun_causes.hpp): how many, the first ones
// with their cause.
void outside_lines(std::string& out, const RunResult& r) {
  if (!r.xrun_causes) return;
  const XrunAttribution& a = *r.xrun_causes;
  if (!a.causes.empty()) {
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"cause (jackd's lines that fell to the event)", "in the chain", "outside it"});
    for (const CauseCount& c : causes_by_events(a)) {
      rows.push_back({cause_text(c), std::to_string(c.chain), std::to_string(c.outside)});
    }
    out += "   causes of the xrun events:\n";
    table_lines(out, rows);
  }
  out += fmt::format(
      "   outside the chain: {} xrun event(s) (reports no chain event explains: later than {} "
      "cycles after an event's last cycle, or before every event)\n",
      a.outside_events, report_lag_cycles(r.period_us / 1e3));
  constexpr size_t kNamed = 5;
  for (size_t i = 0; i < a.outside.size() && i < kNamed; ++i) {
    const OutsideXrun& o = a.outside[i];
    out += fmt::format("     {:.3f} s{}: {} ({} callback(s), {} line(s))\n", o.t_s,
                       o.cycle ? fmt::format(" (cycle {})", *o.cycle) : "",
                       outside_cause_text(a, o), o.callbacks, o.lines);
  }
  if (a.outside_events > kNamed) {
    out += fmt::format("     and {} more (run.json lists the first {})\n",
                       a.outside_events - kNamed, a.outside.size());
  }
}

// Every xrun source counted against the cycle table's xrun events (engine/result/
// xrun_cycles.hpp), naming the first events each source missed.
void xrun_cycle_table(std::string& out, const RunResult& r) {
  const XrunCycles& x = r.xrun_cycles;
  if (!x.present) return;
  out += fmt::format(
      "\n Xrun events by cycle: {} xrun cycle(s) in {} event(s) of the chain (an xrun cycle "
      "missed its deadline, ran out of chain order or had a client that did not run; "
      "consecutive ones are one event), {} outside it\n",
      x.cycles, x.events, x.outside_events);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"source", "reports", "events reported", "missed", "reports w/o chain event",
                  "latest report after the deadline"});
  for (const SourceTally& t : x.sources) {
    std::string lag = "-";
    if (t.lag_max_cycles) {
      lag = fmt::format("{} cycle(s), {:.1f} ms", *t.lag_max_cycles, t.lag_max_ms.value_or(0));
    } else if (t.lag_max_ms) {
      lag = fmt::format("{:.1f} ms", *t.lag_max_ms);
    }
    rows.push_back({one_line(t.label), fmt::format("{} {}", t.reports, one_line(t.unit)),
                    fmt::format("{} of {}", t.events_reported, t.events_judged),
                    std::to_string(t.events_missed), std::to_string(t.reports_unmatched), lag});
  }
  table_lines(out, rows);
  constexpr size_t kNamed = 5;
  for (const SourceTally& t : x.sources) {
    if (t.until_s) {
      out += fmt::format("   {}: its list is cut; events judged up to {:.3f} s\n",
                         one_line(t.label), *t.until_s);
    }
    if (t.missed.empty()) continue;
    std::string names;
    for (size_t i = 0; i < t.missed.size() && i < kNamed; ++i) {
      const XrunRun& m = t.missed[i];
      names += fmt::format("{}cycle {}{} at {:.3f} s", i == 0 ? "" : ", ", m.first,
                           m.last > m.first ? fmt::format("-{}", m.last) : "", m.t_s);
    }
    if (t.events_missed > kNamed) {
      names += fmt::format(" and {} more (run.json names the first {})", t.events_missed - kNamed,
                           t.missed.size());
    }
    out += fmt::format("   not reported by {}: {}\n", one_line(t.label), names);
  }
  outside_lines(out, r);
}

// Length of the number at the start of `s` ("18", "-3", "36.3", ">=20001", "1e3"), 0 if none.
size_t number_prefix(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '>' || s[i] == '<')) {
    ++i;
    if (i < s.size() && s[i] == '=') ++i;
  }
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    const size_t exp_start = j;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    if (j > exp_start) i = j;
  }
  return i;
}

std::string normalize_value(std::string_view v) {
  v = trim(v);
  if (!v.empty() && v.front() == '(') {
    const size_t close = v.find(')');
    if (close != std::string_view::npos) v = trim(v.substr(1, close - 1));
  }
  const size_t n = number_prefix(v);
  if (n > 0 && (n == v.size() || is_space(v[n]))) return std::string(v.substr(0, n));
  return std::string(v);
}

std::optional<SummaryLine> parse_line(std::string_view line) {
  line = trim(line);
  if (line.empty()) return std::nullopt;
  if (line.front() == '*') {  // a title between stars, or a line of stars (nothing)
    size_t begin = 0, end = line.size();
    while (begin < end && line[begin] == '*') ++begin;
    while (end > begin && line[end - 1] == '*') --end;
    const std::string_view title = trim(line.substr(begin, end - begin));
    if (title.empty()) return std::nullopt;
    return SummaryLine{"***", std::string(title), "", 0};
  }
  if (line.front() == '#') return SummaryLine{"#", std::string(trim(line.substr(1))), "", 0};
  if (starts_with(line, "==>")) {
    std::string_view name = line.substr(3);
    if (ends_with(name, "<==")) name.remove_suffix(3);
    return SummaryLine{"==>", std::string(trim(name)), "", 0};
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view left = line.substr(0, colon);
  size_t end = left.size();
  bool dot = false;
  while (end > 0 && (left[end - 1] == '.' || is_space(left[end - 1]))) {
    dot = dot || left[end - 1] == '.';
    --end;
  }
  if (!dot || end == 0) return std::nullopt;
  const std::string_view right = line.substr(colon + 1);
  return SummaryLine{std::string(left.substr(0, end)), normalize_value(right),
                     std::string(trim(right)), 0};
}

}  // namespace

std::string summary_status_text(const RunResult& r) {
  return summary_status_text(run_status_name(r.status), r.status_detail);
}

std::string summary_status_text(const std::string& status, const std::string& detail) {
  std::string s = " " + one_line(status);
  if (!detail.empty()) s += " (" + one_line(detail) + ")";
  return s;
}

std::string summary_field_line(std::string_view label, std::string_view value) {
  std::string s = " ";
  s += label;
  s += ' ';
  // Dots on odd indexes, as jack_test had them, and a space just before the ':'.
  while (s.size() < kSummaryColonIndex) {
    s += (s.size() % 2 == 1 && s.size() + 1 < kSummaryColonIndex) ? '.' : ' ';
  }
  s += ':';
  s += value;
  s += '\n';
  return s;
}

// The audio threads as the kernel showed them (chrt -p / schedtool style), one line each: what
// was measured is only meaningful under the scheduling it actually ran with. The start's
// reading, then "end: same" or the end's reading ("end: gone" when it was not read again).
void thread_table(std::string& out, const std::vector<AudioThread>& start,
                  const std::vector<AudioThread>& end) {
  if (start.empty() && end.empty()) return;
  out += " Audio threads (start; end when it differs):\n";
  size_t width = 12;  // "server" and the clients' names (xrunlab-8790-0-c01) line up
  for (const auto* list : {&start, &end}) {
    for (const AudioThread& a : *list) width = std::max(width, one_line(a.role).size());
  }
  auto state = [](const AudioThread& a) {
    return one_line(format_thread_line(a.sched)) +
           (a.mismatch.empty() ? ""
                               : "  <-- NOT " + one_line(a.expected) + ": " + one_line(a.mismatch));
  };
  std::vector<bool> shown(end.size(), false);
  for (const AudioThread& s : start) {
    std::string at_end = "gone (not read at the end)";
    for (size_t i = 0; i < end.size(); ++i) {
      if (shown[i] || end[i].role != s.role) continue;
      shown[i] = true;
      at_end = state(end[i]) == state(s) ? "same" : state(end[i]);
      break;
    }
    out += fmt::format("   {:<{}} {}  end: {}\n", one_line(s.role), width, state(s), at_end);
  }
  for (size_t i = 0; i < end.size(); ++i) {
    if (!shown[i]) {
      out += fmt::format("   {:<{}} (not read at the start)  end: {}\n", one_line(end[i].role),
                         width, state(end[i]));
    }
  }
}

// The audio threads' page faults between the two readings (the same tid at start and at end):
// a fault in a realtime thread is a stall, and the clients lock their memory as it is first
// touched (mlockall MCL_ONFAULT), so their process threads should show none in the window.
// Nothing when no thread was read twice with its counts (a run.json from before they were kept).
std::string fault_line(const std::vector<AudioThread>& start, const std::vector<AudioThread>& end) {
  uint64_t minor = 0, major = 0;
  size_t compared = 0;
  std::vector<std::string> faulted;
  for (const AudioThread& e : end) {
    if (e.sched.minor_faults < 0 || e.sched.major_faults < 0) continue;
    for (const AudioThread& s : start) {
      if (s.sched.tid != e.sched.tid || s.sched.pid != e.sched.pid || s.sched.minor_faults < 0 ||
          s.sched.major_faults < 0 || e.sched.minor_faults < s.sched.minor_faults ||
          e.sched.major_faults < s.sched.major_faults) {
        continue;
      }
      ++compared;
      const auto mi = static_cast<uint64_t>(e.sched.minor_faults - s.sched.minor_faults);
      const auto ma = static_cast<uint64_t>(e.sched.major_faults - s.sched.major_faults);
      minor += mi;
      major += ma;
      if (mi + ma > 0 && faulted.size() < 8) {
        faulted.push_back(fmt::format("{} {}", one_line(e.role), mi + ma));
      }
      break;
    }
  }
  if (compared == 0) return "";
  std::string out =
      fmt::format(" Page faults of the {} audio threads from start to end: {} minor, {} major",
                  compared, minor, major);
  if (!faulted.empty()) {
    out += " (";
    for (size_t i = 0; i < faulted.size(); ++i) out += (i ? ", " : "") + faulted[i];
    if (minor + major > 0 && faulted.size() == 8) out += ", ...";
    out += ")";
  }
  return out + "\n";
}

namespace {

// A bench load's jobs for its line of the loads: ", 412 jobs, 48.6 ms mean wall (min 45.1, CPU
// 47.9 ms)", or ", 0 jobs (none finished in its 1.2 s)".
std::string bench_did(const BenchFigures& b, double duration_s) {
  if (b.jobs == 0 || !b.job_wall_ms_mean) {
    return fmt::format(", 0 jobs (none finished in its {:.1f} s)", duration_s);
  }
  std::string did = fmt::format(", {} jobs, {:.1f} ms mean wall", b.jobs, *b.job_wall_ms_mean);
  std::string detail;
  if (b.job_wall_ms_min) detail = fmt::format("min {:.1f}", *b.job_wall_ms_min);
  if (b.job_cpu_ms_mean) {
    detail += fmt::format("{}CPU {:.1f} ms", detail.empty() ? "" : ", ", *b.job_cpu_ms_mean);
  }
  return detail.empty() ? did : did + " (" + detail + ")";
}

}  // namespace

// The background loads and what each did, so two runs "with compile" can be seen to have had
// the same pressure.
std::string load_lines(const RunResult& r) {
  if (!r.loads || r.loads->empty()) return " Loads: none (idle machine)\n";
  std::string out = " Loads:\n";
  for (const LoadRecord& l : *r.loads) {
    std::string did;
    if (const std::optional<LoadReport>& rep = l.report) {  // xrunlab-load's own report
      did = fmt::format("cpu {:.1f} s", rep->cpu_user_s + rep->cpu_system_s);
      if (rep->iterations > 0) did += fmt::format(", {} iterations", rep->iterations);
      if (rep->bytes > 0) {
        did += fmt::format(", {:.1f} MiB", static_cast<double>(rep->bytes) / (1024.0 * 1024.0));
      }
      if (rep->bench) {  // its units are its jobs: their times say more than their rate
        did += bench_did(*rep->bench, rep->duration_s);
      } else if (!rep->unit_name.empty()) {  // x11: frames drawn, top: refreshes
        did += fmt::format(", {} {}", rep->units, rep->unit_name);
        if (rep->units_s > 0) {
          did += fmt::format(" in {:.1f} s ({:.0f}/s)", rep->units_s,
                             static_cast<double>(rep->units) / rep->units_s);
        } else {  // e.g. x11 stopped before glxgears' first 5-s report
          did += fmt::format(" (none reported in its {:.1f} s)", rep->duration_s);
        }
      }
    } else {
      did = "no report: " + l.error;
    }
    out += fmt::format("   {:<24} nice {:+d}  {}\n", one_line(l.spec), l.nice, one_line(did));
  }
  return out;
}

std::string format_summary(const RunResult& r) {
  std::string out = answer_block(run_answer(r));
  if (!r.scheduling.empty() || !r.threads_start.empty()) {
    out += fmt::format(" Policy: {}{}\n", one_line(r.scheduling),
                       r.policy_spec.empty() ? "" : " (--policy " + one_line(r.policy_spec) + ")");
    out += load_lines(r);
  }
  out += "\n";
  jack_test_block(out, r);
  own_block(out, r);
  client_table(out, r);
  hop_table(out, r);
  xrun_cycle_table(out, r);
  if (!r.threads_start.empty() || !r.threads_end.empty()) {
    out += "\n";
    thread_table(out, r.threads_start, r.threads_end);
    out += fault_line(r.threads_start, r.threads_end);
  }
  if (!r.warnings.empty()) {
    out += '\n';
    for (const std::string& w : r.warnings) out += "warning: " + one_line(w) + "\n";
  }
  return out;
}

std::string terminal_result(const RunResult& r, const std::string& dir, Verbosity v) {
  if (v == Verbosity::kVerbose) return format_summary(r) + "\nResults: " + dir + "\n";
  const RunAnswer a = run_answer(r);
  std::string out = "xrunlab: " + a.verdict + "\n";
  if (v == Verbosity::kQuiet) return out + "Results: " + dir + "\n";
  std::string jack;
  for (size_t i = 1; i < a.figures.size(); ++i) {
    jack += (i > 1 ? ", " : "") + a.figures[i].label + " " + a.figures[i].value;
  }
  out += "  jack_test: " + jack + "\n";
  if (!a.ramp.empty()) out += "  " + a.ramp + "\n";
  if (!a.causes.empty()) out += "  " + a.causes + "\n";
  for (const std::string& w : a.witnesses) {
    if (w.find("(agrees)") == std::string::npos) out += "  witness " + w + "\n";
  }
  if (!a.worst_cycle.empty()) out += "  " + a.worst_cycle + "\n";
  if (!a.floor.empty()) out += "  " + a.floor + "\n";
  for (size_t i = 0; i < a.warnings.size() && i < kTerminalWarnings; ++i) {
    out += "warning: " + one_line(a.warnings[i]) + "\n";
  }
  if (a.warnings.size() > kTerminalWarnings) {
    out += fmt::format("warning: ... and {} more in summary.txt\n",
                       a.warnings.size() - kTerminalWarnings);
  }
  out += "  every figure: summary.txt (-v prints it here); one page to share: report.html\n";
  return out + "Results: " + dir + "\n";
}

std::vector<SummaryLine> parse_summary_lines(std::string_view text) {
  std::vector<SummaryLine> out;
  const std::vector<std::string_view> all = lines(text);
  for (size_t i = 0; i < all.size(); ++i) {
    if (auto field = parse_line(all[i])) {
      field->line = i + 1;
      out.push_back(std::move(*field));
    }
  }
  return out;
}

std::map<std::string, std::string> parse_summary(std::string_view text) {
  std::map<std::string, std::string> out;
  for (SummaryLine& l : parse_summary_lines(text)) {
    if (l.label != "#" && l.label != "==>" && l.label != "***") {
      out.emplace(std::move(l.label), std::move(l.value));
    }
  }
  return out;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/run_json.hpp"

#include <fmt/core.h>

#include <string_view>
#include <type_traits>

#include "engine/base/json_read.hpp"

namespace xrunlab {
namespace {

using json = nlohmann::ordered_json;

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json percentile(const std::optional<Percentile>& p) {
  if (!p) return nullptr;
  return {{"value_us", p->value_us}, {"exact", p->exact}};
}

// When each step of the run ended: [{"phase": "server", "ended_s": 0.41}, ...].
json phases_json(const std::vector<std::pair<std::string, double>>& phases) {
  json out = json::array();
  for (const auto& [phase, t] : phases) out.push_back({{"phase", phase}, {"ended_s", t}});
  return out;
}

json worst_list(const std::vector<telemetry::WorstCycle>& worst) {
  json out = json::array();
  for (const auto& w : worst) {
    out.push_back({{"t_s", static_cast<double>(w.t_us) / 1e6},
                   {"frame", w.frame},
                   {"delay_us", w.delay_us},
                   {"duration_us", w.duration_us},
                   {"cycle_us", w.cycle_us}});
  }
  return out;
}

json threads_json(const std::vector<AudioThread>& threads) {
  json out = json::array();
  for (const AudioThread& a : threads) {
    json t = json(to_json(a.sched));
    t["role"] = a.role;
    t["expected"] = a.expected;
    t["in_requested_class"] = a.mismatch.empty();
    t["mismatch"] = a.mismatch;
    out.push_back(t);
  }
  return out;
}

json client_json(const ClientResult& c) {
  return {{"index", c.index},
          {"name", c.name},
          {"pid", c.pid},
          {"activated", c.hello},
          {"rt_tid", c.rt_tid},
          {"sched_error", c.sched_error},
          {"final_report", c.final},
          {"error", c.error},
          {"dsp",
           {{"stages", c.dsp_stages},
            {"target_us", c.dsp_target_us},
            {"ns_per_stage", c.dsp_ns_per_stage}}},
          {"cycles", c.cycles},
          {"cycles_total", c.cycles_total},
          {"ring_dropped", c.ring_dropped},
          {"injected_overruns", c.injected},
          {"delay_over_spare", c.over_spare},
          {"delay_over_1000us", c.over_1000},
          {"late_cycles", c.late},
          {"delay_us", to_json(c.summary.delay)},
          {"delay_dll_us", to_json(c.summary.delay_dll)},
          {"signal_us", to_json(c.summary.signal)},
          {"unreferenced_cycles", c.unreferenced},
          {"duration_us", to_json(c.summary.duration)},
          {"cycle_us", to_json(c.summary.cycle)},
          {"worst_cycles_limit", kWorstCyclesKept},
          {"worst_cycles_per_second_limit", telemetry::kWorstPerSecond},
          {"worst_cycles", worst_list(c.worst)}};
}

}  // namespace

const std::vector<std::string>& client_second_columns() {
  static const std::vector<std::string> columns = {
      "second",          "cycles",       "delay_min_us", "delay_mean_us", "delay_max_us",
      "duration_max_us", "cycle_max_us", "over_spare",   "over_1000",     "late"};
  return columns;
}

json client_second_row(const ClientSecond& s) {
  return {s.second,
          s.cycles,
          opt(s.delay_min_us),
          opt(s.delay_mean_us),
          opt(s.delay_max_us),
          opt(s.duration_max_us),
          opt(s.cycle_max_us),
          s.over_spare,
          s.over_1000,
          s.late};
}

json system_second_json(const SystemSecond& s) {
  return {{"t_s", s.t_s},
          {"user_pct", s.user_pct},
          {"nice_pct", s.nice_pct},
          {"system_pct", s.system_pct},
          {"iowait_pct", s.iowait_pct},
          {"irq_pct", s.irq_pct},
          {"softirq_pct", s.softirq_pct},
          {"intr_per_s", s.intr_per_s},
          {"ctxt_per_s", s.ctxt_per_s},
          {"dsp_load_pct", opt(s.dsp_load_pct)},
          {"cpu_accounted_pct", opt(s.cpu_accounted_pct)},
          {"xruns", s.xruns}};
}

json to_json(const MetricSummary& m) {
  return {{"count", m.count},           {"min", opt(m.min_us)},     {"max", opt(m.max_us)},
          {"mean", opt(m.mean_us)},     {"p50", percentile(m.p50)}, {"p99", percentile(m.p99)},
          {"p99_9", percentile(m.p999)}};
}

json hop_json(const HopSeries& h) {
  json bins = json::array();
  for (const auto& [v, n] : h.us.nonzero()) bins.push_back({v, n});
  json out = {{"key", h.key}, {"kind", h.kind}, {"label", h.label}, {"client", h.client}};
  out["summary_us"] = to_json(summarize(h.us));
  out["below_zero"] = h.us.underflow_count();
  const std::optional<int64_t> min = h.us.min();
  out["below_zero_min"] = h.us.underflow_count() > 0 && min && *min < 0 ? json(*min) : json();
  out["above_bound_dropped"] = h.us.overflow_dropped();
  // Values from -negative_bound_us up are in the bins (the slack's); below_zero counts every
  // negative one, those below the bins only by their count and below_zero_min.
  out["negative_bound_us"] = h.us.negative_bound_us();
  out["bins"] = std::move(bins);  // [value_us, count], exact (1 usec bins and kept overflow)
  return out;
}

json cycle_row_json(const CycleRow& w) {
  json clients = json::array();
  for (const CycleClient& c : w.clients) {
    clients.push_back(c.ran ? json{{"entry_ns", c.entry_ns}, {"exit_ns", c.exit_ns}} : json());
  }
  return {{"id", w.id},
          {"t_s", w.t_s},
          {"jackd_wake_ns", opt(w.jackd_wake_ns)},
          {"clients", std::move(clients)},
          {"end_ns", opt(w.end_ns)},
          {"deadline_ns", w.deadline_ns},
          {"slack_ns", opt(w.slack_ns)},
          {"out_of_order", w.out_of_order},
          {"missed", w.missed}};
}

json cycles_json(const CycleTableResult& t) {
  if (!t.present) return nullptr;
  json not_run = json::array();
  for (size_t k = 0; k < t.not_run.size(); ++k) {
    not_run.push_back({{"client", k + 1},
                       {"cycles", t.not_run[k]},
                       {"first_not_to_run", k < t.not_run_first.size() ? t.not_run_first[k] : 0}});
  }
  json hops = json::array();
  for (const HopSeries& h : t.hops) hops.push_back(hop_json(h));
  json nominal = json::array();
  for (const auto& d : t.dsp_nominal) {
    nominal.push_back({{"client", d.client},
                       {"nominal_us", d.nominal_us},
                       {"overhead_p50_pct", d.overhead_p50_pct},
                       {"overhead_max_pct", d.overhead_max_pct},
                       {"within_100us_pct", d.within_100us_pct}});
  }
  json worst = json::array(), missed = json::array();
  for (const CycleRow& w : t.worst) worst.push_back(cycle_row_json(w));
  for (const CycleRow& w : t.missed_rows) missed.push_back(cycle_row_json(w));
  return {{"time_source", t.time_source},
          {"resolution_us", t.resolution_us},
          {"cycles", t.cycles},
          {"complete", t.complete},
          {"missed", t.missed},
          {"deadline_missed", t.deadline_missed},
          {"out_of_order", t.out_of_order},
          {"rows_lost", t.rows_lost},
          {"no_jackd_wake", t.no_jackd_wake},
          {"clients_not_run", std::move(not_run)},
          {"dsp_nominal", std::move(nominal)},
          {"hops", std::move(hops)},
          {"worst", std::move(worst)},
          {"missed_rows", std::move(missed)},
          {"missed_rows_total", t.missed_rows_total}};
}

json xrun_run_json(const XrunRun& x) {
  return {{"first", x.first},
          {"last", x.last},
          {"t_s", x.t_s},
          {"deadline_t_s", x.deadline_t_s},
          {"time_estimated", x.time_estimated}};
}

json xrun_cycles_json(const XrunCycles& x) {
  if (!x.present) return nullptr;
  json sources = json::array();
  for (const SourceTally& t : x.sources) {
    json missed = json::array();
    for (const XrunRun& m : t.missed) missed.push_back(xrun_run_json(m));
    sources.push_back({{"key", t.key},
                       {"label", t.label},
                       {"unit", t.unit},
                       {"rule", t.rule},
                       {"reports", t.reports},
                       {"reports_without_xrun_cycle", t.reports_unmatched},
                       {"events_judged", t.events_judged},
                       {"events_reported", t.events_reported},
                       {"events_missed", t.events_missed},
                       {"missed", std::move(missed)},
                       {"missed_named_limit", SourceTally::kMissedNamed},
                       {"lag_max_cycles", opt(t.lag_max_cycles)},
                       {"lag_max_ms", opt(t.lag_max_ms)},
                       {"judged_until_s", opt(t.until_s)}});
  }
  return {{"definition",
           "an xrun cycle is a cycle of the table that missed its deadline or in which a client "
           "did not run; an xrun event is a run of consecutive xrun cycles"},
          {"cycles", x.cycles},
          {"events", x.events},
          {"heard_within_cycles", XrunCycles::kHeardWithinCycles},
          {"sources", std::move(sources)}};
}

json jack_test_json(const JackTestFields& f) {
  if (f.definitions.empty()) return nullptr;
  return {{"definitions", f.definitions},
          {"wake_source", f.wake_source},
          {"wake_resolution_us", f.wake_resolution_us},
          {"wakes", f.wakes},
          {"delay_max_us", opt(f.delay_max_us)},
          {"cycle_max_us", opt(f.cycle_max_us)},
          {"cycle_max_all_us", opt(f.cycle_max_all_us)},
          {"delay_over_spare", f.delay_over_spare},
          {"delay_over_1000us", f.delay_over_1000},
          {"spare_min_us", opt(f.spare_min_us)},
          {"spare_last_us", opt(f.spare_last_us)},
          {"dsp_load_pct", opt(f.dsp_load_pct)}};
}

json to_json(const RunResult& r) {
  json clients = json::array();
  for (const ClientResult& c : r.client_results) clients.push_back(client_json(c));
  uint64_t client_rows = r.client_rows_flushed;
  for (const ClientResult& c : r.client_results) client_rows += c.seconds.size();
  const json per_second = {{"file", kSecondsFileName},
                           {"client_rows", client_rows},
                           {"system_rows", r.system_flushed.n + r.system.size()}};
  json events = json::array();
  for (const XrunEvent& e : r.xruns.events) {
    events.push_back({{"t_s", e.t_s}, {"frame", e.frame}, {"callbacks", e.callbacks}});
  }
  json audio = nullptr;
  if (r.audio) {
    const AudioResult& a = *r.audio;
    json glitches = json::array();
    for (const GlitchResult& g : a.glitches) {
      glitches.push_back(
          {{"t_s", g.t_s},
           {"kind", g.report.kind},
           {"frame", g.report.frame},
           {"at_frame", g.report.at_frame},
           {"jump_frames", g.report.jump},
           {"length_frames", g.report.length},
           {"max_deviation", g.report.max_deviation},
           {"excerpt", g.report.excerpt.empty() ? json() : json("audio/" + g.report.excerpt)},
           {"nearest_xrun_t_s", opt(g.xrun_t_s)},
           {"xrun_distance_ms", opt(g.xrun_distance_ms)},
           {"matched_xrun", g.matched},
           {"late_clients", g.late_clients},
           {"driver_xrun", g.driver_xrun},
           {"cycle", opt(g.cycle)},
           {"xrun_cycle", opt(g.xrun_cycle)}});
    }
    const bool file = !a.source.empty();
    const std::string signal =
        file ? "port 1: the file " + a.source +
                   ", looped from its first frame, played by the first client, passed through "
                   "exactly by every client, checked by the last against the same file"
             : "port 1: a sine of about 1 kHz whose phase is known at every frame, "
               "played by the first client, passed through exactly by every client, "
               "checked by the last";
    audio = {
        {"signal", signal},
        {"reference", file ? "file" : "test-signal"},
        {"source", file ? json(a.source) : json()},
        // Checked: the tail's totals came and it could compare against the reference.
        {"checked", a.final_received && a.totals.not_checked.empty()},
        {"not_checked", a.totals.not_checked.empty() ? json() : json(a.totals.not_checked)},
        {"frames_received", a.totals.received_frames},
        {"block_frames", a.totals.block_frames},
        {"judged_blocks", a.totals.judged_blocks},
        {"unjudged_blocks", a.totals.unjudged_blocks},
        {"frames_checked", a.totals.frames},
        {"unlocked_frames", a.totals.unlocked_frames},
        {"glitches", a.totals.glitches},
        {"audible_events", a.events},
        {"delta_max", a.totals.delta_max},
        {"glitches_without_xrun", a.glitches_without_xrun},
        {"xruns_without_glitch", a.xruns_without_glitch},
        {"matched_by", a.matched_by},
        {"match_window_ms",
         a.matched_by == "window" ? json(AudioResult::kMatchWindowMs) : json(nullptr)},
        {"ring_dropped_chunks", a.totals.ring_dropped},
        {"recording", a.totals.recording.empty() ? json() : json("audio/" + a.totals.recording)},
        {"recorded_frames", a.totals.recorded_frames},
        {"record_format", a.totals.record_format.empty() ? json() : json(a.totals.record_format)},
        {"clipped_samples", a.totals.clipped_samples},
        {"check_ns_per_frame", a.totals.check_ns_per_frame},
        {"complete", a.final_received},
        {"glitch_list_total", a.glitches_total()},
        {"glitch_list_kept_limit", a.glitches_limit},
        {"glitch_list", glitches}};
  }
  json graph = json::array();
  for (const auto& [from, to] : r.graph) graph.push_back({{"from", from}, {"to", to}});
  return {
      {"schema_version", r.schema_version},
      {"xrunlab_version", r.xrunlab_version},
      {"command_line", r.command_line},
      {"spec", r.spec},
      {"host", r.host},
      {"jack",
       {{"server_name", r.server_name},
        {"jackd_argv", r.jackd_argv},
        {"backend", r.backend.is_null() ? json::object() : json(r.backend)},
        {"graph", graph}}},
      {"started_utc", r.started_utc},
      {"ended_utc", r.ended_utc},
      {"status", run_status_name(r.status)},
      {"status_detail", r.status_detail},
      {"exit_code", r.exit_code},
      {"scheduling",
       {{"policy_spec", r.policy_spec},
        {"label", r.scheduling},
        {"threads_start", threads_json(r.threads_start)},
        {"threads_end", threads_json(r.threads_end)},
        {"iso_emulation", json(r.iso_emulation)},
        {"rt_throttle", json(r.rt_throttle)}}},
      {"loads", json(r.loads)},
      {"baseline", json(r.baseline)},
      {"dma_latency", json(r.dma_latency)},
      {"affinity", json(r.affinity)},
      {"explain", json(r.explain)},
      {"trace_on_xrun", json(r.trace_on_xrun)},
      {"rt_time_limit", json(r.rt_time_limit)},
      {"runaway", json(r.runaway)},
      {"logs", json(r.logs)},
      {"settings",
       {{"clients", r.clients},
        {"ports", r.ports},
        {"frames", r.frames},
        {"rate_hz", r.rate},
        {"period_us", r.period_us},
        {"spare_time_us", r.spare_us}}},
      {"measurement",
       {{"seconds_ran", r.seconds_ran},
        {"delay_reference", r.delay_reference},
        {"delay_resolution_us", r.delay_resolution_us},
        {"delay_reference_exact", r.backend.value("reference_exact", false)},
        {"dll_reference",
         "jack_get_cycle_times() current_usecs (DLL estimate; "
         "unreliable on the dummy backend after xruns)"},
        {"startup_s", r.startup_s},
        {"phases", phases_json(r.phases_s)},
        {"engine_peak_rss_kib", r.engine_peak_rss_kib},
        {"engine_rss_shmem_kib_at_window_end", opt(r.engine_rss_shmem_kib)},
        {"jackd_cpu_pct", opt(r.jackd_cpu_pct)}}},
      {"totals",
       {{"timeout_count", r.timeout_count},
        {"xrun_count", r.xrun_count},
        {"delay_over_spare", r.delay_over_spare},
        {"delay_over_1000us", r.delay_over_1000},
        {"injected_overruns", r.injected},
        {"delay_us", to_json(r.delay)},
        {"delay_dll_us", to_json(r.delay_dll)},
        {"duration_us", to_json(r.duration)},
        {"cycle_us", to_json(r.cycle)},
        {"avg_dsp_load_pct", opt(r.avg_dsp_load)},
        {"avg_cpu_user_pct", r.avg_user},
        {"avg_cpu_nice_pct", r.avg_nice},
        {"avg_cpu_system_pct", r.avg_system},
        {"avg_cpu_iowait_pct", r.avg_iowait},
        {"avg_cpu_irq_pct", r.avg_irq},
        {"avg_cpu_softirq_pct", r.avg_softirq},
        {"avg_interrupt_rate", r.avg_intr},
        {"avg_context_switch_rate", r.avg_ctxt}}},
      {"xruns",
       {{"monitor_events", r.xruns.monitor_events},
        {"monitor_callbacks", r.xruns.monitor_callbacks},
        {"log_client_events", r.xruns.log_client_events},
        {"log_client_lines", r.xruns.log_client_lines},
        {"log_driver_xruns", r.xruns.log_driver_xruns},
        {"log_driver_max_delay_us", r.xruns.log_driver_max_delay_us},
        {"log_timed_out_lines", r.xruns.log_timed_out_lines},
        {"card_xruns", r.xruns.card_xruns ? json(*r.xruns.card_xruns) : json()},
        {"driver_xruns_reach_monitor", r.driver_xruns_reach_monitor},
        {"late_clients", r.xruns.late_clients},
        {"events_total", r.xruns.events_total()},
        {"events_kept_limit", r.xruns.events_limit},
        {"events", events}}},
      {"jack_test", jack_test_json(r.jack_test)},
      {"cycles", cycles_json(r.cycle_table)},
      {"xrun_cycles", xrun_cycles_json(r.xrun_cycles)},
      {"audio", audio},
      {"clients", clients},
      {"per_second", per_second},
      {"warnings", r.warnings},
  };
}

// ---- run.json read back ---------------------------------------------------------------------
//
// One reader per part of to_json above, in the same order. Every key is read by its name; a key
// that is absent or null keeps the model's default (older runs lack keys, see
// run_result_from_json), a key of the wrong type refuses the whole document, naming the key.

// The reading kit is engine/base/json_read.hpp's; RunStatus reads as one of its words.
template <>
struct JsonValue<RunStatus> {
  static RunStatus of(const nlohmann::json& v, const std::string& path) {
    if (!v.is_string()) json_refuse(path, "a string", v);
    const std::optional<RunStatus> s = parse_run_status(v.get_ref<const std::string&>());
    if (!s) {
      throw JsonRefused(fmt::format("'{}' is not a run status ({}; it is '{}')", path,
                                    "running, incomplete, completed, interrupted, failed or killed",
                                    v.get<std::string>()));
    }
    return *s;
  }
};

namespace {

using in_json = nlohmann::json;
using Object = JsonObject;

// run.json writes file names inside the run folder with their folder ("audio/x.wav").
std::string strip_audio_folder(std::string name) {
  constexpr std::string_view kFolder = "audio/";
  if (name.compare(0, kFolder.size(), kFolder) == 0) name.erase(0, kFolder.size());
  return name;
}

std::optional<Percentile> percentile_from(const Object& o, std::string_view key) {
  const auto p = o.object(key);
  if (!p) return std::nullopt;
  Percentile out;
  p->get("value_us", out.value_us);
  p->get("exact", out.exact);
  return out;
}

MetricSummary summary_from(const Object& o, std::string_view key) {
  MetricSummary m;
  const auto s = o.object(key);
  if (!s) return m;
  s->get("count", m.count);
  s->get("min", m.min_us);
  s->get("max", m.max_us);
  s->get("mean", m.mean_us);
  m.p50 = percentile_from(*s, "p50");
  m.p99 = percentile_from(*s, "p99");
  m.p999 = percentile_from(*s, "p99_9");
  return m;
}

std::vector<AudioThread> threads_from(const Object& o, std::string_view key) {
  std::vector<AudioThread> out;
  o.each(key, [&](const Object& t) {
    AudioThread a;
    t.get("pid", a.sched.pid);
    t.get("tid", a.sched.tid);
    t.get("process", a.sched.process);
    t.get("thread", a.sched.thread);
    t.get("policy_number", a.sched.policy);  // "policy" is its name, derived from the number
    t.get("rt_priority", a.sched.rt_priority);
    t.get("nice", a.sched.nice);
    t.get("dl_runtime_ns", a.sched.dl_runtime_ns);
    t.get("dl_deadline_ns", a.sched.dl_deadline_ns);
    t.get("dl_period_ns", a.sched.dl_period_ns);
    t.get("flags", a.sched.flags);
    t.get("cpus", a.sched.cpus);
    t.get("last_cpu", a.sched.last_cpu);
    t.get("minor_faults", a.sched.minor_faults);
    t.get("major_faults", a.sched.major_faults);
    t.get("role", a.role);
    t.get("expected", a.expected);
    t.get("mismatch", a.mismatch);  // "in_requested_class" is mismatch.empty()
    out.push_back(std::move(a));
  });
  return out;
}

// One per-second row of a client: an array of cells in the order of `columns` (a column this
// version does not know is skipped, one it knows that is missing keeps its default).
ClientSecond client_second_of(const in_json& row, const std::vector<std::string>& columns,
                              const std::string& row_path) {
  if (!row.is_array()) json_refuse(row_path, "an array", row);
  if (row.size() != columns.size()) {
    throw JsonRefused(
        fmt::format("'{}' has {} cells for {} columns", row_path, row.size(), columns.size()));
  }
  ClientSecond s;
  for (size_t k = 0; k < columns.size(); ++k) {
    if (row[k].is_null()) continue;
    const std::string_view name = columns[k];
    auto cell = [&](auto& out_cell) {
      out_cell =
          JsonValue<std::decay_t<decltype(out_cell)>>::of(row[k], json_index_path(row_path, k));
    };
    if (name == "second") {
      cell(s.second);
    } else if (name == "cycles") {
      cell(s.cycles);
    } else if (name == "delay_min_us") {
      cell(s.delay_min_us);
    } else if (name == "delay_mean_us") {
      cell(s.delay_mean_us);
    } else if (name == "delay_max_us") {
      cell(s.delay_max_us);
    } else if (name == "duration_max_us") {
      cell(s.duration_max_us);
    } else if (name == "cycle_max_us") {
      cell(s.cycle_max_us);
    } else if (name == "over_spare") {
      cell(s.over_spare);
    } else if (name == "over_1000") {
      cell(s.over_1000);
    } else if (name == "late") {
      cell(s.late);
    }
  }
  return s;
}

SystemSecond system_second_of(const Object& s) {
  SystemSecond sys;
  s.get("t_s", sys.t_s);
  s.get("user_pct", sys.user_pct);
  s.get("nice_pct", sys.nice_pct);
  s.get("system_pct", sys.system_pct);
  s.get("iowait_pct", sys.iowait_pct);
  s.get("irq_pct", sys.irq_pct);
  s.get("softirq_pct", sys.softirq_pct);
  s.get("intr_per_s", sys.intr_per_s);
  s.get("ctxt_per_s", sys.ctxt_per_s);
  s.get("dsp_load_pct", sys.dsp_load_pct);
  s.get("cpu_accounted_pct", sys.cpu_accounted_pct);
  s.get("xruns", sys.xruns);
  return sys;
}

// Schema 1 held each client's rows in run.json: {"columns": [...], "rows": [[...], ...]}.
std::vector<ClientSecond> per_second_from(const Object& c) {
  std::vector<ClientSecond> out;
  const auto ps = c.object("per_second");
  if (!ps) return out;
  std::vector<std::string> columns;
  ps->get("columns", columns);
  const in_json* rows = ps->find("rows");
  if (rows == nullptr) return out;
  const std::string rows_path = ps->path("rows");
  if (!rows->is_array()) json_refuse(rows_path, "an array", *rows);
  for (size_t i = 0; i < rows->size(); ++i) {
    out.push_back(client_second_of((*rows)[i], columns, json_index_path(rows_path, i)));
  }
  return out;
}

ClientResult client_from(const Object& c) {
  ClientResult r;
  c.get("index", r.index);
  c.get("name", r.name);
  c.get("pid", r.pid);
  c.get("activated", r.hello);
  c.get("rt_tid", r.rt_tid);
  c.get("sched_error", r.sched_error);
  c.get("final_report", r.final);
  c.get("error", r.error);
  if (const auto dsp = c.object("dsp")) {
    dsp->get("stages", r.dsp_stages);
    dsp->get("target_us", r.dsp_target_us);
    dsp->get("ns_per_stage", r.dsp_ns_per_stage);
  }
  c.get("cycles", r.cycles);
  c.get("cycles_total", r.cycles_total);
  c.get("ring_dropped", r.ring_dropped);
  c.get("injected_overruns", r.injected);
  c.get("delay_over_spare", r.over_spare);
  c.get("delay_over_1000us", r.over_1000);
  c.get("late_cycles", r.late);
  r.summary.delay = summary_from(c, "delay_us");
  r.summary.delay_dll = summary_from(c, "delay_dll_us");
  r.summary.signal = summary_from(c, "signal_us");
  c.get("unreferenced_cycles", r.unreferenced);
  r.summary.duration = summary_from(c, "duration_us");
  r.summary.cycle = summary_from(c, "cycle_us");
  // worst_cycles_limit and worst_cycles_per_second_limit are this version's bounds
  // (kWorstCyclesKept, telemetry::kWorstPerSecond), the same in older files.
  c.each("worst_cycles", [&](const Object& w) {
    telemetry::WorstCycle cycle;
    double t_s = 0;
    w.get("t_s", t_s);
    cycle.t_us = static_cast<int64_t>(std::llround(t_s * 1e6));  // written as t_us / 1e6
    w.get("frame", cycle.frame);
    w.get("delay_us", cycle.delay_us);
    w.get("duration_us", cycle.duration_us);
    w.get("cycle_us", cycle.cycle_us);
    r.worst.push_back(cycle);
  });
  r.seconds = per_second_from(c);
  return r;
}

AudioResult audio_from(const Object& a, uint32_t period_frames) {
  AudioResult out;
  out.period_frames = period_frames;  // not in run.json: the run's period (as the engine sets it)
  a.get("frames_checked", out.totals.frames);
  a.get("unlocked_frames", out.totals.unlocked_frames);
  a.get("glitches", out.totals.glitches);
  a.get("audible_events", out.events);
  a.get("delta_max", out.totals.delta_max);
  a.get("glitches_without_xrun", out.glitches_without_xrun);
  a.get("xruns_without_glitch", out.xruns_without_glitch);
  a.get("ring_dropped_chunks", out.totals.ring_dropped);
  a.get("recording", out.totals.recording);
  out.totals.recording = strip_audio_folder(out.totals.recording);
  a.get("recorded_frames", out.totals.recorded_frames);
  a.get("check_ns_per_frame", out.totals.check_ns_per_frame);
  a.get("reference", out.totals.reference);
  a.get("source", out.source);
  a.get("not_checked", out.totals.not_checked);
  a.get("frames_received", out.totals.received_frames);
  a.get("block_frames", out.totals.block_frames);
  a.get("judged_blocks", out.totals.judged_blocks);
  a.get("unjudged_blocks", out.totals.unjudged_blocks);
  a.get("record_format", out.totals.record_format);
  a.get("clipped_samples", out.totals.clipped_samples);
  a.get("complete", out.final_received);
  a.get("matched_by", out.matched_by);
  // glitch_list_total is the tail's total ("glitches") or, before the tail's totals came, the
  // list's length; run.json from before it have the same bound.
  if (a.find("glitches") == nullptr) a.get("glitch_list_total", out.totals.glitches);
  a.get("glitch_list_kept_limit", out.glitches_limit);
  a.each("glitch_list", [&](const Object& g) {
    GlitchResult r;
    g.get("t_s", r.t_s);
    g.get("kind", r.report.kind);
    g.get("frame", r.report.frame);
    g.get("at_frame", r.report.at_frame);
    g.get("jump_frames", r.report.jump);
    g.get("length_frames", r.report.length);
    g.get("max_deviation", r.report.max_deviation);
    g.get("excerpt", r.report.excerpt);
    r.report.excerpt = strip_audio_folder(r.report.excerpt);
    g.get("nearest_xrun_t_s", r.xrun_t_s);
    g.get("xrun_distance_ms", r.xrun_distance_ms);
    g.get("matched_xrun", r.matched);
    g.get("late_clients", r.late_clients);
    g.get("driver_xrun", r.driver_xrun);
    g.get("cycle", r.cycle);
    g.get("xrun_cycle", r.xrun_cycle);
    out.glitches.push_back(std::move(r));
  });
  return out;
}

JackTestFields jack_test_from(const Object& o) {
  JackTestFields f;
  o.get("definitions", f.definitions);
  o.get("wake_source", f.wake_source);
  o.get("wake_resolution_us", f.wake_resolution_us);
  o.get("wakes", f.wakes);
  o.get("delay_max_us", f.delay_max_us);
  o.get("cycle_max_us", f.cycle_max_us);
  o.get("cycle_max_all_us", f.cycle_max_all_us);
  o.get("delay_over_spare", f.delay_over_spare);
  o.get("delay_over_1000us", f.delay_over_1000);
  o.get("spare_min_us", f.spare_min_us);
  o.get("spare_last_us", f.spare_last_us);
  o.get("dsp_load_pct", f.dsp_load_pct);
  return f;
}

CycleRow cycle_row_from(const Object& o) {
  CycleRow w;
  o.get("id", w.id);
  o.get("t_s", w.t_s);
  o.get("jackd_wake_ns", w.jackd_wake_ns);
  o.get("end_ns", w.end_ns);
  o.get("deadline_ns", w.deadline_ns);
  o.get("slack_ns", w.slack_ns);
  o.get("out_of_order", w.out_of_order);
  o.get("missed", w.missed);
  if (const in_json* cs = o.find("clients")) {
    if (!cs->is_array()) json_refuse(o.path("clients"), "an array", *cs);
    for (size_t i = 0; i < cs->size(); ++i) {
      CycleClient c;
      if (!(*cs)[i].is_null()) {
        const Object co((*cs)[i], json_index_path(o.path("clients"), i));
        c.ran = true;
        co.get("entry_ns", c.entry_ns);
        co.get("exit_ns", c.exit_ns);
      }
      w.clients.push_back(c);
    }
  }
  return w;
}

XrunRun xrun_run_from(const Object& o) {
  XrunRun x;
  o.get("first", x.first);
  o.get("last", x.last);
  o.get("t_s", x.t_s);
  o.get("deadline_t_s", x.deadline_t_s);
  o.get("time_estimated", x.time_estimated);
  return x;
}

XrunCycles xrun_cycles_from(const Object& o) {
  XrunCycles x;
  x.present = true;
  o.get("cycles", x.cycles);
  o.get("events", x.events);
  o.each("sources", [&](const Object& so) {
    SourceTally t;
    so.get("key", t.key);
    so.get("label", t.label);
    so.get("unit", t.unit);
    so.get("rule", t.rule);
    so.get("reports", t.reports);
    so.get("reports_without_xrun_cycle", t.reports_unmatched);
    so.get("events_judged", t.events_judged);
    so.get("events_reported", t.events_reported);
    so.get("events_missed", t.events_missed);
    so.each("missed", [&](const Object& m) { t.missed.push_back(xrun_run_from(m)); });
    so.get("lag_max_cycles", t.lag_max_cycles);
    so.get("lag_max_ms", t.lag_max_ms);
    so.get("judged_until_s", t.until_s);
    x.sources.push_back(std::move(t));
  });
  return x;
}

CycleTableResult cycles_from(const Object& o) {
  CycleTableResult t;
  t.present = true;
  o.get("time_source", t.time_source);
  o.get("resolution_us", t.resolution_us);
  o.get("cycles", t.cycles);
  o.get("complete", t.complete);
  o.get("missed", t.missed);
  o.get("deadline_missed", t.deadline_missed);
  o.get("out_of_order", t.out_of_order);
  o.get("rows_lost", t.rows_lost);
  o.get("no_jackd_wake", t.no_jackd_wake);
  o.each("clients_not_run", [&](const Object& c) {
    uint64_t n = 0, first = 0;
    c.get("cycles", n);
    c.get("first_not_to_run", first);
    t.not_run.push_back(n);
    t.not_run_first.push_back(first);
  });
  o.each("dsp_nominal", [&](const Object& d) {
    CycleTableResult::DspNominal n;
    d.get("client", n.client);
    d.get("nominal_us", n.nominal_us);
    d.get("overhead_p50_pct", n.overhead_p50_pct);
    d.get("overhead_max_pct", n.overhead_max_pct);
    d.get("within_100us_pct", n.within_100us_pct);
    t.dsp_nominal.push_back(n);
  });
  o.each("hops", [&](const Object& h) {
    HopSeries s;
    h.get("key", s.key);
    h.get("kind", s.kind);
    h.get("label", s.label);
    h.get("client", s.client);
    uint64_t below = 0, dropped = 0;
    uint32_t negative_bound = 0;
    std::optional<int64_t> below_min;
    h.get("below_zero", below);
    h.get("below_zero_min", below_min);
    h.get("above_bound_dropped", dropped);
    h.get("negative_bound_us", negative_bound);
    s.us = Histogram(Histogram::kDefaultBoundUs, Histogram::kDefaultOverflowKeep, negative_bound);
    std::vector<std::vector<int64_t>> bins;
    h.get("bins", bins);
    for (size_t i = 0; i < bins.size(); ++i) {
      if (bins[i].size() != 2 || bins[i][1] < 0) {
        throw JsonRefused(fmt::format("'{}' is not a [value_us, count] pair",
                                      json_index_path(h.path("bins"), i)));
      }
      s.us.add(bins[i][0], static_cast<uint64_t>(bins[i][1]));
      if (bins[i][0] < 0) below -= std::min<uint64_t>(below, static_cast<uint64_t>(bins[i][1]));
    }
    // Below the bins, run.json keeps the count and the least value, not every value.
    if (below > 0 && below_min && *below_min < -static_cast<int64_t>(negative_bound)) {
      s.us.add(*below_min);
      --below;
    }
    s.us.add_unknown(below, dropped);
    t.hops.push_back(std::move(s));
  });
  o.each("worst", [&](const Object& w) { t.worst.push_back(cycle_row_from(w)); });
  o.each("missed_rows", [&](const Object& w) { t.missed_rows.push_back(cycle_row_from(w)); });
  o.get("missed_rows_total", t.missed_rows_total);
  return t;
}

RunResult run_from(const Object& j) {
  RunResult r;
  if (j.find("schema_version") == nullptr) {
    throw JsonRefused("no 'schema_version': not an xrunlab run.json");
  }
  j.get("schema_version", r.schema_version);
  j.get("xrunlab_version", r.xrunlab_version);
  j.get("command_line", r.command_line);
  j.get("spec", r.spec);
  j.get("host", r.host);
  if (const auto jack = j.object("jack")) {
    jack->get("server_name", r.server_name);
    jack->get("jackd_argv", r.jackd_argv);
    if (const in_json* b = jack->find("backend")) {
      if (b->is_string()) {
        r.backend = {{"name", b->get<std::string>()}};  // before --backend: "dummy"
      } else if (b->is_object()) {
        r.backend = *b;
      } else {
        json_refuse(jack->path("backend"), "an object", *b);
      }
    }
    jack->each("graph", [&](const Object& e) {
      std::pair<std::string, std::string> edge;
      e.get("from", edge.first);
      e.get("to", edge.second);
      r.graph.push_back(std::move(edge));
    });
  }
  j.get("started_utc", r.started_utc);
  j.get("ended_utc", r.ended_utc);
  j.get("status", r.status);
  j.get("status_detail", r.status_detail);
  j.get("exit_code", r.exit_code);
  if (const auto s = j.object("scheduling")) {
    s->get("policy_spec", r.policy_spec);
    s->get("label", r.scheduling);
    r.threads_start = threads_from(*s, "threads_start");
    r.threads_end = threads_from(*s, "threads_end");
    s->get("iso_emulation", r.iso_emulation);
    s->get("rt_throttle", r.rt_throttle);
  }
  // Runs from before --load have no "loads": null, "not known", rather than "none".
  r.loads = nullptr;
  j.get("loads", r.loads);
  j.get("baseline", r.baseline);
  j.get("dma_latency", r.dma_latency);
  j.get("affinity", r.affinity);
  j.get("explain", r.explain);
  j.get("trace_on_xrun", r.trace_on_xrun);
  j.get("rt_time_limit", r.rt_time_limit);
  j.get("runaway", r.runaway);
  j.get("logs", r.logs);
  if (const auto s = j.object("settings")) {
    s->get("clients", r.clients);
    s->get("ports", r.ports);
    s->get("frames", r.frames);
    s->get("rate_hz", r.rate);
    s->get("period_us", r.period_us);
    s->get("spare_time_us", r.spare_us);
  }
  if (const auto m = j.object("measurement")) {
    m->get("seconds_ran", r.seconds_ran);
    m->get("delay_reference", r.delay_reference);
    m->get("delay_resolution_us", r.delay_resolution_us);
    // delay_reference_exact is the backend's reference_exact; dll_reference is a fixed text.
    m->get("startup_s", r.startup_s);
    m->each("phases", [&](const Object& ph) {
      std::pair<std::string, double> p;
      ph.get("phase", p.first);
      ph.get("ended_s", p.second);
      r.phases_s.push_back(std::move(p));
    });
    m->get("engine_peak_rss_kib", r.engine_peak_rss_kib);
    m->get("engine_rss_shmem_kib_at_window_end", r.engine_rss_shmem_kib);
    m->get("jackd_cpu_pct", r.jackd_cpu_pct);
  }
  if (const auto t = j.object("totals")) {
    t->get("timeout_count", r.timeout_count);
    t->get("xrun_count", r.xrun_count);
    t->get("delay_over_spare", r.delay_over_spare);
    t->get("delay_over_1000us", r.delay_over_1000);
    t->get("injected_overruns", r.injected);
    r.delay = summary_from(*t, "delay_us");
    r.delay_dll = summary_from(*t, "delay_dll_us");
    r.duration = summary_from(*t, "duration_us");
    r.cycle = summary_from(*t, "cycle_us");
    t->get("avg_dsp_load_pct", r.avg_dsp_load);
    t->get("avg_cpu_user_pct", r.avg_user);
    t->get("avg_cpu_nice_pct", r.avg_nice);
    t->get("avg_cpu_system_pct", r.avg_system);
    t->get("avg_cpu_iowait_pct", r.avg_iowait);
    t->get("avg_cpu_irq_pct", r.avg_irq);
    t->get("avg_cpu_softirq_pct", r.avg_softirq);
    t->get("avg_interrupt_rate", r.avg_intr);
    t->get("avg_context_switch_rate", r.avg_ctxt);
  }
  if (const auto x = j.object("xruns")) {
    x->get("monitor_events", r.xruns.monitor_events);
    x->get("monitor_callbacks", r.xruns.monitor_callbacks);
    x->get("log_client_events", r.xruns.log_client_events);
    x->get("log_client_lines", r.xruns.log_client_lines);
    x->get("log_driver_xruns", r.xruns.log_driver_xruns);
    x->get("log_driver_max_delay_us", r.xruns.log_driver_max_delay_us);
    x->get("log_timed_out_lines", r.xruns.log_timed_out_lines);
    x->get("card_xruns", r.xruns.card_xruns);
    x->get("driver_xruns_reach_monitor", r.driver_xruns_reach_monitor);
    x->get("late_clients", r.xruns.late_clients);
    // events_total is monitor_events (events holds one entry per event, the first ones);
    // run.json from before it have the same bound.
    if (x->find("monitor_events") == nullptr) x->get("events_total", r.xruns.monitor_events);
    x->get("events_kept_limit", r.xruns.events_limit);
    x->each("events", [&](const Object& e) {
      XrunEvent event;
      e.get("t_s", event.t_s);
      e.get("frame", event.frame);
      e.get("callbacks", event.callbacks);
      r.xruns.events.push_back(event);
    });
  }
  if (const auto f = j.object("jack_test")) r.jack_test = jack_test_from(*f);
  if (const auto c = j.object("cycles")) r.cycle_table = cycles_from(*c);
  if (const auto x = j.object("xrun_cycles")) r.xrun_cycles = xrun_cycles_from(*x);
  if (const auto a = j.object("audio")) r.audio = audio_from(*a, r.frames);
  j.each("clients", [&](const Object& c) { r.client_results.push_back(client_from(c)); });
  // Schema 1: the system's rows in run.json; schema 2: in seconds.jsonl (load_run_folder reads
  // them), run.json counting them.
  j.each("system_per_second", [&](const Object& s) { r.system.push_back(system_second_of(s)); });
  if (const auto ps = j.object("per_second")) {
    ps->get("client_rows", r.client_rows_flushed);
    ps->get("system_rows", r.system_flushed.n);
    r.seconds_appended = true;
  }
  j.get("warnings", r.warnings);
  return r;
}

}  // namespace

std::optional<ClientSecond> client_second_from_row(const nlohmann::json& row,
                                                   const std::vector<std::string>& columns,
                                                   const std::string& path, std::string* why) {
  try {
    return client_second_of(row, columns, path);
  } catch (const JsonRefused& e) {
    if (why != nullptr) *why = e.what();
    return std::nullopt;
  }
}

std::optional<SystemSecond> system_second_from_json(const nlohmann::json& s,
                                                    const std::string& path, std::string* why) {
  try {
    return system_second_of(Object(s, path));
  } catch (const JsonRefused& e) {
    if (why != nullptr) *why = e.what();
    return std::nullopt;
  }
}

std::optional<RunResult> run_result_from_json(const nlohmann::json& j, std::string* why) {
  try {
    return run_from(Object(j, "", "run.json"));
  } catch (const JsonRefused& e) {
    if (why != nullptr) *why = e.what();
    return std::nullopt;
  }
}

std::optional<RunResult> read_run_json(const std::string& path, std::string* why) {
  const std::optional<nlohmann::json> j = read_json_file(path, why);
  if (!j) return std::nullopt;
  std::optional<RunResult> r = run_result_from_json(*j, why);
  if (!r && why != nullptr) *why = path + ": " + *why;
  return r;
}

}  // namespace xrunlab

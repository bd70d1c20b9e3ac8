#include "engine/result/run_json.hpp"

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

json per_second(const std::vector<ClientSecond>& rows) {
  json out = {{"columns",
               {"second", "cycles", "delay_min_us", "delay_mean_us", "delay_max_us",
                "duration_max_us", "cycle_max_us", "over_spare", "over_1000", "late"}},
              {"rows", json::array()}};
  for (const ClientSecond& s : rows) {
    out["rows"].push_back({s.second, s.cycles, opt(s.delay_min_us), opt(s.delay_mean_us),
                           opt(s.delay_max_us), opt(s.duration_max_us), opt(s.cycle_max_us),
                           s.over_spare, s.over_1000, s.late});
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
          {"delay_us", to_json(summarize(c.delay))},
          {"delay_dll_us", to_json(summarize(c.delay_dll))},
          {"signal_us", to_json(summarize(c.signal))},
          {"unreferenced_cycles", c.unreferenced},
          {"duration_us", to_json(summarize(c.duration))},
          {"cycle_us", to_json(summarize(c.cycle))},
          {"worst_cycles", worst_list(c.worst)},
          {"per_second", per_second(c.seconds)}};
}

}  // namespace

json to_json(const MetricSummary& m) {
  return {{"count", m.count},           {"min", opt(m.min_us)},     {"max", opt(m.max_us)},
          {"mean", opt(m.mean_us)},     {"p50", percentile(m.p50)}, {"p99", percentile(m.p99)},
          {"p99_9", percentile(m.p999)}};
}

json to_json(const RunResult& r) {
  json clients = json::array();
  for (const ClientResult& c : r.client_results) clients.push_back(client_json(c));
  json system = json::array();
  for (const SystemSecond& s : r.system) {
    system.push_back({{"t_s", s.t_s},
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
                      {"xruns", s.xruns}});
  }
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
           {"driver_xrun", g.driver_xrun}});
    }
    audio = {
        {"signal",
         "port 1: a sine of about 1 kHz whose phase is known at every frame, "
         "played by the first client, passed through exactly by every client, "
         "checked by the last"},
        {"frames_checked", a.totals.frames},
        {"unlocked_frames", a.totals.unlocked_frames},
        {"glitches", a.totals.glitches},
        {"audible_events", a.events},
        {"delta_max", a.totals.delta_max},
        {"glitches_without_xrun", a.glitches_without_xrun},
        {"xruns_without_glitch", a.xruns_without_glitch},
        {"match_window_ms", AudioResult::kMatchWindowMs},
        {"ring_dropped_chunks", a.totals.ring_dropped},
        {"recording", a.totals.recording.empty() ? json() : json("audio/" + a.totals.recording)},
        {"recorded_frames", a.totals.recorded_frames},
        {"check_ns_per_frame", a.totals.check_ns_per_frame},
        {"complete", a.final_received},
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
      {"status", r.status},
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
        {"engine_peak_rss_kib", r.engine_peak_rss_kib},
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
        {"card_xruns", r.xruns.card_xruns ? json(*r.xruns.card_xruns) : json()},
        {"driver_xruns_reach_monitor", r.driver_xruns_reach_monitor},
        {"late_clients", r.xruns.late_clients},
        {"events", events}}},
      {"audio", audio},
      {"clients", clients},
      {"system_per_second", system},
      {"warnings", r.warnings},
  };
}

}  // namespace xrunlab

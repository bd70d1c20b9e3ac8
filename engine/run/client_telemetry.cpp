// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/client_telemetry.hpp"

#include <fmt/format.h>

#include <string>
#include <variant>

namespace xrunlab {

void apply_client_line(RunResult& r, size_t index0, std::string_view line,
                       uint64_t window_start_us) {
  std::string why;
  const std::optional<telemetry::Message> msg = telemetry::decode(line, &why);
  ClientResult& c = r.client_results.at(index0);
  if (!msg) {
    r.warnings.push_back(fmt::format("{}: unreadable telemetry line ({})", c.name, why));
    return;
  }
  if (const auto* h = std::get_if<telemetry::Hello>(&*msg)) {
    c.hello = true;
    c.dsp_stages = h->dsp_stages;
    c.dsp_target_us = h->dsp_target_us;
    c.dsp_ns_per_stage = h->dsp_ns_per_stage;
    c.ramp = h->ramp;
    c.rt_tid = h->rt_tid;
    c.sched_error = h->sched_error;
  } else if (const auto* s = std::get_if<telemetry::Second>(&*msg)) {
    add_second(c, *s);
  } else if (const auto* f = std::get_if<telemetry::Final>(&*msg)) {
    c.final = true;
    c.cycles_total = f->cycles_total;
    c.ring_dropped = f->ring_dropped;
    if (f->audio && r.audio) {
      r.audio->totals = *f->audio;
      r.audio->final_received = true;
    }
  } else if (const auto* g = std::get_if<telemetry::GlitchReport>(&*msg)) {
    if (r.audio) {
      GlitchResult gr;
      gr.report = *g;
      // In double: the difference of two int64 can overflow (t_us is what the line says).
      gr.t_s = window_start_us != 0
                   ? (static_cast<double>(g->t_us) - static_cast<double>(window_start_us)) / 1e6
                   : 0;
      if (r.audio->glitches.size() < kMaxGlitchesKept) r.audio->glitches.push_back(gr);
    }
  } else if (const auto* e = std::get_if<telemetry::Error>(&*msg)) {
    c.error = e->message;
  } else if (const auto* k = std::get_if<telemetry::Connections>(&*msg)) {
    c.connections = k->connections;
  }
}

}  // namespace xrunlab

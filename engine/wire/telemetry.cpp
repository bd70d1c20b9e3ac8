// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/telemetry.hpp"

#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace xrunlab::telemetry {
namespace {

using nlohmann::json;

json counts_to_json(const ValueCounts& counts) {
  json out = json::array();
  for (const auto& [value, n] : counts) out.push_back({value, n});
  return out;
}

// A field that is not a whole number in the range of its type ("rate": -1, "index": 1e30).
// nlohmann's get<int>() would convert such a value anyway: wrapped, truncated, or (a floating
// number out of range) undefined behaviour.
class BadNumber : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole number `v` holds, as a T; throws BadNumber naming `what` otherwise.
template <typename T>
T whole_of(const json& v, const std::string& what) {
  using limits = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(limits::max())) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    const bool fits =
        limits::is_signed
            ? i >= static_cast<int64_t>(limits::min()) && i <= static_cast<int64_t>(limits::max())
            : i >= 0 && static_cast<uint64_t>(i) <= static_cast<uint64_t>(limits::max());
    if (fits) return static_cast<T>(i);
  }
  throw BadNumber("'" + what + "' is not a whole number from " + std::to_string(limits::min()) +
                  " to " + std::to_string(limits::max()));
}

template <typename T>
T whole(const json& j, const char* key) {
  return whole_of<T>(j.at(key), key);
}

ValueCounts counts_from_json(const json& j) {
  ValueCounts out;
  for (const auto& pair : j) {
    out[whole_of<int64_t>(pair.at(0), "value")] += whole_of<uint64_t>(pair.at(1), "count");
  }
  return out;
}

struct Encoder {
  json operator()(const Hello& m) const {
    return {{"type", "hello"},
            {"v", kWireVersion},
            {"index", m.index},
            {"name", m.name},
            {"pid", m.pid},
            {"rate", m.rate},
            {"frames", m.frames},
            {"ports", m.ports},
            {"dsp_stages", m.dsp_stages},
            {"dsp_target_us", m.dsp_target_us},
            {"dsp_ns_per_stage", m.dsp_ns_per_stage},
            {"rt_tid", m.rt_tid},
            {"sched_target", m.sched_target},
            {"sched_error", m.sched_error},
            {"ramp", m.ramp ? json{{"base", m.ramp->base},
                                   {"step_q16", m.ramp->step_q16},
                                   {"every", m.ramp->every},
                                   {"max", m.ramp->max}}
                            : json()}};
  }
  json operator()(const Second& m) const {
    json worst = json::array();
    for (const auto& w : m.worst) {
      worst.push_back({{"t_us", w.t_us},
                       {"frame", w.frame},
                       {"delay_us", w.delay_us},
                       {"duration_us", w.duration_us},
                       {"cycle_us", w.cycle_us}});
    }
    return {{"type", "second"},
            {"v", kWireVersion},
            {"index", m.index},
            {"second", m.second},
            {"cycles", m.cycles},
            {"delay", counts_to_json(m.delay)},
            {"delay_dll", counts_to_json(m.delay_dll)},
            {"signal", counts_to_json(m.signal)},
            {"unreferenced", m.unreferenced},
            {"duration", counts_to_json(m.duration)},
            {"cycle", counts_to_json(m.cycle)},
            {"over_spare", m.over_spare},
            {"over_1000", m.over_1000},
            {"late", m.late},
            {"injected", m.injected},
            {"worst", worst}};
  }
  json operator()(const Final& m) const {
    json j = {{"type", "final"},
              {"v", kWireVersion},
              {"index", m.index},
              {"cycles_total", m.cycles_total},
              {"cycles_measured", m.cycles_measured},
              {"ring_dropped", m.ring_dropped},
              {"injected", m.injected}};
    if (m.audio) {
      const AudioTotals& a = *m.audio;
      j["audio"] = {{"frames", a.frames},
                    {"unlocked_frames", a.unlocked_frames},
                    {"glitches", a.glitches},
                    {"delta_max", a.delta_max},
                    {"ring_dropped", a.ring_dropped},
                    {"recorded_frames", a.recorded_frames},
                    {"recording", a.recording},
                    {"check_ns_per_frame", a.check_ns_per_frame},
                    {"reference", a.reference},
                    {"received_frames", a.received_frames},
                    {"block_frames", a.block_frames},
                    {"judged_blocks", a.judged_blocks},
                    {"unjudged_blocks", a.unjudged_blocks},
                    {"not_checked", a.not_checked},
                    {"record_format", a.record_format},
                    {"clipped_samples", a.clipped_samples}};
    }
    return j;
  }
  json operator()(const GlitchReport& m) const {
    return {{"type", "glitch"},       {"v", kWireVersion},
            {"index", m.index},       {"kind", m.kind},
            {"t_us", m.t_us},         {"frame", m.frame},
            {"at_frame", m.at_frame}, {"jump", m.jump},
            {"length", m.length},     {"max_deviation", m.max_deviation},
            {"excerpt", m.excerpt}};
  }
  json operator()(const Error& m) const {
    return {{"type", "error"}, {"v", kWireVersion}, {"index", m.index}, {"message", m.message}};
  }
  json operator()(const Connections& m) const {
    json list = json::array();
    for (const auto& [from, to] : m.connections) list.push_back(json::array({from, to}));
    return {
        {"type", "connections"}, {"v", kWireVersion}, {"index", m.index}, {"connections", list}};
  }
};

}  // namespace

std::string encode(const Message& message) {
  return std::visit(Encoder{}, message).dump() + "\n";
}

std::optional<Message> decode(std::string_view line, std::string* error) {
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  auto fail = [&](const std::string& why) -> std::optional<Message> {
    if (error != nullptr) *error = why;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("not a JSON object");
  try {
    if (whole<int>(j, "v") != kWireVersion) return fail("wire version mismatch");
    const std::string type = j.at("type").get<std::string>();
    if (type == "hello") {
      Hello m;
      m.index = whole<int>(j, "index");
      m.name = j.at("name").get<std::string>();
      m.pid = whole<int64_t>(j, "pid");
      m.rate = whole<uint32_t>(j, "rate");
      m.frames = whole<uint32_t>(j, "frames");
      m.ports = whole<int>(j, "ports");
      m.dsp_stages = whole<int>(j, "dsp_stages");
      m.dsp_target_us = j.at("dsp_target_us").get<double>();
      m.dsp_ns_per_stage = j.at("dsp_ns_per_stage").get<double>();
      m.rt_tid = whole<int64_t>(j, "rt_tid");
      m.sched_target = j.at("sched_target").get<std::string>();
      m.sched_error = j.at("sched_error").get<std::string>();
      if (j.contains("ramp") && !j.at("ramp").is_null()) {
        const json& r = j.at("ramp");
        m.ramp = DspRampStages{whole<uint32_t>(r, "base"), whole<uint64_t>(r, "step_q16"),
                               whole<uint32_t>(r, "every"), whole<uint32_t>(r, "max")};
      }
      return m;
    }
    if (type == "second") {
      Second m;
      m.index = whole<int>(j, "index");
      m.second = whole<int64_t>(j, "second");
      m.cycles = whole<uint64_t>(j, "cycles");
      m.delay = counts_from_json(j.at("delay"));
      m.delay_dll = counts_from_json(j.at("delay_dll"));
      m.signal = counts_from_json(j.at("signal"));
      m.unreferenced = whole<uint64_t>(j, "unreferenced");
      m.duration = counts_from_json(j.at("duration"));
      m.cycle = counts_from_json(j.at("cycle"));
      m.over_spare = whole<uint64_t>(j, "over_spare");
      m.over_1000 = whole<uint64_t>(j, "over_1000");
      m.late = whole<uint64_t>(j, "late");
      m.injected = whole<uint64_t>(j, "injected");
      for (const auto& w : j.at("worst")) {
        m.worst.push_back({whole<int64_t>(w, "t_us"), whole<uint32_t>(w, "frame"),
                           whole<int64_t>(w, "delay_us"), whole<int64_t>(w, "duration_us"),
                           whole<int64_t>(w, "cycle_us")});
      }
      return m;
    }
    if (type == "final") {
      Final m;
      m.index = whole<int>(j, "index");
      m.cycles_total = whole<uint64_t>(j, "cycles_total");
      m.cycles_measured = whole<uint64_t>(j, "cycles_measured");
      m.ring_dropped = whole<uint64_t>(j, "ring_dropped");
      m.injected = whole<uint64_t>(j, "injected");
      if (j.contains("audio")) {
        const json& a = j.at("audio");
        AudioTotals t;
        t.frames = whole<uint64_t>(a, "frames");
        t.unlocked_frames = whole<uint64_t>(a, "unlocked_frames");
        t.glitches = whole<uint64_t>(a, "glitches");
        t.delta_max = a.at("delta_max").get<double>();
        t.ring_dropped = whole<uint64_t>(a, "ring_dropped");
        t.recorded_frames = whole<uint64_t>(a, "recorded_frames");
        t.recording = a.at("recording").get<std::string>();
        t.check_ns_per_frame = a.at("check_ns_per_frame").get<double>();
        t.reference = a.at("reference").get<std::string>();
        t.received_frames = whole<uint64_t>(a, "received_frames");
        t.block_frames = whole<uint32_t>(a, "block_frames");
        t.judged_blocks = whole<uint64_t>(a, "judged_blocks");
        t.unjudged_blocks = whole<uint64_t>(a, "unjudged_blocks");
        t.not_checked = a.at("not_checked").get<std::string>();
        t.record_format = a.at("record_format").get<std::string>();
        t.clipped_samples = whole<uint64_t>(a, "clipped_samples");
        m.audio = t;
      }
      return m;
    }
    if (type == "glitch") {
      GlitchReport m;
      m.index = whole<int>(j, "index");
      m.kind = j.at("kind").get<std::string>();
      m.t_us = whole<int64_t>(j, "t_us");
      m.frame = whole<uint32_t>(j, "frame");
      m.at_frame = whole<uint64_t>(j, "at_frame");
      m.jump = whole<int64_t>(j, "jump");
      m.length = whole<uint64_t>(j, "length");
      m.max_deviation = j.at("max_deviation").get<double>();
      m.excerpt = j.at("excerpt").get<std::string>();
      return m;
    }
    if (type == "error") {
      return Error{whole<int>(j, "index"), j.at("message").get<std::string>()};
    }
    if (type == "connections") {
      Connections m;
      m.index = whole<int>(j, "index");
      for (const json& c : j.at("connections")) {
        if (!c.is_array() || c.size() != 2) return fail("a connection is not a [from, to] pair");
        m.connections.emplace_back(c.at(0).get<std::string>(), c.at(1).get<std::string>());
      }
      return m;
    }
    return fail("unknown message type '" + type + "'");
  } catch (const nlohmann::json::exception& e) {
    return fail(e.what());
  } catch (const BadNumber& e) {
    return fail(e.what());
  }
}

}  // namespace xrunlab::telemetry

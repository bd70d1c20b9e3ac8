#include "engine/wire/telemetry.hpp"

#include <nlohmann/json.hpp>

namespace xrunlab::telemetry {
namespace {

using nlohmann::json;

json counts_to_json(const ValueCounts& counts) {
  json out = json::array();
  for (const auto& [value, n] : counts) out.push_back({value, n});
  return out;
}

ValueCounts counts_from_json(const json& j) {
  ValueCounts out;
  for (const auto& pair : j) out[pair.at(0).get<int64_t>()] += pair.at(1).get<uint64_t>();
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
            {"sched_error", m.sched_error}};
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
    if (j.at("v").get<int>() != kWireVersion) return fail("wire version mismatch");
    const std::string type = j.at("type").get<std::string>();
    if (type == "hello") {
      Hello m;
      m.index = j.at("index").get<int>();
      m.name = j.at("name").get<std::string>();
      m.pid = j.at("pid").get<int64_t>();
      m.rate = j.at("rate").get<uint32_t>();
      m.frames = j.at("frames").get<uint32_t>();
      m.ports = j.at("ports").get<int>();
      m.dsp_stages = j.at("dsp_stages").get<int>();
      m.dsp_target_us = j.at("dsp_target_us").get<double>();
      m.dsp_ns_per_stage = j.at("dsp_ns_per_stage").get<double>();
      m.rt_tid = j.at("rt_tid").get<int64_t>();
      m.sched_target = j.at("sched_target").get<std::string>();
      m.sched_error = j.at("sched_error").get<std::string>();
      return m;
    }
    if (type == "second") {
      Second m;
      m.index = j.at("index").get<int>();
      m.second = j.at("second").get<int64_t>();
      m.cycles = j.at("cycles").get<uint64_t>();
      m.delay = counts_from_json(j.at("delay"));
      m.delay_dll = counts_from_json(j.at("delay_dll"));
      m.signal = counts_from_json(j.at("signal"));
      m.unreferenced = j.at("unreferenced").get<uint64_t>();
      m.duration = counts_from_json(j.at("duration"));
      m.cycle = counts_from_json(j.at("cycle"));
      m.over_spare = j.at("over_spare").get<uint64_t>();
      m.over_1000 = j.at("over_1000").get<uint64_t>();
      m.late = j.at("late").get<uint64_t>();
      m.injected = j.at("injected").get<uint64_t>();
      for (const auto& w : j.at("worst")) {
        m.worst.push_back({w.at("t_us").get<int64_t>(), w.at("frame").get<uint32_t>(),
                           w.at("delay_us").get<int64_t>(), w.at("duration_us").get<int64_t>(),
                           w.at("cycle_us").get<int64_t>()});
      }
      return m;
    }
    if (type == "final") {
      Final m;
      m.index = j.at("index").get<int>();
      m.cycles_total = j.at("cycles_total").get<uint64_t>();
      m.cycles_measured = j.at("cycles_measured").get<uint64_t>();
      m.ring_dropped = j.at("ring_dropped").get<uint64_t>();
      m.injected = j.at("injected").get<uint64_t>();
      if (j.contains("audio")) {
        const json& a = j.at("audio");
        AudioTotals t;
        t.frames = a.at("frames").get<uint64_t>();
        t.unlocked_frames = a.at("unlocked_frames").get<uint64_t>();
        t.glitches = a.at("glitches").get<uint64_t>();
        t.delta_max = a.at("delta_max").get<double>();
        t.ring_dropped = a.at("ring_dropped").get<uint64_t>();
        t.recorded_frames = a.at("recorded_frames").get<uint64_t>();
        t.recording = a.at("recording").get<std::string>();
        t.check_ns_per_frame = a.at("check_ns_per_frame").get<double>();
        t.reference = a.at("reference").get<std::string>();
        t.received_frames = a.at("received_frames").get<uint64_t>();
        t.block_frames = a.at("block_frames").get<uint32_t>();
        t.judged_blocks = a.at("judged_blocks").get<uint64_t>();
        t.unjudged_blocks = a.at("unjudged_blocks").get<uint64_t>();
        t.not_checked = a.at("not_checked").get<std::string>();
        t.record_format = a.at("record_format").get<std::string>();
        t.clipped_samples = a.at("clipped_samples").get<uint64_t>();
        m.audio = t;
      }
      return m;
    }
    if (type == "glitch") {
      GlitchReport m;
      m.index = j.at("index").get<int>();
      m.kind = j.at("kind").get<std::string>();
      m.t_us = j.at("t_us").get<int64_t>();
      m.frame = j.at("frame").get<uint32_t>();
      m.at_frame = j.at("at_frame").get<uint64_t>();
      m.jump = j.at("jump").get<int64_t>();
      m.length = j.at("length").get<uint64_t>();
      m.max_deviation = j.at("max_deviation").get<double>();
      m.excerpt = j.at("excerpt").get<std::string>();
      return m;
    }
    if (type == "error") {
      return Error{j.at("index").get<int>(), j.at("message").get<std::string>()};
    }
    return fail("unknown message type '" + type + "'");
  } catch (const nlohmann::json::exception& e) {
    return fail(e.what());
  }
}

}  // namespace xrunlab::telemetry

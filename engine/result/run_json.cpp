// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/run_json.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "engine/base/json_read.hpp"

// run.json is written and read through one table per part: a part lists its members as
// io(key, member), in the order run.json writes them. to_json walks the tables with a JsonOut,
// run_result_from_json with a JsonIn, so each key is tied to its member once. What only one side
// has stays beside its table: a value written for run.json's readers (derived from the model, or
// a fixed text), and what older files spell otherwise.

namespace xrunlab {
namespace {

using json = nlohmann::ordered_json;
using in_json = nlohmann::json;
using Object = JsonObject;

// The keys the janitor reads and sets without the rest of the document (run_status_words).
constexpr const char* kStatusKey = "status";
constexpr const char* kStatusDetailKey = "status_detail";

// ---- The two walkers ------------------------------------------------------------------------

// How a member is written: as itself; an optional as null when not known; a percentile and a
// summary as their objects; a status as its word.
json out_value(const Percentile& p);
json out_value(const MetricSummary& m);
json out_value(RunStatus s) {
  return run_status_name(s);
}
template <typename T>
json out_value(const T& v) {
  return json(v);
}
template <typename T>
json out_value(const std::optional<T>& v) {
  return v ? out_value(*v) : json(nullptr);
}

template <typename Part, typename M>
json write_part(const M& m);
template <typename Part, typename M>
void read_part(const Object& o, M& m);

// Writes a part of run.json from its table.
class JsonOut {
 public:
  explicit JsonOut(json& out) : out_(out) {}

  template <typename T>
  void operator()(const char* key, const T& v) {
    out_[key] = out_value(v);
  }
  // A value run.json holds for its readers and the model does not keep (derived from the
  // model, or a fixed text); reading skips it.
  void written(const char* key, json v) { out_[key] = std::move(v); }
  // A member whose form in run.json is its own: Codec::write(member) -> json, and
  // Codec::read(json, path) -> member.
  template <typename Codec, typename T>
  void with(const char* key, const T& v) {
    out_[key] = Codec::write(v);
  }
  // A member written as several keys of this object: Codec::write_into(json&, member) and
  // Codec::read_from(Object, member).
  template <typename Codec, typename T>
  void spread(const T& v) {
    Codec::write_into(out_, v);
  }
  // An object of its own, written from Part's table over the same model.
  template <typename Part, typename M>
  void part(const char* key, const M& m) {
    out_[key] = write_part<Part>(m);
  }
  // A list of objects, each written from Part's table.
  template <typename Part, typename T>
  void list(const char* key, const std::vector<T>& v) {
    json a = json::array();
    for (const T& e : v) a.push_back(write_part<Part>(e));
    out_[key] = std::move(a);
  }
  // A record of engine/result/run_records.hpp: an object written from Part's table with its
  // keys in alphabetical order at every level (the order run.json has always given them), null
  // when the run has none.
  template <typename Part, typename T>
  void record(const char* key, const std::optional<T>& v) {
    out_[key] = v ? json(in_json(write_part<Part>(*v))) : json();
  }
  // An optional member that run.json leaves out when it is empty (io(key, member) writes null):
  // a value, a part, a list of parts.
  template <typename T>
  void if_set(const char* key, const std::optional<T>& v) {
    if (v) out_[key] = out_value(*v);
  }
  template <typename Part, typename M>
  void part_if_set(const char* key, const std::optional<M>& m) {
    if (m) part<Part>(key, *m);
  }
  template <typename Part, typename T>
  void list_if_set(const char* key, const std::optional<std::vector<T>>& v) {
    if (v) list<Part>(key, *v);
  }

 private:
  json& out_;
};

// Reads a part back through the same table: a member that is absent or null keeps the model's
// default (older runs lack keys), one of the wrong type refuses the document, naming it.
class JsonIn {
 public:
  explicit JsonIn(const Object& in) : in_(in) {}

  template <typename T>
  void operator()(const char* key, T& v) {
    in_.get(key, v);
  }
  void written(const char* /*key*/, const json& /*v*/) {}
  template <typename Codec, typename T>
  void with(const char* key, T& v) {
    if (const in_json* j = in_.find(key)) v = Codec::read(*j, in_.path(key));
  }
  template <typename Codec, typename T>
  void spread(T& v) {
    Codec::read_from(in_, v);
  }
  template <typename Part, typename M>
  void part(const char* key, M& m) {
    if (const auto o = in_.object(key)) read_part<Part>(*o, m);
  }
  template <typename Part, typename T>
  void list(const char* key, std::vector<T>& v) {
    in_.each(key, [&](const Object& o) {
      T e = T();
      read_part<Part>(o, e);
      v.push_back(std::move(e));
    });
  }
  template <typename Part, typename T>
  void record(const char* key, std::optional<T>& v) {
    if (const auto o = in_.object(key)) read_part<Part>(*o, v.emplace());
  }
  template <typename T>
  void if_set(const char* key, std::optional<T>& v) {
    in_.get(key, v);
  }
  template <typename Part, typename M>
  void part_if_set(const char* key, std::optional<M>& m) {
    if (const auto o = in_.object(key)) read_part<Part>(*o, m.emplace());
  }
  template <typename Part, typename T>
  void list_if_set(const char* key, std::optional<std::vector<T>>& v) {
    if (in_.find(key) != nullptr) list<Part>(key, v.emplace());
  }

 private:
  const Object& in_;
};

template <typename Part, typename M>
json write_part(const M& m) {
  json out = json::object();
  JsonOut io(out);
  Part::fields(io, m);
  return out;
}

template <typename Part, typename M>
void read_part(const Object& o, M& m) {
  JsonIn io(o);
  Part::fields(io, m);
}

// ---- Codecs: members whose form in run.json is their own ---------------------------------------

// A text that is null when empty.
struct EmptyIsNull {
  static json write(const std::string& s) { return s.empty() ? json() : json(s); }
  static std::string read(const in_json& v, const std::string& path) {
    return JsonValue<std::string>::of(v, path);
  }
};

// A file of the run folder's audio/ folder: run.json names it with its folder ("audio/x.wav"),
// the model without; null when there is none.
struct AudioFile {
  static json write(const std::string& name) {
    return name.empty() ? json() : json("audio/" + name);
  }
  static std::string read(const in_json& v, const std::string& path) {
    std::string name = JsonValue<std::string>::of(v, path);
    constexpr std::string_view kFolder = "audio/";
    if (name.compare(0, kFolder.size(), kFolder) == 0) name.erase(0, kFolder.size());
    return name;
  }
};

// Microseconds written as seconds (a worst cycle's time).
struct MicrosAsSeconds {
  static json write(int64_t us) { return static_cast<double>(us) / 1e6; }
  static int64_t read(const in_json& v, const std::string& path) {
    return static_cast<int64_t>(std::llround(JsonValue<double>::of(v, path) * 1e6));
  }
};

// A part that run.json writes as null when the model says it is not there (`Part::present`).
template <typename Part>
struct NullUnlessPresent {
  template <typename M>
  static json write(const M& m) {
    return Part::present(m) ? write_part<Part>(m) : json();
  }
  static typename Part::Model read(const in_json& v, const std::string& path) {
    typename Part::Model m{};
    Part::found(m);
    read_part<Part>(Object(v, path), m);
    return m;
  }
};

// A part that run.json writes as null when the model has none (std::optional<Part::Model>).
template <typename Part>
struct OptionalPart {
  static json write(const std::optional<typename Part::Model>& m) {
    return m ? write_part<Part>(*m) : json();
  }
  static std::optional<typename Part::Model> read(const in_json& v, const std::string& path) {
    typename Part::Model m{};
    read_part<Part>(Object(v, path), m);
    return m;
  }
};

// A list of parts that run.json writes as null when the model does not know it.
template <typename Part>
struct OptionalList {
  using Model = typename Part::Model;
  static json write(const std::optional<std::vector<Model>>& v) {
    if (!v) return json();
    json a = json::array();
    for (const Model& e : *v) a.push_back(write_part<Part>(e));
    return a;
  }
  static std::optional<std::vector<Model>> read(const in_json& v, const std::string& path) {
    if (!v.is_array()) json_refuse(path, "an array", v);
    std::vector<Model> out;
    for (size_t i = 0; i < v.size(); ++i) {
      Model e{};
      read_part<Part>(Object(v[i], json_index_path(path, i)), e);
      out.push_back(std::move(e));
    }
    return out;
  }
};

// ---- The parts of run.json ------------------------------------------------------------------

struct PercentilePart {
  template <typename IO, typename P>
  static void fields(IO& io, P& p) {
    io("value_us", p.value_us);
    io("exact", p.exact);
  }
};

struct SummaryPart {
  template <typename IO, typename S>
  static void fields(IO& io, S& m) {
    io("count", m.count);
    io("min", m.min_us);
    io("max", m.max_us);
    io("mean", m.mean_us);
    io("p50", m.p50);
    io("p99", m.p99);
    io("p99_9", m.p999);
  }
};

json out_value(const Percentile& p) {
  return write_part<PercentilePart>(p);
}
json out_value(const MetricSummary& m) {
  return write_part<SummaryPart>(m);
}

}  // namespace

// Percentiles and summaries read as the members of their parts.
template <>
struct JsonValue<Percentile> {
  static Percentile of(const nlohmann::json& v, const std::string& path) {
    Percentile p;
    read_part<PercentilePart>(Object(v, path), p);
    return p;
  }
};

template <>
struct JsonValue<MetricSummary> {
  static MetricSummary of(const nlohmann::json& v, const std::string& path) {
    MetricSummary m;
    read_part<SummaryPart>(Object(v, path), m);
    return m;
  }
};

// RunStatus reads as one of its words.
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

// When each step of the run ended: {"phase": "server", "ended_s": 0.41}.
struct PhasePart {
  template <typename IO, typename P>
  static void fields(IO& io, P& p) {
    io("phase", p.first);
    io("ended_s", p.second);
  }
};

// One connection of JACK's graph.
struct EdgePart {
  template <typename IO, typename E>
  static void fields(IO& io, E& e) {
    io("from", e.first);
    io("to", e.second);
  }
};

struct WorstCyclePart {
  template <typename IO, typename W>
  static void fields(IO& io, W& w) {
    io.template with<MicrosAsSeconds>("t_s", w.t_us);
    io("frame", w.frame);
    io("delay_us", w.delay_us);
    io("duration_us", w.duration_us);
    io("cycle_us", w.cycle_us);
  }
};

// A client's DSP load, an object of its own inside the client's.
struct DspPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("stages", c.dsp_stages);
    io("target_us", c.dsp_target_us);
    io("ns_per_stage", c.dsp_ns_per_stage);
  }
};

struct ClientPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("index", c.index);
    io("name", c.name);
    io("pid", c.pid);
    io("activated", c.hello);
    io("rt_tid", c.rt_tid);
    io("sched_error", c.sched_error);
    io("final_report", c.final);
    io("error", c.error);
    io.template part<DspPart>("dsp", c);
    io("cycles", c.cycles);
    io("cycles_total", c.cycles_total);
    io("ring_dropped", c.ring_dropped);
    io("injected_overruns", c.injected);
    io("delay_over_spare", c.over_spare);
    io("delay_over_1000us", c.over_1000);
    io("late_cycles", c.late);
    io("delay_us", c.summary.delay);
    io("delay_dll_us", c.summary.delay_dll);
    io("signal_us", c.summary.signal);
    io("unreferenced_cycles", c.unreferenced);
    io("duration_us", c.summary.duration);
    io("cycle_us", c.summary.cycle);
    // This version's bounds (kWorstCyclesKept, telemetry::kWorstPerSecond), the same in older
    // files.
    io.written("worst_cycles_limit", kWorstCyclesKept);
    io.written("worst_cycles_per_second_limit", telemetry::kWorstPerSecond);
    io.template list<WorstCyclePart>("worst_cycles", c.worst);
  }
};

// A client's second: a row of cells, in the order of its columns (seconds.jsonl names them in
// its header; schema 1's run.json beside its rows).
struct ClientSecondColumns {
  template <typename IO, typename S>
  static void fields(IO& io, S& s) {
    io("second", s.second);
    io("cycles", s.cycles);
    io("delay_min_us", s.delay_min_us);
    io("delay_mean_us", s.delay_mean_us);
    io("delay_max_us", s.delay_max_us);
    io("duration_max_us", s.duration_max_us);
    io("cycle_max_us", s.cycle_max_us);
    io("over_spare", s.over_spare);
    io("over_1000", s.over_1000);
    io("late", s.late);
  }
};

// Walks ClientSecondColumns for its names.
struct ColumnNames {
  std::vector<std::string> names;
  template <typename T>
  void operator()(const char* key, const T& /*v*/) {
    names.emplace_back(key);
  }
};

// Writes a row's cells in column order.
struct RowOut {
  json row = json::array();
  template <typename T>
  void operator()(const char* /*key*/, const T& v) {
    row.push_back(out_value(v));
  }
};

// Reads the cell of one column (`name`, at `cell`) into its member; a column this version does
// not know matches no member and is skipped.
struct CellIn {
  std::string_view name;
  const in_json& cell;
  std::string path;
  template <typename T>
  void operator()(const char* key, T& v) const {
    if (name == key) v = JsonValue<T>::of(cell, path);
  }
};

struct SystemSecondPart {
  template <typename IO, typename S>
  static void fields(IO& io, S& s) {
    io("t_s", s.t_s);
    io("user_pct", s.user_pct);
    io("nice_pct", s.nice_pct);
    io("system_pct", s.system_pct);
    io("iowait_pct", s.iowait_pct);
    io("irq_pct", s.irq_pct);
    io("softirq_pct", s.softirq_pct);
    io("intr_per_s", s.intr_per_s);
    io("ctxt_per_s", s.ctxt_per_s);
    io("dsp_load_pct", s.dsp_load_pct);
    io("cpu_accounted_pct", s.cpu_accounted_pct);
    io("xruns", s.xruns);
  }
};

struct XrunEventPart {
  template <typename IO, typename E>
  static void fields(IO& io, E& e) {
    io("t_s", e.t_s);
    io("frame", e.frame);
    io("callbacks", e.callbacks);
  }
};

struct GlitchPart {
  template <typename IO, typename G>
  static void fields(IO& io, G& g) {
    io("t_s", g.t_s);
    io("kind", g.report.kind);
    io("frame", g.report.frame);
    io("at_frame", g.report.at_frame);
    io("jump_frames", g.report.jump);
    io("length_frames", g.report.length);
    io("max_deviation", g.report.max_deviation);
    io.template with<AudioFile>("excerpt", g.report.excerpt);
    io("nearest_xrun_t_s", g.xrun_t_s);
    io("xrun_distance_ms", g.xrun_distance_ms);
    io("matched_xrun", g.matched);
    io("late_clients", g.late_clients);
    io("driver_xrun", g.driver_xrun);
    io("cycle", g.cycle);
    io("xrun_cycle", g.xrun_cycle);
  }
};

std::string audio_signal_words(const AudioResult& a) {
  if (a.source.empty()) {
    return "port 1: a sine of about 1 kHz whose phase is known at every frame, played by the "
           "first client, passed through exactly by every client, checked by the last";
  }
  return "port 1: the file " + a.source +
         ", looped from its first frame, played by the first client, passed through exactly by "
         "every client, checked by the last against the same file";
}

struct AudioPart {
  template <typename IO, typename A>
  static void fields(IO& io, A& a) {
    const bool file = !a.source.empty();
    io.written("signal", audio_signal_words(a));
    io.written("reference", file ? "file" : "test-signal");  // read back: totals.reference
    io.template with<EmptyIsNull>("source", a.source);
    // Checked: the tail's totals came and it could compare against the reference.
    io.written("checked", a.final_received && a.totals.not_checked.empty());
    io.template with<EmptyIsNull>("not_checked", a.totals.not_checked);
    io("frames_received", a.totals.received_frames);
    io("block_frames", a.totals.block_frames);
    io("judged_blocks", a.totals.judged_blocks);
    io("unjudged_blocks", a.totals.unjudged_blocks);
    io("frames_checked", a.totals.frames);
    io("unlocked_frames", a.totals.unlocked_frames);
    io("glitches", a.totals.glitches);
    io("audible_events", a.events);
    io("delta_max", a.totals.delta_max);
    io("glitches_without_xrun", a.glitches_without_xrun);
    io("xruns_without_glitch", a.xruns_without_glitch);
    io("matched_by", a.matched_by);
    io.written("match_window_ms",
               a.matched_by == "window" ? json(AudioResult::kMatchWindowMs) : json(nullptr));
    io("ring_dropped_chunks", a.totals.ring_dropped);
    io.template with<AudioFile>("recording", a.totals.recording);
    io("recorded_frames", a.totals.recorded_frames);
    io.template with<EmptyIsNull>("record_format", a.totals.record_format);
    io("clipped_samples", a.totals.clipped_samples);
    io("check_ns_per_frame", a.totals.check_ns_per_frame);
    io("complete", a.final_received);
    // The tail's total ("glitches") or, before the tail's totals came, the list's length.
    io.written("glitch_list_total", a.glitches_total());
    io("glitch_list_kept_limit", a.glitches_limit);
    io.template list<GlitchPart>("glitch_list", a.glitches);
  }
};

// Written as null without the audible chain.
struct OptionalAudio {
  static json write(const std::optional<AudioResult>& a) {
    return a ? write_part<AudioPart>(*a) : json();
  }
  static std::optional<AudioResult> read(const in_json& v, const std::string& path) {
    const Object a(v, path);
    AudioResult out;
    read_part<AudioPart>(a, out);
    a.get("reference", out.totals.reference);
    if (a.find("glitches") == nullptr) a.get("glitch_list_total", out.totals.glitches);
    return out;
  }
};

// jack_test's fields; null in a run that has none (they name their definitions).
struct JackTestPart {
  using Model = JackTestFields;
  static bool present(const JackTestFields& f) { return !f.definitions.empty(); }
  static void found(JackTestFields& /*f*/) {}
  template <typename IO, typename F>
  static void fields(IO& io, F& f) {
    io("definitions", f.definitions);
    io("wake_source", f.wake_source);
    io("wake_resolution_us", f.wake_resolution_us);
    io("wakes", f.wakes);
    io("delay_max_us", f.delay_max_us);
    io("cycle_max_us", f.cycle_max_us);
    io("cycle_max_all_us", f.cycle_max_all_us);
    io("delay_over_spare", f.delay_over_spare);
    io("delay_over_1000us", f.delay_over_1000);
    io("spare_min_us", f.spare_min_us);
    io("spare_last_us", f.spare_last_us);
    io("dsp_load_pct", f.dsp_load_pct);
  }
};

// A hop's distribution, as keys of the hop's object: its summary, the values below zero (every
// one counted, the least kept), the values above the bound that were not kept, and the exact
// bins ([value_us, count]: 1 usec bins and the kept values above the bound). Values from
// -negative_bound_us up are in the bins (the slack's); below them only their count and the
// least.
struct HopHistogram {
  static void write_into(json& out, const Histogram& h) {
    json bins = json::array();
    for (const auto& [v, n] : h.nonzero()) bins.push_back({v, n});
    out["summary_us"] = out_value(summarize(h));
    out["below_zero"] = h.underflow_count();
    const std::optional<int64_t> min = h.min();
    out["below_zero_min"] = h.underflow_count() > 0 && min && *min < 0 ? json(*min) : json();
    out["above_bound_dropped"] = h.overflow_dropped();
    out["negative_bound_us"] = h.negative_bound_us();
    out["bins"] = std::move(bins);
  }
  static void read_from(const Object& o, Histogram& us) {
    uint64_t below = 0, dropped = 0;
    uint32_t negative_bound = 0;
    std::optional<int64_t> below_min;
    o.get("below_zero", below);
    o.get("below_zero_min", below_min);
    o.get("above_bound_dropped", dropped);
    o.get("negative_bound_us", negative_bound);
    us = Histogram(Histogram::kDefaultBoundUs, Histogram::kDefaultOverflowKeep, negative_bound);
    std::vector<std::vector<int64_t>> bins;
    o.get("bins", bins);
    for (size_t i = 0; i < bins.size(); ++i) {
      if (bins[i].size() != 2 || bins[i][1] < 0) {
        throw JsonRefused(fmt::format("'{}' is not a [value_us, count] pair",
                                      json_index_path(o.path("bins"), i)));
      }
      us.add(bins[i][0], static_cast<uint64_t>(bins[i][1]));
      if (bins[i][0] < 0) below -= std::min<uint64_t>(below, static_cast<uint64_t>(bins[i][1]));
    }
    // Below the bins, run.json keeps the count and the least value, not every value.
    if (below > 0 && below_min && *below_min < -static_cast<int64_t>(negative_bound)) {
      us.add(*below_min);
      --below;
    }
    us.add_unknown(below, dropped);
  }
};

struct HopPart {
  template <typename IO, typename H>
  static void fields(IO& io, H& h) {
    io("key", h.key);
    io("kind", h.kind);
    io("label", h.label);
    io("client", h.client);
    io.template spread<HopHistogram>(h.us);
  }
};

// A cycle's clients, in chain order: {entry_ns, exit_ns}, or null for one that did not run.
struct CycleClients {
  static json write(const std::vector<CycleClient>& clients) {
    json out = json::array();
    for (const CycleClient& c : clients) {
      out.push_back(c.ran ? json{{"entry_ns", c.entry_ns}, {"exit_ns", c.exit_ns}} : json());
    }
    return out;
  }
  static std::vector<CycleClient> read(const in_json& v, const std::string& path) {
    if (!v.is_array()) json_refuse(path, "an array", v);
    std::vector<CycleClient> out;
    for (size_t i = 0; i < v.size(); ++i) {
      CycleClient c;
      if (!v[i].is_null()) {
        const Object co(v[i], json_index_path(path, i));
        c.ran = true;
        co.get("entry_ns", c.entry_ns);
        co.get("exit_ns", c.exit_ns);
      }
      out.push_back(c);
    }
    return out;
  }
};

struct CycleRowPart {
  template <typename IO, typename W>
  static void fields(IO& io, W& w) {
    io("id", w.id);
    io("t_s", w.t_s);
    io("jackd_wake_ns", w.jackd_wake_ns);
    io.template with<CycleClients>("clients", w.clients);
    io("end_ns", w.end_ns);
    io("deadline_ns", w.deadline_ns);
    io("slack_ns", w.slack_ns);
    io("out_of_order", w.out_of_order);
    io("missed", w.missed);
  }
};

struct DspNominalPart {
  template <typename IO, typename D>
  static void fields(IO& io, D& d) {
    io("client", d.client);
    io("nominal_us", d.nominal_us);
    io("overhead_p50_pct", d.overhead_p50_pct);
    io("overhead_max_pct", d.overhead_max_pct);
    io("within_100us_pct", d.within_100us_pct);
  }
};

// Per client (chain order): {client, cycles it did not run in, cycles it was the first not to}.
struct ClientsNotRun {
  static void write_into(json& out, const CycleTableResult& t) {
    json a = json::array();
    for (size_t k = 0; k < t.not_run.size(); ++k) {
      a.push_back({{"client", k + 1},
                   {"cycles", t.not_run[k]},
                   {"first_not_to_run", k < t.not_run_first.size() ? t.not_run_first[k] : 0}});
    }
    out["clients_not_run"] = std::move(a);
  }
  static void read_from(const Object& o, CycleTableResult& t) {
    o.each("clients_not_run", [&](const Object& c) {
      uint64_t n = 0, first = 0;
      c.get("cycles", n);
      c.get("first_not_to_run", first);
      t.not_run.push_back(n);
      t.not_run_first.push_back(first);
    });
  }
};

// Every cycle joined across clients; null without a table.
struct CycleTablePart {
  using Model = CycleTableResult;
  static bool present(const CycleTableResult& t) { return t.present; }
  static void found(CycleTableResult& t) { t.present = true; }
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("time_source", t.time_source);
    io("resolution_us", t.resolution_us);
    io("cycles", t.cycles);
    io("complete", t.complete);
    io("missed", t.missed);
    io("deadline_missed", t.deadline_missed);
    io("out_of_order", t.out_of_order);
    io("rows_lost", t.rows_lost);
    io("no_jackd_wake", t.no_jackd_wake);
    io.template spread<ClientsNotRun>(t);
    io.template list<DspNominalPart>("dsp_nominal", t.dsp_nominal);
    io.template list<HopPart>("hops", t.hops);
    io.template list<CycleRowPart>("worst", t.worst);
    io.template list<CycleRowPart>("missed_rows", t.missed_rows);
    io("missed_rows_total", t.missed_rows_total);
  }
};

struct XrunRunPart {
  template <typename IO, typename X>
  static void fields(IO& io, X& x) {
    io("first", x.first);
    io("last", x.last);
    io("t_s", x.t_s);
    io("deadline_t_s", x.deadline_t_s);
    io("time_estimated", x.time_estimated);
  }
};

struct SourceTallyPart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("key", t.key);
    io("label", t.label);
    io("unit", t.unit);
    io("rule", t.rule);
    io("reports", t.reports);
    io("reports_without_xrun_cycle", t.reports_unmatched);
    io("events_judged", t.events_judged);
    io("events_reported", t.events_reported);
    io("events_missed", t.events_missed);
    io.template list<XrunRunPart>("missed", t.missed);
    io.written("missed_named_limit", SourceTally::kMissedNamed);
    io("lag_max_cycles", t.lag_max_cycles);
    io("lag_max_ms", t.lag_max_ms);
    io("judged_until_s", t.until_s);
  }
};

// Every xrun source counted against the table's xrun cycles; null without a table.
struct XrunCyclesPart {
  using Model = XrunCycles;
  static bool present(const XrunCycles& x) { return x.present; }
  static void found(XrunCycles& x) { x.present = true; }
  template <typename IO, typename X>
  static void fields(IO& io, X& x) {
    io.written("definition",
               "an xrun cycle is a cycle of the table that missed its deadline or in which a "
               "client did not run; an xrun event is a run of consecutive xrun cycles");
    io("cycles", x.cycles);
    io("events", x.events);
    io("outside_events", x.outside_events);
    io.written("events_total", x.total_events());
    io.written("heard_within_cycles", XrunCycles::kHeardWithinCycles);
    io.template list<SourceTallyPart>("sources", x.sources);
  }
};

struct XrunCausePart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("kind", c.kind);
    io("client", c.client);
  }
};

struct CauseCountPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io.template part<XrunCausePart>("cause", c.cause);
    io("run_client", c.run_client);
    io("chain_events", c.chain);
    io("outside_events", c.outside);
  }
};

struct OutsideXrunPart {
  template <typename IO, typename O>
  static void fields(IO& io, O& o) {
    io("t_s", o.t_s);
    io("cycle", o.cycle);
    io("callbacks", o.callbacks);
    io("lines", o.lines);
    io.template part<XrunCausePart>("cause", o.cause);
  }
};

// Who made each xrun event (engine/result/xrun_causes.hpp); null in older records.
struct XrunCausesPart {
  using Model = XrunAttribution;
  template <typename IO, typename A>
  static void fields(IO& io, A& a) {
    io.written("definition",
               "the cause of each xrun event, from jackd's lines that fell to it: 'client' (the "
               "first client jackd found still running at the deadline, or that finished after "
               "it), 'driver', 'not_started' (jackd named only clients that had not started), "
               "'unnamed' (no line fell to it); events outside the chain are xruns JACK reported "
               "that no cycle of the run's chain explains");
    io("outside_events", a.outside_events);
    io.template list<CauseCountPart>("causes", a.causes);
    io.template list<OutsideXrunPart>("outside", a.outside);
    io.written("outside_kept_limit", XrunAttribution::kOutsideKept);
  }
};

// The audio threads as the kernel reported them: each thread's scheduling (ThreadSched's own
// JSON, engine/wire/thread_sched.hpp), then what the policy asked for.
struct Threads {
  static json write(const std::vector<AudioThread>& threads) {
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
  static std::vector<AudioThread> read(const in_json& v, const std::string& path) {
    if (!v.is_array()) json_refuse(path, "an array", v);
    std::vector<AudioThread> out;
    for (size_t i = 0; i < v.size(); ++i) {
      const Object t(v[i], json_index_path(path, i));
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
    }
    return out;
  }
};

// ---- The backend: Backend::describe()'s record --------------------------------------------------
// run.json writes the backend's keys in alphabetical order, at every level: each table below
// lists them so, the keys every backend has among its own.

// A part that run.json writes as null when the model does not have it.
template <typename Part, typename M>
struct NullUnlessSet {
  static json write(const std::optional<M>& m) { return m ? write_part<Part>(*m) : json(); }
  static std::optional<M> read(const in_json& v, const std::string& path) {
    M m{};
    read_part<Part>(Object(v, path), m);
    return m;
  }
};

// A list of parts that run.json writes as null when the model does not have it.
template <typename Part, typename T>
struct NullUnlessListed {
  static json write(const std::optional<std::vector<T>>& v) {
    if (!v) return json();
    json a = json::array();
    for (const T& e : *v) a.push_back(write_part<Part>(e));
    return a;
  }
  static std::optional<std::vector<T>> read(const in_json& v, const std::string& path) {
    if (!v.is_array()) json_refuse(path, "an array", v);
    std::vector<T> out;
    for (size_t i = 0; i < v.size(); ++i) {
      read_part<Part>(Object(v[i], json_index_path(path, i)), out.emplace_back());
    }
    return out;
  }
};

// A summary with its keys (and its percentiles' keys) in alphabetical order.
struct SortedSummary {
  static json write(const MetricSummary& m) { return json(in_json(out_value(m))); }
  static MetricSummary read(const in_json& v, const std::string& path) {
    return JsonValue<MetricSummary>::of(v, path);
  }
};

// PipeWire's module-rt: {"rt.prio": N}, or null when it is not loaded.
struct RtModule {
  static json write(const std::optional<int>& prio) {
    return prio ? json{{"rt.prio", *prio}} : json();
  }
  static std::optional<int> read(const in_json& v, const std::string& path) {
    int prio = 0;
    Object(v, path).get("rt.prio", prio);
    return prio;
  }
};

struct ServerSettingsPart {
  template <typename IO, typename S>
  static void fields(IO& io, S& s) {
    io("frames", s.frames);
    io("jack_library_version", s.jack_library_version);
    io("max_delayed_usecs", s.max_delayed_usecs);
    io.written("max_delayed_usecs_note",
               "as the server reports it; PipeWire's JACK reportedly uses other units");
    io("physical_ports", s.physical_ports);
    io("rate_hz", s.rate_hz);
    io("realtime", s.realtime);
  }
};

struct VcardXrunPart {
  template <typename IO, typename E>
  static void fields(IO& io, E& e) {
    io("avail_frames", e.avail_frames);
    io("boundary", e.boundary);
    io("detected_ns", e.detected_ns);
    io("detection_delay_us", e.detection_delay_us);
    io("ideal_ns", e.ideal_ns);
  }
};

struct VcardStreamPart {
  template <typename IO, typename S>
  static void fields(IO& io, S& s) {
    io("open", s.open);
    io("starts", s.starts);
    io("timer_arms", s.timer_arms);
    io("wakes_written", s.wakes_written);
    io.template list<VcardXrunPart>("xrun_events", s.xrun_events);
    io("xruns", s.xruns);
  }
};

// The card's two streams, by name.
struct VcardStreamsPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io.template part<VcardStreamPart>("capture", c.capture);
    io.template part<VcardStreamPart>("playback", c.playback);
  }
};

struct VcardCardPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("missed", c.missed);
    io.template part<VcardStreamsPart>("streams", c);
    io.template with<SortedSummary>("wake_latency_us", c.wake_latency_us);
    io("wake_stream", c.wake_stream);
    io("wakes", c.wakes);
  }
};

struct CardIrqPart {
  template <typename IO, typename L>
  static void fields(IO& io, L& l) {
    io("action", l.action);
    io("card_actions", l.card_actions);
    io("count", l.count);
    io("irq", l.irq);
    io("matched_by", l.matched_by);
  }
};

struct CardIrqThreadPart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("comm", t.comm);
    io("irq", t.irq);
    io("pid", t.pid);
    io("policy", t.policy);
    io("priority", t.priority);
  }
};

struct AlsaCardPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("card", c.card);
    io("device", c.device);
    io("driver", c.driver);
    io("id", c.id);
    io.template with<NullUnlessListed<CardIrqThreadPart, CardIrqThreadRecord>>("irq_threads",
                                                                               c.irq_threads);
    io.template with<NullUnlessListed<CardIrqPart, CardIrqRecord>>("irqs", c.irqs);
    io("long_name", c.long_name);
    io("name", c.name);
    io("notes", c.notes);
    io("pcm", c.pcm);
  }
};

struct PipewireThreadPart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("class", t.policy);
    io("name", t.name);
    io("nice", t.nice);
    io("pid", t.pid);
    io("priority", t.priority);
    io("tid", t.tid);
  }
};

// The backend of no known kind, and the dummy: the keys every backend has.
struct CommonBackendPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    io("driver", b.driver);
    io("name", b.name);
    io("reference", b.reference);
    io("reference_exact", b.reference_exact);
    io.template part_if_set<ServerSettingsPart>("server_settings", b.server_settings);
  }
};

struct VcardBackendPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    auto& v = *b.vcard;
    io("alsa_config", v.alsa_config);
    io("capture_channels", v.capture_channels);
    io.template part_if_set<VcardCardPart>("card", v.card);
    io("clock", v.clock);
    io("clock_channel", v.clock_channel);
    io("driver", b.driver);
    io("name", b.name);
    io("pcm", v.pcm);
    io("playback_channels", v.playback_channels);
    io("plugin", v.plugin);
    io("reference", b.reference);
    io("reference_exact", b.reference_exact);
    io.template part_if_set<ServerSettingsPart>("server_settings", b.server_settings);
    io("shm", v.shm);
  }
};

struct AlsaBackendPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    auto& a = *b.alsa;
    io.template with<NullUnlessSet<AlsaCardPart, AlsaCardInfo>>("card", a.card);
    io("device", a.device);
    io("driver", b.driver);
    io("name", b.name);
    io("pcm", a.pcm);
    io("reference", b.reference);
    io("reference_exact", b.reference_exact);
    io.template part_if_set<ServerSettingsPart>("server_settings", b.server_settings);
  }
};

// attach has no driver of its own.
struct AttachBackendPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    auto& a = *b.attach;
    io("launched", a.launched);
    io("name", b.name);
    io("reference", b.reference);
    io("reference_exact", b.reference_exact);
    io("server", a.server);
    io.template part_if_set<ServerSettingsPart>("server_settings", b.server_settings);
  }
};

struct PipewireBackendPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    auto& p = *b.pipewire;
    io("config", p.config);
    io.template list<PipewireThreadPart>("data_loop_threads", p.data_loop_threads);
    io.template list_if_set<PipewireThreadPart>("data_loop_threads_end", p.data_loop_threads_end);
    io.if_set("data_loop_why", p.data_loop_why);
    io("driver", b.driver);
    io("libjack", p.libjack);
    io("name", b.name);
    io.if_set("pid", p.pid);
    io("program", p.program);
    io("quantum_requested", p.quantum_requested);
    io("rate_requested", p.rate_requested);
    io("reference", b.reference);
    io("reference_exact", b.reference_exact);
    io.template with<RtModule>("rt_module", p.rt_priority);
    io("runtime_dir", p.runtime_dir);
    io.template part_if_set<ServerSettingsPart>("server_settings", b.server_settings);
    io("socket", p.socket);
    io("version", p.version);
  }
};

// The backend through the table of its kind, which its name says ("alsa:PCM" for alsa); {}
// when no backend is known. Before --backend, run.json had the string "dummy" here (read as
// {"name": "dummy"}).
struct BackendJson {
  static json write(const BackendRecord& b) {
    if (b.name.empty()) return json::object();
    if (b.vcard) return write_part<VcardBackendPart>(b);
    if (b.alsa) return write_part<AlsaBackendPart>(b);
    if (b.attach) return write_part<AttachBackendPart>(b);
    if (b.pipewire) return write_part<PipewireBackendPart>(b);
    return write_part<CommonBackendPart>(b);
  }
  static BackendRecord read(const in_json& v, const std::string& path) {
    BackendRecord b;
    if (v.is_string()) {
      b.name = v.get<std::string>();
      return b;
    }
    const Object o(v, path);
    o.get("name", b.name);
    if (b.name == "vcard") {
      b.vcard.emplace();
      read_part<VcardBackendPart>(o, b);
    } else if (b.name == "alsa" || b.name.compare(0, 5, "alsa:") == 0) {
      b.alsa.emplace();
      read_part<AlsaBackendPart>(o, b);
    } else if (b.name == "attach") {
      b.attach.emplace();
      read_part<AttachBackendPart>(o, b);
    } else if (b.name == "pipewire") {
      b.pipewire.emplace();
      read_part<PipewireBackendPart>(o, b);
    } else {
      read_part<CommonBackendPart>(o, b);
    }
    return b;
  }
};

struct JackPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("server_name", r.server_name);
    io("jackd_argv", r.jackd_argv);
    io.template with<BackendJson>("backend", r.backend);
    io.template list<EdgePart>("graph", r.graph);
  }
};

// ---- The records of options and watchdogs (engine/result/run_records.hpp) -------------------

// A list written as null when empty (a set the user did not give).
struct EmptyListIsNull {
  static json write(const std::vector<int>& v) { return v.empty() ? json() : json(v); }
  static std::vector<int> read(const in_json& v, const std::string& path) {
    return JsonValue<std::vector<int>>::of(v, path);
  }
};

struct IsoEventPart {
  template <typename IO, typename E>
  static void fields(IO& io, E& e) {
    io("t_s", e.t_s);
    io.template with<IsoAction>("action", e.demote);
    io("share_pct", e.share_pct);
  }
  // "demote" or "promote".
  struct IsoAction {
    static json write(bool demote) { return demote ? "demote" : "promote"; }
    static bool read(const in_json& v, const std::string& path) {
      const std::string a = JsonValue<std::string>::of(v, path);
      if (a != "demote" && a != "promote") {
        throw JsonRefused(fmt::format("'{}' is neither demote nor promote (it is '{}')", path, a));
      }
      return a == "demote";
    }
  };
};

struct IsoReportPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("label", r.label);
    io("demotions", r.demotions);
    io("promotions", r.promotions);
    io("time_demoted_s", r.time_demoted_s);
    io("peak_share_pct", r.peak_share_pct);
    io("mean_share_pct", r.mean_share_pct);
    io("samples", r.samples);
    io.template list<IsoEventPart>("events", r.events);
    io("errors", r.errors);
  }
};

struct RtThrottlePart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("cgroup", r.cgroup);
    io("rt_runtime_pct", r.rt_runtime_pct);
    io("rt_period_us", r.rt_period_us);
  }
};

// A histogram bin: [us, count].
struct BinPair {
  static json write(const std::vector<std::pair<int64_t, uint64_t>>& bins) {
    json a = json::array();
    for (const auto& [us, count] : bins) a.push_back(json::array({us, count}));
    return a;
  }
  static std::vector<std::pair<int64_t, uint64_t>> read(const in_json& v, const std::string& path) {
    std::vector<std::pair<int64_t, uint64_t>> out;
    for (const std::vector<int64_t>& b :
         JsonValue<std::vector<std::vector<int64_t>>>::of(v, path)) {
      if (b.size() != 2 || b[1] < 0) {
        throw JsonRefused(fmt::format("'{}' holds a bin that is not [us, count]", path));
      }
      out.emplace_back(b[0], static_cast<uint64_t>(b[1]));
    }
    return out;
  }
};

// A record's figures (Part::figures) or, when the record has an error, the error alone: a
// record without figures has no figure keys at all.
template <typename Part, typename Record>
struct FiguresOrError {
  static void write_into(json& out, const Record& r) {
    if (r.error) {
      out["error"] = *r.error;
    } else {
      JsonOut io(out);
      Part::figures(io, r);
    }
  }
  static void read_from(const Object& in, Record& r) {
    in.get("error", r.error);
    if (r.error) return;
    JsonIn io(in);
    Part::figures(io, r);
  }
};

struct BaselineRatiosPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    io("jackd_wakeup_p99", b.jackd_wakeup_ratio);
    io("head_client_delay_p99", b.head_client_delay_ratio);
  }
};

// The settings, then either the figures or the error (a baseline without figures has no
// figure keys at all).
struct BaselinePart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    io("tool", b.tool);
    io("argv", b.argv);
    io("policy", b.policy);
    io("priority", b.priority);
    io("interval_us", b.interval_us);
    io("holds_cpu_dma_latency", b.holds_cpu_dma_latency);
    io.template spread<FiguresOrError<BaselinePart, BaselineRecord>>(b);
  }
  template <typename IO, typename B>
  static void figures(IO& io, B& b) {
    io("wakeups", b.wakeups);
    io("beyond_histogram", b.beyond_histogram);
    io("histogram_bound_us", b.histogram_bound_us);
    io("p50", b.p50);
    io("p99", b.p99);
    io("p99_9", b.p99_9);
    io("max_us", b.max_us);
    io.template part<BaselineRatiosPart>("ratios_to_p99", b);
    io.template with<BinPair>("bins", b.bins);
  }
};

// The settings, then either the figures or the error.
struct PingPart {
  template <typename IO, typename P>
  static void fields(IO& io, P& p) {
    io("method", p.method);
    io("netns", p.netns);
    io("host_interface", p.host_interface);
    io("source", p.source);
    io("target", p.target);
    io("rate_hz", p.rate_hz);
    io("count_planned", p.count_planned);
    io("answer_wait_ms", p.answer_wait_ms);
    io("drop_every", p.drop_every);
    io("file", p.file);
    io.template spread<FiguresOrError<PingPart, PingRecord>>(p);
  }
  template <typename IO, typename P>
  static void figures(IO& io, P& p) {
    io("sent", p.sent);
    io("received", p.received);
    io("lost", p.lost);
    io("lost_pct", p.lost_pct);
    io("late_answers", p.late_answers);
    io("duplicates", p.duplicates);
    io("unmatched", p.unmatched);
    io("expected_lost", p.expected_lost);
    io("rtt_p50_us", p.rtt_p50_us);
    io("rtt_p99_us", p.rtt_p99_us);
    io("rtt_max_us", p.rtt_max_us);
    io("send_late_p99_us", p.send_late_p99_us);
    io("send_late_max_us", p.send_late_max_us);
  }
};

struct DmaLatencyPart {
  template <typename IO, typename D>
  static void fields(IO& io, D& d) {
    io("device", d.device);
    io("requested_us", d.requested_us);
    io("read_back_us", d.read_back_us);
  }
};

struct AffinityPart {
  template <typename IO, typename A>
  static void fields(IO& io, A& a) {
    io.template with<EmptyListIsNull>("cpus", a.cpus);
    io.template with<EmptyListIsNull>("load_cpus", a.load_cpus);
    io("threads_checked", a.threads_checked);
    io("loads_checked", a.loads_checked);
    io("verified", a.verified);
  }
};

struct XrunTracePart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("instance", t.instance);
    io("buffer_kb_per_cpu", t.buffer_kb_per_cpu);
    io("xrun_mono_ns", t.xrun_mono_ns);
    io("frozen_mono_ns", t.frozen_mono_ns);
    io("file", t.file);
    io("oldest_mono_ns", t.oldest_mono_ns);
    io("covered_before_xrun_ms", t.covered_before_xrun_ms);
    io("argv", t.argv);
    io("error", t.error);
  }
};

struct RtTimeLimitPart {
  template <typename IO, typename L>
  static void fields(IO& io, L& l) {
    io("soft_us", l.soft_us);
    io("hard_us", l.hard_us);
    io("watchdog_us", l.watchdog_us);
    io("applied_to", l.applied_to);
    io("rule", l.rule);
  }
};

struct RampBreakPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    io("key", b.key);
    io("kind", b.kind);
    io("client", b.client);
    io("label", b.label);
    io("late_us", b.late_us);
    io("cause", b.cause);
  }
};

struct RampFirstXrunPart {
  template <typename IO, typename F>
  static void fields(IO& io, F& f) {
    io("cycle", f.cycle);
    io("t_s", f.t_s);
    io("step", f.step);
    io("load_pct", f.load_pct);
    io("measured_pct", f.measured_pct);
    io("nominal_pct", f.nominal_pct);
    io.template record<RampBreakPart>("broke", f.broke);
  }
};

struct RampPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("step_pct", r.step_pct);
    io("every_cycles", r.every);
    io("ns_per_stage", r.ns_per_stage);
    io("start_pct", r.start_pct);
    io("top_pct", r.top_pct);
    io("from_cycle", r.from_cycle);
    io("ended", r.ended);
    io("reached_pct", r.reached_pct);
    io.template record<RampFirstXrunPart>("first_xrun", r.first_xrun);
  }
};

struct RunawayPart {
  template <typename IO, typename A>
  static void fields(IO& io, A& a) {
    io("client", a.client);
    io("index", a.index);
    io("pid", a.pid);
    io("tid", a.tid);
    io("policy", a.policy);
    io("ran_ms", a.ran_ms);
    io("stopped_by", a.stopped_by);
    io("signal", a.signal);
    io("running_since_mono_ns", a.running_since_mono_ns);
    io("stopped_mono_ns", a.stopped_mono_ns);
    io("reason", a.reason);
  }
};

struct LogCountsPart {
  template <typename IO, typename L>
  static void fields(IO& io, L& l) {
    io("lines", l.lines);
    io("kept", l.kept);
    io("dropped", l.dropped);
    io("full_log", l.full_log);
    io("examples_per_kind", l.examples_per_kind);
    io("repeats_kept_per_kind", l.repeats_kept_per_kind);
  }
};

struct LogsPart {
  template <typename IO, typename L>
  static void fields(IO& io, L& l) {
    io.template part<LogCountsPart>("jackd", l.jackd);
    io.template part<LogCountsPart>("clients", l.clients);
  }
};

// ---- --explain's record (engine/result/explain_record.hpp) -----------------------------------

// A CPU number that is null when unknown (-1).
struct NegativeIsNull {
  static json write(int v) { return v >= 0 ? json(v) : json(); }
  static int read(const in_json& v, const std::string& path) { return JsonValue<int>::of(v, path); }
};

// A set of CPUs, written as an array.
struct IntSet {
  static json write(const std::set<int>& v) { return json(v); }
  static std::set<int> read(const in_json& v, const std::string& path) {
    const std::vector<int> list = JsonValue<std::vector<int>>::of(v, path);
    return {list.begin(), list.end()};
  }
};

// [start, end].
struct Int64Pair {
  static json write(const std::pair<int64_t, int64_t>& p) {
    return json::array({p.first, p.second});
  }
  static std::pair<int64_t, int64_t> read(const in_json& v, const std::string& path) {
    const std::vector<int64_t> list = JsonValue<std::vector<int64_t>>::of(v, path);
    if (list.size() != 2) throw JsonRefused(fmt::format("'{}' is not [start, end]", path));
    return {list[0], list[1]};
  }
};

struct TaskTimePart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("pid", t.pid);
    io("comm", t.comm);
    io("prio", t.prio);
    io("policy", t.policy);
    io("ns", t.ns);
    io("lower_priority", t.lower_priority);
  }
};

// An interrupt ("irq") or a softirq ("vec") and its time.
template <const char* kNumberKey>
struct IrqTimePart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io(kNumberKey, t.num);
    io("name", t.name);
    io("count", t.count);
    io("ns", t.ns);
  }
};
constexpr char kIrqKey[] = "irq";
constexpr char kSoftirqKey[] = "vec";

struct HopExplanationPart {
  template <typename IO, typename H>
  static void fields(IO& io, H& h) {
    io("hop", h.hop.hop_key);
    io("thread", h.hop.thread);
    io("tid", h.hop.tid);
    io.template spread<Windows>(h.hop);
    io("late_ns", h.hop.late_ns);
    io("traced", h.traced);
    io.template with<NegativeIsNull>("cpu", h.cpu);
    io.template with<IntSet>("cpus", h.cpus);
    io("woken_ns", h.woken_ns);
    io.template list<TaskTimePart>("blockers", h.blockers);
    io.template list<IrqTimePart<kIrqKey>>("irqs", h.irqs);
    io.template list<IrqTimePart<kSoftirqKey>>("softirqs", h.softirqs);
    io("asleep_ns", h.asleep_ns);
    io("self_ns", h.self_ns);
    io("idle_ns", h.idle_ns);
    io("unknown_ns", h.unknown_ns);
    io("silent_ns", h.silent_ns);
    io.template with<NegativeIsNull>("silent_cpu", h.silent_cpu);
    io("cpu_steal_pct", h.cpu_steal_pct);
    io("line", h.line);
    io.template spread<NoTrace>(h);
  }
  // The hop's window relative to the cycle's interrupt and in the trace's clock.
  struct Windows {
    static void write_into(json& out, const HopWindow& w) {
      out["window_ns"] = Int64Pair::write({w.rel_start_ns, w.rel_end_ns});
      out["window_mono_ns"] = Int64Pair::write({w.start_ns, w.end_ns});
    }
    static void read_from(const Object& in, HopWindow& w) {
      if (const in_json* v = in.find("window_ns")) {
        std::tie(w.rel_start_ns, w.rel_end_ns) = Int64Pair::read(*v, in.path("window_ns"));
      }
      if (const in_json* v = in.find("window_mono_ns")) {
        std::tie(w.start_ns, w.end_ns) = Int64Pair::read(*v, in.path("window_mono_ns"));
      }
    }
  };
  // Why a hop has no trace, only for such a hop.
  struct NoTrace {
    static void write_into(json& out, const HopExplanation& h) {
      if (!h.traced) out["no_trace"] = h.no_trace;
    }
    static void read_from(const Object& in, HopExplanation& h) { in.get("no_trace", h.no_trace); }
  };
};

struct ExplainedCyclePart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("cycle", c.cycle);
    io("t_s", c.t_s);
    io("slack_ns", c.slack_ns);
    io("line", c.line);
    io.template list<HopExplanationPart>("hops", c.hops);
  }
};

struct ExplainTracePart {
  template <typename IO, typename T>
  static void fields(IO& io, T& t) {
    io("instance", t.instance);
    io("clock", t.clock);
    io("resolution_us", t.resolution_us);
    io("events", t.events);
    io("lost_kernel", t.lost_kernel);
    io("dropped_store", t.dropped_store);
    io("unparsed_lines", t.unparsed_lines);
    io("unseen_switches", t.unseen_switches);
    io.template with<Int64Pair>("coverage_ns", t.coverage_ns);
    io("cpu_steal_pct", t.cpu_steal_pct);
  }
};

struct ExplainPart {
  template <typename IO, typename E>
  static void fields(IO& io, E& e) {
    io("requested", e.requested);
    io.template part<ExplainTracePart>("trace", e.trace);
    io.template list<ExplainedCyclePart>("cycles", e.cycles);
  }
};

struct SchedulingPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("policy_spec", r.policy_spec);
    io("label", r.scheduling);
    io.template with<Threads>("threads_start", r.threads_start);
    io.template with<Threads>("threads_end", r.threads_end);
    io.template record<IsoReportPart>("iso_emulation", r.iso_emulation);
    io.template record<RtThrottlePart>("rt_throttle", r.rt_throttle);
  }
};

struct SettingsPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("clients", r.clients);
    io("ports", r.ports);
    io("frames", r.frames);
    io("rate_hz", r.rate);
    io("period_us", r.period_us);
    io("spare_time_us", r.spare_us);
  }
};

struct MeasurementPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("seconds_ran", r.seconds_ran);
    io("delay_reference", r.delay_reference);
    io("delay_resolution_us", r.delay_resolution_us);
    io.written("delay_reference_exact", r.backend.reference_exact);
    io.written("dll_reference",
               "jack_get_cycle_times() current_usecs (DLL estimate; unreliable on the dummy "
               "backend after xruns)");
    io("startup_s", r.startup_s);
    io.template list<PhasePart>("phases", r.phases_s);
    io("engine_peak_rss_kib", r.engine_peak_rss_kib);
    io("engine_rss_shmem_kib_at_window_end", r.engine_rss_shmem_kib);
    io("jackd_cpu_pct", r.jackd_cpu_pct);
  }
};

struct TotalsPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("timeout_count", r.timeout_count);
    io("xrun_count", r.xrun_count);
    io("delay_over_spare", r.delay_over_spare);
    io("delay_over_1000us", r.delay_over_1000);
    io("injected_overruns", r.injected);
    io("delay_us", r.delay);
    io("delay_dll_us", r.delay_dll);
    io("duration_us", r.duration);
    io("cycle_us", r.cycle);
    io("avg_dsp_load_pct", r.avg_dsp_load);
    io("avg_cpu_user_pct", r.avg_user);
    io("avg_cpu_nice_pct", r.avg_nice);
    io("avg_cpu_system_pct", r.avg_system);
    io("avg_cpu_iowait_pct", r.avg_iowait);
    io("avg_cpu_irq_pct", r.avg_irq);
    io("avg_cpu_softirq_pct", r.avg_softirq);
    io("avg_interrupt_rate", r.avg_intr);
    io("avg_context_switch_rate", r.avg_ctxt);
  }
};

struct XrunsPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("monitor_events", r.xruns.monitor_events);
    io("monitor_callbacks", r.xruns.monitor_callbacks);
    io("log_client_events", r.xruns.log_client_events);
    io("log_client_lines", r.xruns.log_client_lines);
    io("log_driver_xruns", r.xruns.log_driver_xruns);
    io("log_driver_max_delay_us", r.xruns.log_driver_max_delay_us);
    io("log_timed_out_lines", r.xruns.log_timed_out_lines);
    io("card_xruns", r.xruns.card_xruns);
    io("driver_xruns_reach_monitor", r.driver_xruns_reach_monitor);
    io("late_clients", r.xruns.late_clients);
    // Every event (= monitor_events; events holds the first ones); read back from
    // monitor_events, or from here in files without it.
    io.written("events_total", r.xruns.events_total());
    io("events_kept_limit", r.xruns.events_limit);
    io.template list<XrunEventPart>("events", r.xruns.events);
  }
};

// The per-second rows' file and its counts (schema 2; schema 1 held the rows in run.json).
json per_second_json(const RunResult& r) {
  uint64_t client_rows = r.client_rows_flushed;
  for (const ClientResult& c : r.client_results) client_rows += c.seconds.size();
  return {{"file", kSecondsFileName},
          {"client_rows", client_rows},
          {"system_rows", r.system_flushed.n + r.system.size()}};
}

// The run's options. Their keys are in alphabetical order, as run.json has always had them.
struct SpecPart {
  using Model = RunSpec;
  template <typename IO, typename S>
  static void fields(IO& io, S& s) {
    io("audio_check", s.audio_check);
    io("backend", s.backend);
    io("baseline", s.baseline);
    io("client_binary", s.client_binary);
    io("clients", s.clients);
    io("cpus", s.cpus);
    io("dma_latency", s.dma_latency);
    io("dsp_load_pct", s.dsp_load_pct);
    io("duration_s", s.duration_s);
    io("explain", s.explain);
    io("full_log", s.full_log);
    io("inject", s.inject);
    io("inject_client", s.inject_client);
    io("jackd", s.jackd);
    io("label", s.label);
    io("load_cpus", s.load_cpus);
    io("loads", s.loads);
    io("nperiods", s.nperiods);
    io("output", s.output);
    io("period_frames", s.period_frames);
    io("ping_drop_every", s.ping_drop_every);
    io("ping_rate_hz", s.ping_rate_hz);
    io("plot_format", s.plot_format);
    io("plots", s.plots);
    io("policy", s.policy);
    io("ports", s.ports);
    io("priority", s.priority);
    io("ramp", s.ramp);
    io("rate_hz", s.rate_hz);
    io("record", s.record);
    io("record_format", s.record_format);
    io("server_timeout_s", s.server_timeout_s);
    io("source", s.source);
    io("trace_on_xrun", s.trace_on_xrun);
  }
};

// The machine, its keys in alphabetical order at every level, as run.json has always had them.
struct HostCpuPart {
  template <typename IO, typename C>
  static void fields(IO& io, C& c) {
    io("count", c.count);
    io("governors", c.governors);
    io("model", c.model);
  }
};

struct HostJackPart {
  template <typename IO, typename H>
  static void fields(IO& io, H& h) {
    io("jackd_version", h.jackd_version);
  }
};

struct HostKernelPart {
  template <typename IO, typename K>
  static void fields(IO& io, K& k) {
    io("cmdline", k.cmdline);
    io("machine", k.machine);
    io("preempt", k.preempt);
    io("release", k.release);
    io("sysname", k.sysname);
    io("version", k.version);
  }
};

struct HostPart {
  using Model = HostRecord;
  template <typename IO, typename H>
  static void fields(IO& io, H& h) {
    io.template part<HostCpuPart>("cpu", h.cpu);
    io("hostname", h.hostname);
    io.template part<HostJackPart>("jack", h);
    io.template part<HostKernelPart>("kernel", h.kernel);
    io("memory_total_kib", h.memory_total_kib);
  }
};

// The bench load's figures, each key named for the load's report (bench_jobs, ...).
struct BenchPart {
  template <typename IO, typename B>
  static void fields(IO& io, B& b) {
    io("bench_jobs", b.jobs);
    io("bench_job_iterations", b.job_iterations);
    io("bench_job_wall_ms_mean", b.job_wall_ms_mean);
    io("bench_job_wall_ms_min", b.job_wall_ms_min);
    io("bench_job_cpu_ms_mean", b.job_cpu_ms_mean);
  }
};

// The bench load's figures as keys of the load's report, null for every other kind (and absent
// in reports from before the bench load: read as not a bench load, as null is).
struct BenchKeys {
  static void write_into(json& out, const std::optional<BenchFigures>& b) {
    json keys = write_part<BenchPart>(b.value_or(BenchFigures{}));
    for (auto& [key, value] : keys.items()) out[key] = b ? std::move(value) : json();
  }
  static void read_from(const Object& in, std::optional<BenchFigures>& b) {
    const in_json* jobs = in.find("bench_jobs");
    if (jobs == nullptr || jobs->is_null()) return;
    read_part<BenchPart>(in, b.emplace());
  }
};

// One background load, its keys in alphabetical order, as run.json has always had them.
struct LoadReportPart {
  template <typename IO, typename L>
  static void fields(IO& io, L& l) {
    io("kind", l.kind);
    io("args", l.args);
    io("iterations", l.iterations);
    io("bytes", l.bytes);
    io("units", l.units);
    io("units_s", l.units_s);
    io("unit_name", l.unit_name);
    io.template spread<BenchKeys>(l.bench);
    io("cpu_user_s", l.cpu_user_s);
    io("cpu_system_s", l.cpu_system_s);
    io("workers_started", l.workers_started);
    io("exit_statuses", l.exit_statuses);
    io("errors", l.errors);
    io("scratch_removed", l.scratch_removed);
    io("stopped_by", l.stopped_by);
    io("duration_s", l.duration_s);
    io("nice", l.nice);
  }
};

struct LoadPart {
  using Model = LoadRecord;
  template <typename IO, typename L>
  static void fields(IO& io, L& l) {
    io("argv", l.argv);
    io("cpus", l.cpus);
    io("error", l.error);
    io("kind", l.kind);
    io("log", l.log);
    io("nice", l.nice);
    io("pid", l.pid);
    io.template record<LoadReportPart>("report", l.report);
    io("spec", l.spec);
    io("start_s", l.start_s);
    io("stop_s", l.stop_s);
  }
};

// The whole document.
struct RunPart {
  template <typename IO, typename R>
  static void fields(IO& io, R& r) {
    io("schema_version", r.schema_version);
    io("xrunlab_version", r.xrunlab_version);
    io("run_id", r.run_id);
    io("command_line", r.command_line);
    io.template with<OptionalPart<SpecPart>>("spec", r.spec);
    io.template with<OptionalPart<HostPart>>("host", r.host);
    io.template part<JackPart>("jack", r);
    io("started_utc", r.started_utc);
    io("ended_utc", r.ended_utc);
    io(kStatusKey, r.status);
    io(kStatusDetailKey, r.status_detail);
    io("exit_code", r.exit_code);
    io.template part<SchedulingPart>("scheduling", r);
    io.template with<OptionalList<LoadPart>>("loads", r.loads);
    io.template record<BaselinePart>("baseline", r.baseline);
    io.template record<PingPart>("ping", r.ping);
    io.template record<DmaLatencyPart>("dma_latency", r.dma_latency);
    io.template record<AffinityPart>("affinity", r.affinity);
    io.template record<ExplainPart>("explain", r.explain);
    io.template record<XrunTracePart>("trace_on_xrun", r.trace_on_xrun);
    io.template record<RtTimeLimitPart>("rt_time_limit", r.rt_time_limit);
    io.template record<RunawayPart>("runaway", r.runaway);
    io.template record<RampPart>("ramp", r.ramp);
    io.template record<LogsPart>("logs", r.logs);
    io.template part<SettingsPart>("settings", r);
    io.template part<MeasurementPart>("measurement", r);
    io.template part<TotalsPart>("totals", r);
    io.template part<XrunsPart>("xruns", r);
    io.template with<NullUnlessPresent<JackTestPart>>("jack_test", r.jack_test);
    io.template with<NullUnlessPresent<CycleTablePart>>("cycles", r.cycle_table);
    io.template with<NullUnlessPresent<XrunCyclesPart>>("xrun_cycles", r.xrun_cycles);
    io.template with<OptionalPart<XrunCausesPart>>("xrun_causes", r.xrun_causes);
    io.template with<OptionalAudio>("audio", r.audio);
    io.template list<ClientPart>("clients", r.client_results);
    io.written("per_second", per_second_json(r));
    io("warnings", r.warnings);
  }
};

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
    CellIn cell{columns[k], row[k], json_index_path(row_path, k)};
    ClientSecondColumns::fields(cell, s);
  }
  return s;
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

// run.json read back: RunPart's table, then what older files hold otherwise.
RunResult run_from(const Object& j) {
  if (j.find("schema_version") == nullptr) {
    throw JsonRefused("no 'schema_version': not an xrunlab run.json");
  }
  RunResult r;
  // Runs from before --load have no "loads": null, "not known", rather than "none".
  r.loads = std::nullopt;
  read_part<RunPart>(j, r);
  if (const auto x = j.object("xruns"); x && x->find("monitor_events") == nullptr) {
    x->get("events_total", r.xruns.monitor_events);
  }
  if (r.audio) r.audio->period_frames = r.frames;  // not in run.json: the run's period
  // Schema 1: each client's rows and the system's in run.json; schema 2: in seconds.jsonl
  // (load_run_folder reads them), run.json counting them.
  size_t k = 0;
  j.each("clients", [&](const Object& c) { r.client_results[k++].seconds = per_second_from(c); });
  j.each("system_per_second", [&](const Object& s) {
    SystemSecond sys;
    read_part<SystemSecondPart>(s, sys);
    r.system.push_back(sys);
  });
  if (const auto ps = j.object("per_second")) {
    ps->get("client_rows", r.client_rows_flushed);
    ps->get("system_rows", r.system_flushed.n);
    r.seconds_appended = true;
  }
  return r;
}

}  // namespace

json to_json(const MetricSummary& m) {
  return write_part<SummaryPart>(m);
}

json to_json(const RunResult& r) {
  return write_part<RunPart>(r);
}

json to_json(const HostRecord& h) {
  return write_part<HostPart>(h);
}

json to_json(const LoadReport& l) {
  return write_part<LoadReportPart>(l);
}

std::optional<LoadReport> load_report_from_json(const nlohmann::json& j, std::string* why) {
  try {
    LoadReport l;
    read_part<LoadReportPart>(Object(j, "", "xrunlab-load's report"), l);
    return l;
  } catch (const JsonRefused& e) {
    if (why != nullptr) *why = e.what();
    return std::nullopt;
  }
}

const std::vector<std::string>& client_second_columns() {
  static const std::vector<std::string> columns = [] {
    ColumnNames names;
    const ClientSecond s;
    ClientSecondColumns::fields(names, s);
    return names.names;
  }();
  return columns;
}

json client_second_row(const ClientSecond& s) {
  RowOut row;
  ClientSecondColumns::fields(row, s);
  return row.row;
}

json system_second_json(const SystemSecond& s) {
  return write_part<SystemSecondPart>(s);
}

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
    SystemSecond sys;
    read_part<SystemSecondPart>(Object(s, path), sys);
    return sys;
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

RunStatusWords run_status_words(const nlohmann::json& j) {
  auto text = [&](const char* key) {
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  return {text(kStatusKey), text(kStatusDetailKey)};
}

std::string with_run_status(nlohmann::json j, RunStatus status, const std::string& detail) {
  j[kStatusKey] = run_status_name(status);
  j[kStatusDetailKey] = detail;
  return j.dump(2) + "\n";
}

std::optional<RunResult> read_run_json(const std::string& path, std::string* why) {
  const std::optional<nlohmann::json> j = read_json_file(path, why);
  if (!j) return std::nullopt;
  std::optional<RunResult> r = run_result_from_json(*j, why);
  if (!r && why != nullptr) *why = path + ": " + *why;
  return r;
}

}  // namespace xrunlab

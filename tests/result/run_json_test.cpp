// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/run_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "engine/result/baseline.hpp"
#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"

namespace xrunlab {
namespace {

TEST(ReportJson, MatchesGoldenFile) {
  RunResult r = testing_support::sample_result();
  r.schema_version = 2;
  r.xrunlab_version = "0.1.0";
  r.command_line = {"xrunlab", "run", "--clients", "2"};
  r.started_utc = "2026-11-30T10:00:00Z";
  r.ended_utc = "2026-11-30T10:00:03Z";
  r.graph = {{"system:capture_1", "xrunlab-c1:in_1"}, {"xrunlab-c1:out_1", "xrunlab-c2:in_1"}};
  testing_support::expect_golden("run_basic.json", to_json(r).dump(2) + "\n");
}

TEST(ReportJson, PercentilesSayWhetherTheyAreExact) {
  const auto j = to_json(testing_support::sample_result());
  const auto& p999 = j["totals"]["delay_us"]["p99_9"];
  EXPECT_TRUE(p999.contains("value_us"));
  EXPECT_TRUE(p999["exact"].get<bool>());
}

TEST(ReportJson, EmptyRunHasNullsNotZeros) {
  RunResult r;
  finalize(r);
  const auto j = to_json(r);
  EXPECT_TRUE(j["totals"]["delay_us"]["max"].is_null());
  EXPECT_TRUE(j["totals"]["avg_dsp_load_pct"].is_null());
  EXPECT_EQ(j["clients"].size(), 0u);
}

// Schema 2: run.json names seconds.jsonl and counts its rows, and holds none of them.
TEST(ReportJson, PerSecondRowsAreCountedNotHeld) {
  RunResult r = testing_support::sample_result();
  const auto j = to_json(r);
  EXPECT_EQ(j["per_second"],
            nlohmann::ordered_json(
                {{"file", "seconds.jsonl"}, {"client_rows", 6}, {"system_rows", r.system.size()}}));
  EXPECT_FALSE(j.contains("system_per_second"));
  for (const auto& c : j["clients"]) EXPECT_FALSE(c.contains("per_second"));
  // Rows a run moved out of memory still count.
  r.client_rows_flushed = 100;
  r.system_flushed.n = 50;
  EXPECT_EQ(to_json(r)["per_second"]["client_rows"], 106);
  EXPECT_EQ(to_json(r)["per_second"]["system_rows"], 50 + r.system.size());
  for (const ClientSecond& s : r.client_results[0].seconds) {
    EXPECT_EQ(client_second_row(s).size(), client_second_columns().size());
  }
}

// ---- run_result_from_json ----------------------------------------------------------------------

std::string dumped(const RunResult& r) {
  return to_json(r).dump(2) + "\n";
}

RunResult read_back(const std::string& text) {
  std::string why;
  const std::optional<RunResult> r = run_result_from_json(nlohmann::json::parse(text), &why);
  EXPECT_TRUE(r) << why;
  return r.value_or(RunResult{});
}

// A vcard backend with its card's record, as VcardBackend::describe() fills it.
BackendRecord vcard_backend() {
  BackendRecord b;
  b.name = "vcard";
  b.driver = "JACK alsa driver on the xrunlab ioplug card";
  b.reference = "vcard period boundary";
  b.reference_exact = true;
  VcardBackendRecord& v = b.vcard.emplace();
  v.pcm = "xrunlab_vcard";
  v.plugin = "/usr/lib/xrunlab/libasound_module_pcm_xrunlab.so";
  v.alsa_config = "/runs/r1/vcard-asound.conf";
  v.shm = "/xrunlab-vcard-xrunlab-1-0";
  v.capture_channels = 5;
  v.playback_channels = 4;
  v.clock_channel = 5;
  v.clock = "CLOCK_MONOTONIC (timerfd)";
  VcardCardRecord& c = v.card.emplace();
  c.wake_stream = "capture";
  c.wakes = 1875;
  c.missed = 1;
  Histogram h;
  h.add(12, 1000);
  h.add(40, 874);
  h.add(900);
  c.wake_latency_us = summarize(h);
  c.capture = {true, 2, 1880, 1876, 1, {{900, 1000000, 1250000, 250, 512}}};
  c.playback = {true, 1, 1879, 0, 0, {}};
  return b;
}

// A pipewire backend with the data loop read at both ends, as PipewireBackend::describe() fills
// it.
BackendRecord pipewire_backend() {
  BackendRecord b;
  b.name = "pipewire";
  b.driver = "PipeWire Dummy-Driver (support.node.driver, timer)";
  b.reference = "jack_frames_since_cycle_start";
  PipewireBackendRecord& p = b.pipewire.emplace();
  p.program = "/usr/bin/pipewire";
  p.version = "0.3.65";
  p.config = "/runs/r1/pipewire.conf";
  p.runtime_dir = "/tmp/xrunlab-pipewire-xrunlab-1-0.abc";
  p.socket = "xrunlab-1-0";
  p.libjack = "/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack/libjack.so.0";
  p.quantum_requested = 256;
  p.rate_requested = 48000;
  p.rt_priority = 70;
  p.pid = 4100;
  p.data_loop_threads = {{4100, 4102, "pipewire", "SCHED_FIFO", 70, 0}};
  p.data_loop_threads_end = {{{4100, 4102, "pipewire", "SCHED_OTHER", 0, -11}}};
  return b;
}

// run.json's backend of `b`: the object as written, in its order.
nlohmann::ordered_json backend_json(const BackendRecord& b) {
  RunResult r = testing_support::sample_result();
  r.backend = b;
  return to_json(r)["jack"]["backend"];
}

// Every object's keys in alphabetical order, at every level.
bool keys_sorted(const nlohmann::ordered_json& j) {
  if (j.is_array()) return std::all_of(j.begin(), j.end(), keys_sorted);
  if (!j.is_object()) return true;
  std::string last;
  for (const auto& [k, v] : j.items()) {
    if (k < last || !keys_sorted(v)) return false;
    last = k;
  }
  return true;
}

// The sample with every part run.json can hold filled in: backend, audio with glitches, worst
// cycles, the card's xruns, iso-emu, loads, host and spec.
RunResult rich_result() {
  RunResult r = testing_support::sample_result();
  r.schema_version = 1;
  r.xrunlab_version = "0.1.0";
  r.command_line = {"xrunlab", "run", "--label", "rich"};
  RunSpec& spec = r.spec.emplace();
  spec.clients = 2;
  spec.ports = 4;
  spec.period_frames = 256;
  spec.rate_hz = 48000;
  spec.duration_s = 3;
  spec.dsp_load_pct = 30;
  spec.label = "rich";
  spec.output = "results";
  spec.priority = 70;
  spec.policy = "fifo";
  spec.loads = {"compile:2", "io-write:8@nice=5"};
  spec.baseline = "none";
  spec.cpus = "0-1";
  spec.load_cpus = "1";
  spec.explain = 5;
  spec.inject = "8000:100";
  spec.inject_client = 1;
  spec.jackd = "jackd";
  spec.server_timeout_s = 10;
  spec.plots = true;
  spec.plot_format = "svg";
  spec.backend = "vcard";
  spec.nperiods = 2;
  spec.audio_check = true;
  spec.record = true;
  spec.record_format = "wav";
  HostRecord& host = r.host.emplace();
  host.hostname = "vm";
  host.kernel = {"Linux", "6.1.0-rt7", "#1 SMP PREEMPT_RT", "x86_64", "PREEMPT_RT", "quiet"};
  host.cpu = {"QEMU Virtual CPU", 2, {"performance"}};
  host.memory_total_kib = 4026532;
  host.jackd_version = "jackdmp version 1.9.21";
  r.server_name = "xrunlab-1-0";
  r.jackd_argv = {"jackd", "-R", "-d", "dummy"};
  r.backend = vcard_backend();
  r.driver_xruns_reach_monitor = true;
  r.started_utc = "2026-11-30T10:00:00Z";
  r.ended_utc = "2026-11-30T10:00:03Z";
  r.exit_code = 1;
  r.iso_emulation = IsoReport{};
  r.iso_emulation->label = "iso-emu 70%";
  r.iso_emulation->demotions = 1;
  r.startup_s = 1.25;
  r.engine_peak_rss_kib = 12345;
  r.jackd_cpu_pct = 3.5;
  r.graph = {{"a:out", "b:in"}};
  r.xruns.card_xruns = 2;
  r.xruns.log_driver_xruns = 1;
  r.xruns.log_driver_max_delay_us = 812.5;
  r.xruns.events = {{1.25, 60000, 2}, {1.5, 72000, 1}};
  ClientResult& c = r.client_results[1];
  c.pid = 4242;
  c.hello = true;
  c.rt_tid = 4243;
  c.sched_error = "EPERM";
  c.dsp_stages = 12;
  c.dsp_target_us = 100.5;
  c.dsp_ns_per_stage = 812.25;
  c.cycles_total = 600;
  c.ring_dropped = 1;
  c.unreferenced = 3;
  c.worst = {{1234567, 59000, 6000, 70, 6200}, {2500000, 120000, 1500, 71, 1600}};
  c.signal.add(17, 4);
  AudioResult a;
  a.period_frames = 256;
  a.totals.frames = 144000;
  a.totals.unlocked_frames = 512;
  a.totals.glitches = 1;
  a.totals.delta_max = 0.25;
  a.totals.recording = "chain.wav";
  a.totals.recorded_frames = 144000;
  a.totals.check_ns_per_frame = 3.5;
  a.final_received = true;
  GlitchResult g;
  g.report.kind = "dropped";
  g.report.frame = 60000;
  g.report.at_frame = 59000;
  g.report.jump = 256;
  g.report.length = 256;
  g.report.max_deviation = 1.5;
  g.report.excerpt = "glitch-1.wav";
  g.t_s = 1.26;
  a.glitches.push_back(g);
  r.audio = a;
  finalize(r);
  return r;
}

TEST(RunJsonRead, SampleResultRoundTripsByteForByte) {
  const std::string text = dumped(testing_support::sample_result());
  EXPECT_EQ(dumped(read_back(text)), text);
}

TEST(RunJsonRead, EveryPartRoundTripsByteForByte) {
  const RunResult r = rich_result();
  const std::string text = dumped(r);
  const RunResult back = read_back(text);
  EXPECT_EQ(dumped(back), text);
  // The parts that to_json writes in another form come back as the model had them.
  ASSERT_TRUE(back.audio);
  EXPECT_EQ(back.audio->totals.recording, "chain.wav");
  EXPECT_EQ(back.audio->glitches.at(0).report.excerpt, "glitch-1.wav");
  EXPECT_EQ(back.audio->period_frames, 256u);
  ASSERT_EQ(back.client_results.size(), 2u);
  EXPECT_EQ(back.client_results[1].worst.at(0).t_us, 1234567);
  EXPECT_EQ(back.client_results[1].summary.signal.count, 4u);
  // The rows are in seconds.jsonl: run.json's count of them comes back.
  EXPECT_TRUE(back.client_results[1].seconds.empty());
  EXPECT_EQ(back.client_rows_flushed, 6u);
  EXPECT_TRUE(back.seconds_appended);
  EXPECT_EQ(back.threads_end.at(1).sched.policy, 0);
  EXPECT_EQ(back.threads_end.at(1).mismatch, r.threads_end.at(1).mismatch);
  // Not in run.json: the histograms themselves (histogram.csv has them).
  EXPECT_TRUE(back.client_results[1].delay.empty());
}

// The run's options, its loads and its machine come back typed, each as run.json writes it
// (its keys in alphabetical order, as run.json has always had them).
TEST(RunJsonRead, SpecLoadsAndHostRoundTrip) {
  const RunResult r = rich_result();
  const std::string text = dumped(r);
  const RunResult back = read_back(text);
  EXPECT_EQ(dumped(back), text);
  ASSERT_TRUE(back.spec);
  EXPECT_EQ(back.spec->label, "rich");
  EXPECT_EQ(back.spec->period_frames, 256u);
  EXPECT_EQ(back.spec->loads, r.spec->loads);
  EXPECT_EQ(back.spec->plot_format, "svg");
  ASSERT_TRUE(back.host);
  EXPECT_EQ(back.host->kernel.release, "6.1.0-rt7");
  EXPECT_EQ(back.host->cpu.governors, std::vector<std::string>{"performance"});
  EXPECT_EQ(back.host->jackd_version, "jackdmp version 1.9.21");
  ASSERT_TRUE(back.loads);
  ASSERT_EQ(back.loads->size(), 2u);
  EXPECT_EQ(back.loads->at(1).spec, "io-write:8@nice=5");
  EXPECT_EQ(back.loads->at(1).cpus, std::vector<int>{1});
  EXPECT_FALSE(back.loads->at(0).cpus);
  EXPECT_EQ(back.loads->at(0).stop_s, 3.25);
  ASSERT_TRUE(back.loads->at(0).report);
  EXPECT_EQ(back.loads->at(0).report->cpu_user_s, 30.5);
  EXPECT_EQ(back.loads->at(0).report->iterations, 3u);

  EXPECT_EQ(back.loads->at(0).report->unit_name, "");

  const nlohmann::ordered_json j = to_json(r);
  auto keys = [](const nlohmann::ordered_json& o) {
    std::vector<std::string> k;
    for (const auto& [key, v] : o.items()) k.push_back(key);
    return k;
  };
  for (const nlohmann::ordered_json* o :
       {&j["spec"], &j["host"], &j["host"]["kernel"], &j["host"]["cpu"], &j["loads"][0]}) {
    const std::vector<std::string> k = keys(*o);
    EXPECT_TRUE(std::is_sorted(k.begin(), k.end())) << o->dump();
  }
  EXPECT_EQ(keys(j["spec"]).size(), 34u);
  EXPECT_EQ(j["host"]["jack"],
            nlohmann::ordered_json({{"jackd_version", "jackdmp version 1.9.21"}}));
  EXPECT_TRUE(j["loads"][0]["cpus"].is_null());  // not read back
  EXPECT_EQ(j["loads"][1]["cpus"], nlohmann::ordered_json({1}));

  // Without them (a model made by hand, a run from before --load): null.
  RunResult none = r;
  none.spec.reset();
  none.host.reset();
  none.loads.reset();
  const nlohmann::ordered_json n = to_json(none);
  EXPECT_TRUE(n["spec"].is_null());
  EXPECT_TRUE(n["host"].is_null());
  EXPECT_TRUE(n["loads"].is_null());
  const RunResult none_back = read_back(n.dump());
  EXPECT_FALSE(none_back.spec);
  EXPECT_FALSE(none_back.host);
  EXPECT_FALSE(none_back.loads);
}

// A slack hop with missed deadlines: the negative values in its bins come back exactly (run.json
// read and written again is the same text, the low percentiles exact); the ones beyond the bins
// come back as run.json keeps them, a count and the least value.
// xrunlab-load's report: the x11 and top loads' counted units round-trip; a report from before
// they existed (no "units", "units_s", "unit_name") reads with none counted.
TEST(RunJsonRead, LoadReportUnitsRoundTripAndMayBeMissing) {
  LoadReport l;
  l.kind = "x11";
  l.args = {"2"};
  l.units = 16427;
  l.units_s = 10.0;
  l.unit_name = "frames drawn";
  const nlohmann::json j = to_json(l);
  EXPECT_EQ(j.at("units"), 16427);
  EXPECT_EQ(j.at("units_s"), 10.0);
  EXPECT_EQ(j.at("unit_name"), "frames drawn");
  std::string why;
  const auto back = load_report_from_json(j, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->units, 16427u);
  EXPECT_EQ(back->units_s, 10.0);
  EXPECT_EQ(back->unit_name, "frames drawn");

  nlohmann::json old = j;
  old.erase("units");
  old.erase("units_s");
  old.erase("unit_name");
  const auto older = load_report_from_json(old, &why);
  ASSERT_TRUE(older) << why;
  EXPECT_EQ(older->units, 0u);
  EXPECT_EQ(older->unit_name, "");
  EXPECT_EQ(older->kind, "x11");
}

// The bench load's figures round-trip as bench_* keys of its report; every other kind has them
// null, and a report from before the bench load (no bench_* keys) reads as not a bench load.
TEST(RunJsonRead, LoadReportBenchFiguresRoundTripAndAreNullOrMissingElsewhere) {
  LoadReport l;
  l.kind = "bench";
  l.args = {"2"};
  l.bench = BenchFigures{412, 10'000'000, 48.625, 45.125, 47.875};
  const nlohmann::json j = to_json(l);
  EXPECT_EQ(j.at("bench_jobs"), 412);
  EXPECT_EQ(j.at("bench_job_iterations"), 10'000'000);
  EXPECT_EQ(j.at("bench_job_wall_ms_mean"), 48.625);
  EXPECT_EQ(j.at("bench_job_wall_ms_min"), 45.125);
  EXPECT_EQ(j.at("bench_job_cpu_ms_mean"), 47.875);
  std::string why;
  const auto back = load_report_from_json(j, &why);
  ASSERT_TRUE(back) << why;
  ASSERT_TRUE(back->bench);
  EXPECT_EQ(back->bench->jobs, 412u);
  EXPECT_EQ(back->bench->job_iterations, 10'000'000u);
  EXPECT_EQ(back->bench->job_wall_ms_mean, 48.625);
  EXPECT_EQ(back->bench->job_wall_ms_min, 45.125);
  EXPECT_EQ(back->bench->job_cpu_ms_mean, 47.875);
  EXPECT_EQ(nlohmann::json(to_json(*back)), j) << "written again, the same";

  // No job finished: the count and the size, and no times.
  l.bench = BenchFigures{0, 10'000'000, std::nullopt, std::nullopt, std::nullopt};
  const nlohmann::json none = to_json(l);
  EXPECT_EQ(none.at("bench_jobs"), 0);
  EXPECT_TRUE(none.at("bench_job_wall_ms_mean").is_null());
  const auto none_back = load_report_from_json(none, &why);
  ASSERT_TRUE(none_back && none_back->bench) << why;
  EXPECT_EQ(none_back->bench->jobs, 0u);
  EXPECT_FALSE(none_back->bench->job_wall_ms_mean);

  LoadReport cpu;
  cpu.kind = "cpu";
  const nlohmann::json other = to_json(cpu);
  for (const char* key : {"bench_jobs", "bench_job_iterations", "bench_job_wall_ms_mean",
                          "bench_job_wall_ms_min", "bench_job_cpu_ms_mean"}) {
    ASSERT_TRUE(other.contains(key)) << key;
    EXPECT_TRUE(other.at(key).is_null()) << key;
  }
  const auto other_back = load_report_from_json(other, &why);
  ASSERT_TRUE(other_back) << why;
  EXPECT_FALSE(other_back->bench);

  nlohmann::json old = other;
  for (const char* key : {"bench_jobs", "bench_job_iterations", "bench_job_wall_ms_mean",
                          "bench_job_wall_ms_min", "bench_job_cpu_ms_mean"}) {
    old.erase(key);
  }
  const auto older = load_report_from_json(old, &why);
  ASSERT_TRUE(older) << why;
  EXPECT_FALSE(older->bench);
  EXPECT_EQ(older->kind, "cpu");

  nlohmann::json wrong = j;
  wrong["bench_job_wall_ms_mean"] = "48.6";
  EXPECT_FALSE(load_report_from_json(wrong, &why)) << "a figure of the wrong type refuses it";
  EXPECT_NE(why.find("bench_job_wall_ms_mean"), std::string::npos) << why;
}

TEST(RunJsonRead, TheSlacksNegativeValuesRoundTrip) {
  RunResult r = testing_support::sample_result();
  ASSERT_TRUE(r.cycle_table.present);
  HopSeries& slack = r.cycle_table.hops.back();
  ASSERT_EQ(slack.kind, "slack");
  ASSERT_EQ(slack.us.negative_bound_us(), kSlackNegativeBoundUs);
  slack.us.add(-300, 2);
  slack.us.add(-19999);
  const std::string text = dumped(r);
  const RunResult back = read_back(text);
  EXPECT_EQ(dumped(back), text);
  const Histogram& h = back.cycle_table.hops.back().us;
  EXPECT_EQ(h.underflow_count(), 3u);
  EXPECT_EQ(h.percentile(0)->value_us, -19999);
  EXPECT_EQ(h.percentile(100.0 * 3 / 6)->value_us, -300);
  EXPECT_TRUE(h.percentile(100.0 * 3 / 6)->exact);

  slack.us.add(-25000);
  slack.us.add(-30000);
  const Histogram beyond = read_back(dumped(r)).cycle_table.hops.back().us;
  EXPECT_EQ(beyond.underflow_count(), 5u);
  EXPECT_EQ(*beyond.min(), -30000);
  EXPECT_EQ(beyond.percentile(0)->value_us, -30000);
  EXPECT_TRUE(beyond.percentile(0)->exact) << "rank 1 is the least, which run.json keeps";
  EXPECT_FALSE(beyond.percentile(100.0 * 2 / 8)->exact)
      << "rank 2: the other value beyond the bins is only counted";
  EXPECT_EQ(beyond.percentile(100.0 * 3 / 8)->value_us, -19999) << "rank 3: the bins again";
  EXPECT_TRUE(beyond.percentile(100.0 * 3 / 8)->exact);
}

// The golden file read and written again is the golden file.
TEST(RunJsonRead, GoldenFileRoundTripsByteForByte) {
  const std::string golden =
      testing_support::read_text(testing_support::golden_path("run_basic.json"));
  EXPECT_EQ(dumped(read_back(golden)), golden);
}

// A run.json of schema 1 (its per-second rows inside it, tests/fixtures/run_schema1.json: the
// golden file before schema 2), from before --backend, --load and the audible chain.
nlohmann::json schema1() {
  return nlohmann::json::parse(testing_support::fixture_text("run_schema1.json"));
}

TEST(RunJsonRead, OlderSchemaReads) {
  nlohmann::json j = schema1();
  ASSERT_EQ(j["schema_version"], 1);
  j["jack"]["backend"] = "dummy";
  j.erase("loads");
  j.erase("audio");
  j["measurement"].erase("jackd_cpu_pct");
  j["xruns"].erase("card_xruns");
  for (auto& c : j["clients"]) c.erase("signal_us");
  for (auto& s : j["system_per_second"]) s.erase("cpu_accounted_pct");
  std::string why;
  const auto r = run_result_from_json(j, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->backend.name, "dummy");
  EXPECT_FALSE(r->backend.vcard || r->backend.alsa || r->backend.attach || r->backend.pipewire);
  EXPECT_FALSE(r->loads);  // not known, rather than "none"
  EXPECT_FALSE(r->audio);
  EXPECT_FALSE(r->jackd_cpu_pct);
  EXPECT_FALSE(r->xruns.card_xruns);
  EXPECT_EQ(r->client_results.at(0).summary.signal.count, 0u);
  EXPECT_FALSE(r->system.at(0).cpu_accounted_pct);
  EXPECT_EQ(r->clients, 2);
  EXPECT_EQ(r->delay.max_us, testing_support::sample_result().delay.max_us);
  // Its rows come back into the model, and seconds.jsonl is written from them.
  const RunResult sample = testing_support::sample_result();
  ASSERT_EQ(r->client_results.at(1).seconds.size(), 3u);
  EXPECT_EQ(r->client_results.at(1).seconds.at(2).delay_max_us,
            sample.client_results.at(1).seconds.at(2).delay_max_us);
  EXPECT_EQ(r->system.size(), sample.system.size());
  EXPECT_FALSE(r->seconds_appended);
}

// Each bounded list states its bound and the run's true total beside it, and both read back.
TEST(RunJsonRead, BoundedListsStateTheirBoundAndTotal) {
  RunResult r = rich_result();
  r.xruns.monitor_events = 38037;  // the monitor counted them all, events holds the first two
  ASSERT_TRUE(r.audio);
  r.audio->totals.glitches = 23000;
  const nlohmann::json j = nlohmann::json::parse(dumped(r));
  EXPECT_EQ(j["xruns"]["events_total"], 38037);
  EXPECT_EQ(j["xruns"]["events_kept_limit"], 10000);
  EXPECT_EQ(j["xruns"]["events"].size(), 2u);
  EXPECT_EQ(j["audio"]["glitch_list_total"], 23000);
  EXPECT_EQ(j["audio"]["glitch_list_kept_limit"], 10000);
  EXPECT_EQ(j["audio"]["glitch_list"].size(), 1u);
  EXPECT_EQ(j["clients"][0]["worst_cycles_limit"], 10);
  EXPECT_EQ(j["clients"][0]["worst_cycles_per_second_limit"], 3);

  const RunResult back = read_back(j.dump(2));
  EXPECT_EQ(back.xruns.events_total(), 38037u);
  EXPECT_TRUE(back.xruns.events_cut());
  ASSERT_TRUE(back.audio);
  EXPECT_EQ(back.audio->glitches_total(), 23000u);
  EXPECT_TRUE(back.audio->glitches_cut());
  EXPECT_EQ(dumped(back), dumped(r));

  // A bound other than this version's comes back as the file says.
  nlohmann::json other = j;
  other["xruns"]["events_kept_limit"] = 500;
  other["audio"]["glitch_list_kept_limit"] = 50;
  const RunResult b = read_back(other.dump());
  EXPECT_EQ(b.xruns.events_limit, 500u);
  EXPECT_EQ(b.audio->glitches_limit, 50u);
  EXPECT_EQ(nlohmann::json::parse(dumped(b))["xruns"]["events_kept_limit"], 500);

  // A document with only the totals beside the lists (no monitor_events, no audio totals).
  nlohmann::json bare = j;
  bare["xruns"].erase("monitor_events");
  bare["audio"].erase("glitches");
  const RunResult c = read_back(bare.dump());
  EXPECT_EQ(c.xruns.monitor_events, 38037u);
  EXPECT_EQ(c.audio->totals.glitches, 23000u);

  // Files from before the bounds were stated: the same bounds, the totals from the counts.
  nlohmann::json old = j;
  old["xruns"].erase("events_total");
  old["xruns"].erase("events_kept_limit");
  old["audio"].erase("glitch_list_total");
  old["audio"].erase("glitch_list_kept_limit");
  for (auto& client : old["clients"]) {
    client.erase("worst_cycles_limit");
    client.erase("worst_cycles_per_second_limit");
  }
  const RunResult o = read_back(old.dump());
  EXPECT_EQ(o.xruns.events_limit, kXrunEventsKept);
  EXPECT_EQ(o.xruns.events_total(), 38037u);
  EXPECT_EQ(o.audio->glitches_limit, kGlitchesKept);
  EXPECT_EQ(dumped(o), dumped(r));
}

// A model built by hand may list events it did not count: the total is never below the list.
TEST(ReportJson, EventsTotalIsNeverBelowTheList) {
  RunResult r = rich_result();
  r.xruns.monitor_events = 0;
  EXPECT_EQ(to_json(r)["xruns"]["events_total"], 2);
  EXPECT_FALSE(r.xruns.events_cut());
  r.audio->totals.glitches = 0;  // no totals from the tail yet: the list is what is known
  EXPECT_EQ(to_json(r)["audio"]["glitch_list_total"], 1);
}

// A wrong type refuses the document, naming the key.
TEST(RunJsonRead, RefusalsNameTheKey) {
  const nlohmann::json good = nlohmann::json::parse(dumped(testing_support::sample_result()));
  auto why_of = [](const nlohmann::json& j) {
    std::string why;
    EXPECT_FALSE(run_result_from_json(j, &why));
    return why;
  };
  nlohmann::json j = good;
  j["settings"]["clients"] = "two";
  EXPECT_EQ(why_of(j), "'settings.clients' is not an integer (it is string)");
  j = good;
  j["totals"]["delay_us"]["p99"]["exact"] = 1;
  EXPECT_EQ(why_of(j), "'totals.delay_us.p99.exact' is not true or false (it is number)");
  j = schema1();
  j["clients"][1]["per_second"]["rows"][2][1] = -5;
  EXPECT_EQ(why_of(j),
            "'clients[1].per_second.rows[2][1]' is not a non-negative integer (it is number)");
  j = schema1();
  j["clients"][0]["per_second"]["rows"][0].erase(0);
  EXPECT_EQ(why_of(j), "'clients[0].per_second.rows[0]' has 9 cells for 10 columns");
  j = good;
  j["per_second"]["client_rows"] = -1;
  EXPECT_EQ(why_of(j), "'per_second.client_rows' is not a non-negative integer (it is number)");
  j = good;
  j["jack"]["backend"] = 3;
  EXPECT_EQ(why_of(j), "'jack.backend' is not an object (it is number)");
  j = good;
  j["jack"]["backend"] = backend_json(vcard_backend());
  j["jack"]["backend"]["reference_exact"] = "yes";
  EXPECT_EQ(why_of(j), "'jack.backend.reference_exact' is not true or false (it is string)");
  j["jack"]["backend"] = backend_json(vcard_backend());
  j["jack"]["backend"]["card"]["streams"]["capture"]["xrun_events"][0]["boundary"] = -1;
  EXPECT_EQ(why_of(j),
            "'jack.backend.card.streams.capture.xrun_events[0].boundary' is not a non-negative "
            "integer (it is number)");
  j["jack"]["backend"] = backend_json(pipewire_backend());
  j["jack"]["backend"]["data_loop_threads"] = {{{"class", 1}}};
  EXPECT_EQ(why_of(j), "'jack.backend.data_loop_threads[0].class' is not a string (it is number)");
  j = good;
  j["audio"] = "yes";
  EXPECT_EQ(why_of(j), "'audio' is not an object (it is string)");
  j = good;
  j["warnings"] = {"ok", 7};
  EXPECT_EQ(why_of(j), "'warnings[1]' is not a string (it is number)");
  j = good;
  j["settings"]["frames"] = 256.5;
  EXPECT_EQ(why_of(j), "'settings.frames' is not a non-negative integer (it is number)");
  j["settings"]["frames"] = 1e12;
  EXPECT_EQ(why_of(j), "'settings.frames' is not an integer in range (it is number)");
  j["settings"]["frames"] = -256.0;
  EXPECT_EQ(why_of(j), "'settings.frames' is not a non-negative integer (it is number)");
  j = good;
  j["settings"]["frames"] = 5000000000;
  EXPECT_EQ(why_of(j), "'settings.frames' is not an integer in range (it is number)");
  const nlohmann::json rich = nlohmann::json::parse(dumped(rich_result()));
  j = rich;
  j["spec"]["clients"] = "x";
  EXPECT_EQ(why_of(j), "'spec.clients' is not an integer (it is string)");
  j = rich;
  j["spec"]["loads"] = {"compile:2", 7};
  EXPECT_EQ(why_of(j), "'spec.loads[1]' is not a string (it is number)");
  j = rich;
  j["host"]["kernel"]["release"] = 6;
  EXPECT_EQ(why_of(j), "'host.kernel.release' is not a string (it is number)");
  j = rich;
  j["host"] = "vm";
  EXPECT_EQ(why_of(j), "'host' is not an object (it is string)");
  j = rich;
  j["loads"][1]["cpus"] = "1";
  EXPECT_EQ(why_of(j), "'loads[1].cpus' is not an array (it is string)");
  j = rich;
  j["loads"] = {{{"spec", "cpu:1"}}, 3};
  EXPECT_EQ(why_of(j), "'loads[1]' is not an object (it is number)");
  j = good;
  j.erase("schema_version");
  EXPECT_EQ(why_of(j), "no 'schema_version': not an xrunlab run.json");
  EXPECT_EQ(why_of(nlohmann::json::array()), "'run.json' is not an object (it is array)");
  // A null is an absent value, not a wrong one; 256.0 is the integer 256 (JSON has one kind of
  // number).
  j = good;
  j["settings"]["frames"] = 256.0;
  j["host"] = nullptr;
  j["settings"]["clients"] = nullptr;
  std::string why;
  const auto r = run_result_from_json(j, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->clients, 0);
  EXPECT_EQ(r->frames, 256u);
}

// The records of options and watchdogs (engine/result/run_records.hpp, explain_record.hpp),
// every one filled in.
RunResult with_records() {
  RunResult r = testing_support::sample_result();
  IsoReport iso;
  iso.events = {{0.5, true, 71.5}, {0.75, false, 60.25}};
  iso.demotions = 1;
  iso.promotions = 1;
  iso.errors = {"thread 12 vanished"};
  r.iso_emulation = iso;
  r.rt_throttle = RtThrottleRecord{"/sys/fs/cgroup/cpu/xrunlab-1", 80, 1000000};
  CyclictestResult c;
  for (int us = 1; us <= 10; ++us) c.us.add(us);
  c.max_us = 10;
  r.baseline = baseline_record({"cyclictest", "-m"}, 65, 1333, c, 20.0, std::nullopt);
  r.dma_latency = DmaLatencyRecord{"/dev/cpu_dma_latency", 0, std::nullopt};
  r.affinity = AffinityRecord{{0}, {}, 6, 0, true};
  ExplainRecord e;
  e.requested = 2;
  e.trace.instance = "xrunlab-9";
  e.trace.events = 1200;
  e.trace.coverage_ns = {1000, 9000};
  e.trace.cpu_steal_pct = {0.5, 1.25};
  ExplainedCycle& cycle = e.cycles.emplace_back();
  cycle.cycle = 7;
  cycle.t_s = 1.5;
  cycle.slack_ns = -2000;
  cycle.line = "slack -2 us: c01's DSP: busy pid 42";
  HopExplanation& hop = cycle.hops.emplace_back();
  hop.hop.hop_key = "dsp.c01";
  hop.hop.thread = "c01";
  hop.hop.tid = 201;
  hop.hop.rel_start_ns = 100;
  hop.hop.rel_end_ns = 900;
  hop.hop.start_ns = 5100;
  hop.hop.end_ns = 5900;
  hop.traced = true;
  hop.cpu = 1;
  hop.cpus = {0, 1};
  hop.woken_ns = 150;
  hop.blockers = {{42, "busy", 120, "SCHED_OTHER nice 0", 500, true}};
  hop.irqs = {{19, "eth0", 2, 40}};
  hop.softirqs = {{1, "TIMER", 1, 10}};
  hop.line = "busy pid 42";
  HopExplanation untraced = hop;
  untraced.traced = false;
  untraced.no_trace = "before the trace started";
  untraced.cpu = -1;
  cycle.hops.push_back(untraced);
  r.explain = e;
  XrunTraceRecord t;
  t.instance = "xrunlab-9-xrun";
  t.buffer_kb_per_cpu = 4096;
  t.xrun_mono_ns = 10;
  t.frozen_mono_ns = 20;
  t.file = "xrun-trace.dat";
  t.argv = std::vector<std::string>{"trace-cmd", "extract"};
  r.trace_on_xrun = t;
  r.rt_time_limit = RtTimeLimitRecord{1000000, 2000000, 3000000, {"jackd"}, "the rule"};
  RunawayRecord a;
  a.client = "c01";
  a.index = 1;
  a.pid = 4242;
  a.tid = 4243;
  a.ran_ms = 3000;
  a.stopped_by = "watchdog";
  a.signal = "SIGKILL";
  a.stopped_mono_ns = 99;
  a.reason = "c01 ran away";
  r.runaway = a;
  RampRecord ramp;
  ramp.step_pct = 1;
  ramp.every = 30;
  ramp.ns_per_stage = 123.25;
  ramp.top_pct = 100;
  ramp.from_cycle = 4000;
  ramp.ended = "first_xrun";
  ramp.reached_pct = 71.5;
  RampFirstXrun first;
  first.cycle = 6100;
  first.t_s = 3.25;
  first.step = 71;
  first.load_pct = 71.5;
  first.nominal_pct = 70.5;  // measured_pct unknown: null
  first.broke = RampBreak{"wakeup.c03", "client_wakeup", 3, "c03 wake-up", 120.5, ""};
  ramp.first_xrun = first;
  r.ramp = ramp;
  finalize(r);
  return r;
}

TEST(RunJsonRead, EveryRecordRoundTripsByteForByte) {
  const RunResult r = with_records();
  const std::string text = dumped(r);
  const RunResult back = read_back(text);
  EXPECT_EQ(dumped(back), text);
  ASSERT_TRUE(back.explain && back.baseline && back.affinity && back.runaway && back.ramp);
  ASSERT_TRUE(back.ramp->first_xrun && back.ramp->first_xrun->broke);
  EXPECT_EQ(back.ramp->first_xrun->broke->late_us, 120.5);
  EXPECT_FALSE(back.ramp->first_xrun->measured_pct);
  EXPECT_EQ(back.ramp->from_cycle, 4000u);
  ASSERT_EQ(back.explain->cycles.at(0).hops.size(), 2u);
  const HopExplanation& hop = back.explain->cycles[0].hops[0];
  EXPECT_EQ(hop.hop.rel_end_ns, 900);
  EXPECT_EQ(hop.cpus, (std::set<int>{0, 1}));
  EXPECT_EQ(back.explain->cycles[0].hops[1].cpu, -1) << "null reads back as unknown";
  EXPECT_EQ(back.explain->cycles[0].hops[1].no_trace, "before the trace started");
  EXPECT_EQ(back.baseline->p99->value_us, 10);
  EXPECT_EQ(back.baseline->bins.size(), 10u);
  EXPECT_TRUE(back.affinity->load_cpus.empty());
  EXPECT_EQ(back.iso_emulation->events.at(1).demote, false);
  // run.json's form: sorted keys, the unset sets null, the action a word, the bins pairs.
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_TRUE(j["affinity"]["load_cpus"].is_null());
  EXPECT_EQ(j["scheduling"]["iso_emulation"]["events"][0]["action"], "demote");
  EXPECT_EQ(j["baseline"]["bins"][0], nlohmann::json::array({1, 1}));
  EXPECT_FALSE(j["baseline"].contains("error"));
  EXPECT_TRUE(j["explain"]["cycles"][0]["hops"][1]["cpu"].is_null());
  EXPECT_FALSE(j["explain"]["cycles"][0]["hops"][0].contains("no_trace"));
  EXPECT_EQ(j["explain"]["cycles"][0]["hops"][0]["window_ns"], nlohmann::json::array({100, 900}));
}

TEST(RunJsonRead, ABaselineWithoutFiguresHasOnlyItsSettingsAndWhy) {
  RunResult r = testing_support::sample_result();
  r.baseline = baseline_error_record({"cyclictest"}, 65, 1333, "cyclictest exited with status 1");
  const std::string text = dumped(r);
  const nlohmann::json j = nlohmann::json::parse(text)["baseline"];
  EXPECT_EQ(j["error"], "cyclictest exited with status 1");
  EXPECT_FALSE(j.contains("p99"));
  EXPECT_FALSE(j.contains("wakeups"));
  EXPECT_EQ(dumped(read_back(text)), text);
}

TEST(RunJsonRead, ARecordOfTheWrongTypeIsRefusedByItsPath) {
  const nlohmann::json good = nlohmann::json::parse(dumped(with_records()));
  auto why_of = [](const nlohmann::json& j) {
    std::string why;
    EXPECT_FALSE(run_result_from_json(j, &why));
    return why;
  };
  nlohmann::json j = good;
  j["runaway"]["pid"] = "x";
  EXPECT_EQ(why_of(j), "'runaway.pid' is not an integer (it is string)");
  j = good;
  j["logs"]["jackd"]["dropped"]["Jack: X"] = -1;
  EXPECT_EQ(why_of(j), "'logs.jackd.dropped.Jack: X' is not a non-negative integer (it is number)");
  j = good;
  j["scheduling"]["iso_emulation"]["events"][0]["action"] = "pause";
  EXPECT_EQ(why_of(j),
            "'scheduling.iso_emulation.events[0].action' is neither demote nor promote (it is "
            "'pause')");
  j = good;
  j["explain"]["trace"]["coverage_ns"] = {1};
  EXPECT_EQ(why_of(j), "'explain.trace.coverage_ns' is not [start, end]");
  j = good;
  j["affinity"] = "all";
  EXPECT_EQ(why_of(j), "'affinity' is not an object (it is string)");
}

// Each backend's record is written with the keys, the nulls and the absences Backend::describe()
// gives it, in alphabetical order, and read back as the same record.
TEST(RunJsonBackend, VcardWithItsCardRoundTrips) {
  const nlohmann::ordered_json j = backend_json(vcard_backend());
  EXPECT_TRUE(keys_sorted(j)) << j.dump(2);
  const nlohmann::json card = j["card"];
  const nlohmann::json expected = {
      {"name", "vcard"},
      {"driver", "JACK alsa driver on the xrunlab ioplug card"},
      {"pcm", "xrunlab_vcard"},
      {"plugin", "/usr/lib/xrunlab/libasound_module_pcm_xrunlab.so"},
      {"alsa_config", "/runs/r1/vcard-asound.conf"},
      {"shm", "/xrunlab-vcard-xrunlab-1-0"},
      {"capture_channels", 5},
      {"playback_channels", 4},
      {"clock_channel", 5},
      {"clock", "CLOCK_MONOTONIC (timerfd)"},
      {"reference", "vcard period boundary"},
      {"reference_exact", true},
      {"card",
       {{"wake_stream", "capture"},
        {"wakes", 1875},
        {"missed", 1},
        {"wake_latency_us", nlohmann::json(to_json(vcard_backend().vcard->card->wake_latency_us))},
        {"streams",
         {{"playback",
           {{"open", true},
            {"starts", 1},
            {"timer_arms", 1879},
            {"wakes_written", 0},
            {"xruns", 0},
            {"xrun_events", nlohmann::json::array()}}},
          {"capture",
           {{"open", true},
            {"starts", 2},
            {"timer_arms", 1880},
            {"wakes_written", 1876},
            {"xruns", 1},
            {"xrun_events",
             {{{"boundary", 900},
               {"ideal_ns", 1000000},
               {"detected_ns", 1250000},
               {"detection_delay_us", 250},
               {"avail_frames", 512}}}}}}}}}}};
  EXPECT_EQ(nlohmann::json(j), expected);
  EXPECT_EQ(card["wake_latency_us"]["p99"]["value_us"], 40);

  RunResult r = testing_support::sample_result();
  r.backend = vcard_backend();
  const std::string text = dumped(r);
  const RunResult back = read_back(text);
  EXPECT_EQ(dumped(back), text);
  ASSERT_TRUE(back.backend.vcard && back.backend.vcard->card);
  EXPECT_TRUE(back.backend.reference_exact);
  EXPECT_EQ(back.backend.vcard->clock_channel, 5);
  EXPECT_EQ(back.backend.vcard->card->capture.xrun_events.at(0).detection_delay_us, 250);
  EXPECT_EQ(back.backend.vcard->card->wake_latency_us.max_us, 900);
  EXPECT_EQ(to_json(back)["measurement"]["delay_reference_exact"], true);

  // Before the card exists: no "card" at all; its wake stream unknown: null.
  BackendRecord early = vcard_backend();
  early.vcard->card.reset();
  EXPECT_FALSE(backend_json(early).contains("card"));
  BackendRecord unknown = vcard_backend();
  unknown.vcard->card->wake_stream.reset();
  EXPECT_TRUE(backend_json(unknown)["card"]["wake_stream"].is_null());
}

TEST(RunJsonBackend, PipewireWithItsThreadsRoundTrips) {
  const nlohmann::ordered_json j = backend_json(pipewire_backend());
  EXPECT_TRUE(keys_sorted(j)) << j.dump(2);
  const nlohmann::json thread_start = {{"pid", 4100},        {"tid", 4102},
                                       {"name", "pipewire"}, {"class", "SCHED_FIFO"},
                                       {"priority", 70},     {"nice", 0}};
  const nlohmann::json thread_end = {{"pid", 4100},        {"tid", 4102},
                                     {"name", "pipewire"}, {"class", "SCHED_OTHER"},
                                     {"priority", 0},      {"nice", -11}};
  const nlohmann::json expected = {
      {"name", "pipewire"},
      {"driver", "PipeWire Dummy-Driver (support.node.driver, timer)"},
      {"program", "/usr/bin/pipewire"},
      {"version", "0.3.65"},
      {"config", "/runs/r1/pipewire.conf"},
      {"runtime_dir", "/tmp/xrunlab-pipewire-xrunlab-1-0.abc"},
      {"socket", "xrunlab-1-0"},
      {"libjack", "/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack/libjack.so.0"},
      {"quantum_requested", 256},
      {"rate_requested", 48000},
      {"rt_module", {{"rt.prio", 70}}},
      {"reference", "jack_frames_since_cycle_start"},
      {"reference_exact", false},
      {"pid", 4100},
      {"data_loop_threads", {thread_start}},
      {"data_loop_threads_end", {thread_end}}};
  EXPECT_EQ(nlohmann::json(j), expected);

  RunResult r = testing_support::sample_result();
  r.backend = pipewire_backend();
  const std::string text = dumped(r);
  const RunResult back = read_back(text);
  EXPECT_EQ(dumped(back), text);
  ASSERT_TRUE(back.backend.pipewire);
  EXPECT_TRUE(back.backend.is_pipewire());
  EXPECT_EQ(back.backend.pipewire->rt_priority, 70);
  ASSERT_TRUE(back.backend.pipewire->data_loop_threads_end);
  EXPECT_EQ(back.backend.pipewire->data_loop_threads_end->at(0).nice, -11);

  // Before the daemon started, its threads unread, its version and module-rt unknown: pid and
  // the end's threads absent, no threads and why, version and rt_module null.
  BackendRecord early = pipewire_backend();
  PipewireBackendRecord& p = *early.pipewire;
  p.pid.reset();
  p.data_loop_threads.clear();
  p.data_loop_threads_end.reset();
  p.data_loop_why = "the daemon (pid 4100) has no thread besides its main";
  p.version.reset();
  p.rt_priority.reset();
  const nlohmann::ordered_json e = backend_json(early);
  EXPECT_TRUE(keys_sorted(e));
  EXPECT_FALSE(e.contains("pid"));
  EXPECT_FALSE(e.contains("data_loop_threads_end"));
  EXPECT_EQ(e["data_loop_threads"], nlohmann::ordered_json::array());
  EXPECT_EQ(e["data_loop_why"], "the daemon (pid 4100) has no thread besides its main");
  EXPECT_TRUE(e["version"].is_null());
  EXPECT_TRUE(e["rt_module"].is_null());
  r.backend = early;
  EXPECT_EQ(dumped(read_back(dumped(r))), dumped(r));
}

TEST(RunJsonBackend, AlsaAttachAndDummyRoundTrip) {
  BackendRecord alsa;
  alsa.name = "alsa:hw:0";
  alsa.driver = "JACK alsa driver";
  alsa.reference = "jack_get_cycle_times current_usecs";
  AlsaBackendRecord& a = alsa.alsa.emplace();
  a.device = "(first card)";
  a.pcm = "hw:0";
  AlsaCardInfo& info = a.card.emplace();
  info.pcm = "hw:0";
  info.device = 0;
  info.card = 0;
  info.id = "PCH";
  info.driver = "HDA-Intel";
  info.name = "HDA Intel PCH";
  info.long_name = "HDA Intel PCH at 0xf7f10000 irq 32";
  info.irqs = {{{32, 6801, "snd_hda_intel:card0", {"snd_hda_intel:card0"}, "the card's handler"}}};
  info.irq_threads = {{{145, "irq/32-snd_hda_", 32, "SCHED_FIFO", 50},
                       {150, "irq/32-snd_hda_", 32, std::nullopt, std::nullopt}}};
  info.notes = {"the scheduling of irq/32-snd_hda_ (pid 150) could not be read"};

  BackendRecord attach;
  attach.name = "attach";
  attach.reference = "jack_get_cycle_times current_usecs (the attached server's DLL estimate)";
  attach.attach.emplace().server = "default";
  attach.server_settings = ServerSettings{48000, 256, true, 0.5, "1.9.21", {"system:capture_1"}};

  BackendRecord dummy;
  dummy.name = "dummy";
  dummy.driver = "JACK dummy (timer)";
  dummy.reference = "jack_frames_since_cycle_start";

  for (const BackendRecord& b : {alsa, attach, dummy}) {
    EXPECT_TRUE(keys_sorted(backend_json(b))) << b.name;
    RunResult r = testing_support::sample_result();
    r.backend = b;
    EXPECT_EQ(dumped(read_back(dumped(r))), dumped(r)) << b.name;
  }

  const nlohmann::json aj = backend_json(alsa);
  EXPECT_EQ(aj["card"]["irq_threads"][0], nlohmann::json({{"pid", 145},
                                                          {"comm", "irq/32-snd_hda_"},
                                                          {"irq", 32},
                                                          {"policy", "SCHED_FIFO"},
                                                          {"priority", 50}}));
  EXPECT_TRUE(aj["card"]["irq_threads"][1]["policy"].is_null());
  EXPECT_EQ(aj["card"]["irqs"][0]["card_actions"], nlohmann::json({"snd_hda_intel:card0"}));
  AlsaBackendRecord unknown = *alsa.alsa;
  unknown.card->irqs.reset();
  unknown.card->irq_threads.reset();
  alsa.alsa = unknown;
  EXPECT_TRUE(backend_json(alsa)["card"]["irqs"].is_null());
  EXPECT_TRUE(backend_json(alsa)["card"]["irq_threads"].is_null());
  alsa.alsa->card.reset();
  EXPECT_TRUE(backend_json(alsa)["card"].is_null());

  EXPECT_EQ(nlohmann::json(backend_json(attach)),
            nlohmann::json({{"name", "attach"},
                            {"server", "default"},
                            {"launched", false},
                            {"reference", attach.reference},
                            {"reference_exact", false},
                            {"server_settings",
                             {{"rate_hz", 48000},
                              {"frames", 256},
                              {"realtime", true},
                              {"max_delayed_usecs", 0.5},
                              {"max_delayed_usecs_note",
                               "as the server reports it; PipeWire's JACK reportedly uses other "
                               "units"},
                              {"jack_library_version", "1.9.21"},
                              {"physical_ports", {"system:capture_1"}}}}}));
  EXPECT_EQ(nlohmann::json(backend_json(dummy)),
            nlohmann::json({{"name", "dummy"},
                            {"driver", "JACK dummy (timer)"},
                            {"reference", "jack_frames_since_cycle_start"},
                            {"reference_exact", false}}));
  // No backend known: an empty object.
  EXPECT_EQ(backend_json(BackendRecord{}), nlohmann::ordered_json::object());
}

// The janitor's view of a run.json the whole reader refuses: its status words, and the same
// document marked with another status.
TEST(RunStatusWords, ReadAndSetWithoutTheRestOfTheDocument) {
  nlohmann::json j = nlohmann::json::parse(dumped(testing_support::sample_result()));
  j["settings"]["clients"] = "two";  // refused by run_result_from_json
  j["status"] = "running";
  const RunStatusWords w = run_status_words(j);
  EXPECT_EQ(w.status, "running");
  EXPECT_EQ(w.detail, j["status_detail"].get<std::string>());
  const nlohmann::json marked =
      nlohmann::json::parse(with_run_status(j, RunStatus::kKilled, "SIGKILL"));
  EXPECT_EQ(marked["status"], "killed");
  EXPECT_EQ(marked["status_detail"], "SIGKILL");
  EXPECT_EQ(marked["settings"]["clients"], "two") << "the rest as it was";
  EXPECT_EQ(run_status_words(nlohmann::json::array()).status, "");
  EXPECT_EQ(run_status_words({{"status", 3}}).status, "") << "not a string";
}

}  // namespace
}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: `xrunlab summary` over 1,000 run folders (find + read run.json + format SUMMARY).
// The folders hold copies of a realistic run.json: the writer's own output for a 14-client,
// 300 s run (per-client per-second series included), about the size real runs have.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>

#include "engine/report/multirun.hpp"
#include "engine/report/run_record.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/atomic_file.hpp"

namespace {

namespace fs = std::filesystem;
using namespace xrunlab;

std::string realistic_run_json() {
  RunResult r;
  r.schema_version = 1;
  r.spec.emplace().label = "bench";
  r.status = RunStatus::kCompleted;
  r.clients = 14;
  r.ports = 4;
  r.frames = 64;
  r.rate = 48000;
  for (int c = 1; c <= 14; ++c) {
    ClientResult cr;
    cr.index = c;
    cr.name = fmt::format("xrunlab-c{:02d}", c);
    for (int s = 0; s < 300; ++s) {
      telemetry::Second sec;
      sec.index = c;
      sec.second = s;
      sec.cycles = 750;
      sec.delay = {{20 * c, 700}, {40 * c + s % 7, 50}};
      sec.delay_dll = sec.delay;
      sec.duration = {{100, 750}};
      sec.cycle = {{120 + 20 * c, 750}};
      add_second(cr, sec);
    }
    r.client_results.push_back(std::move(cr));
  }
  for (int s = 0; s < 300; ++s) {
    SystemSecond ss;
    ss.t_s = s + 1;
    ss.dsp_load_pct = 40;
    r.system.push_back(ss);
  }
  finalize(r);
  return to_json(r).dump(2);
}

void BM_Summary1000Folders(benchmark::State& state) {
  const fs::path root = fs::temp_directory_path() / fmt::format("xrunlab-bench-{}", getpid());
  const std::string text = realistic_run_json();
  for (int i = 0; i < 1000; ++i) {
    const fs::path dir = root / fmt::format("label{}", i % 10) / fmt::format("run{:04d}", i);
    fs::create_directories(dir);
    write_file_atomic((dir / "run.json").string(), text);
  }
  state.counters["run_json_kib"] = static_cast<double>(text.size()) / 1024.0;
  for (auto _ : state) {
    std::vector<RunRecord> runs;
    for (const std::string& dir : find_run_folders({root.string()})) {
      if (auto rec = read_run_folder(dir, nullptr)) runs.push_back(*rec);
    }
    benchmark::DoNotOptimize(format_summary_file(runs));
    if (runs.size() != 1000) state.SkipWithError("not every folder was read");
  }
  fs::remove_all(root);
}
BENCHMARK(BM_Summary1000Folders)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();

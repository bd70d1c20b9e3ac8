// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: the campaign's own time per run, beyond the runs themselves. A real campaign
// (engine/campaign: plan, campaign.json after every run, the spawn and wait, reading each
// run.json, the report, campaign.png by gnuplot) of 4 cases x 5 repetitions, whose `xrunlab
// run` is campaign_bench_child: a program that only copies a real run.json into place (the
// curated example run's: 14 clients, every figure the report reads). BM_CampaignPerRun is the whole
// campaign's wall time divided by its runs; BM_ChildAlone is one spawn and wait of that child
// without the campaign, so the difference is what the campaign adds to each run. (A real campaign
// prints the same figure measured on its real runs at the end: "the campaign's own time beyond
// them".) Target: < 1 s per run.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "engine/campaign/campaign_runner.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace xrunlab;
using Clock = std::chrono::steady_clock;

constexpr int kCases = 4;
constexpr int kRepetitions = 5;

struct Setup {
  fs::path root = fs::temp_directory_path() / fmt::format("xrunlab-campaign-bench-{}", getpid());
  std::string child;

  Setup() {
    fs::create_directories(root);
    ::setenv("XRUNLAB_BENCH_RUN_JSON", XRUNLAB_EXAMPLE_RUN_JSON, 1);
    child = (fs::read_symlink("/proc/self/exe").parent_path() / "campaign_bench_child").string();
    write_file_atomic((root / "bench.toml").string(),
                      "name = \"bench\"\nrepetitions = 5\n[run]\nduration = 1\n[axes]\n"
                      "policy = [\"fifo\", \"other\"]\nload = [\"none\", \"compile\"]\n");
  }
  ~Setup() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

// stdout to /dev/null while the campaign prints its plan and report.
class Silence {
 public:
  Silence() {
    std::fflush(stdout);
    saved_ = ::dup(STDOUT_FILENO);
    FILE* null = std::fopen("/dev/null", "w");
    if (null != nullptr) {
      ::dup2(::fileno(null), STDOUT_FILENO);
      std::fclose(null);
    }
  }
  ~Silence() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      ::dup2(saved_, STDOUT_FILENO);
      ::close(saved_);
    }
  }

 private:
  int saved_ = -1;
};

void BM_CampaignPerRun(benchmark::State& state) {
  Setup s;
  const std::atomic<bool> stop{false};
  int n = 0;
  for (auto _ : state) {
    CampaignOptions o;
    o.file = (s.root / "bench.toml").string();
    o.dir = (s.root / fmt::format("c{}", n++)).string();
    o.quiet = true;
    o.seed = 1;
    o.self_exe = s.child;
    int code = 0;
    const auto t0 = Clock::now();
    {
      Silence quiet;
      code = run_campaign(
          o, [](const std::vector<std::string>&) {}, stop);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (code != 0) state.SkipWithError(fmt::format("the campaign exited {}", code).c_str());
    for (const char* f : {"campaign-summary.txt", "campaign.png"}) {
      if (!fs::exists(fs::path(o.dir) / f)) {
        state.SkipWithError(fmt::format("the campaign wrote no {}", f).c_str());
      }
    }
    state.SetIterationTime(seconds / (kCases * kRepetitions));
  }
  state.counters["runs"] = kCases * kRepetitions;
}
BENCHMARK(BM_CampaignPerRun)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_ChildAlone(benchmark::State& state) {
  Setup s;
  int n = 0;
  for (auto _ : state) {
    SpawnSpec spec;
    spec.argv = {s.child, "run",      "--label",
                 "x",     "--output", (s.root / fmt::format("alone{}", n++)).string(),
                 "-q"};
    spec.output_path = (s.root / "alone.log").string();
    Child child = Child::spawn(spec);
    child.wait_for(std::chrono::seconds(10));
    if (child.wait_status().value_or(-1) != 0) state.SkipWithError("the child failed");
  }
}
BENCHMARK(BM_ChildAlone)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();

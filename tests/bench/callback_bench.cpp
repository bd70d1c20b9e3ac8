// Benchmark of the process callback's bookkeeping: the reads the callback makes at entry
// (jack_get_time, jack_frames_since_cycle_start, jack_last_frame_time, jack_get_cycle_times),
// the clock read at exit and the push of one CycleRecord into the SPSC ring. The DSP work
// itself is excluded (it is sized by --dsp-load). jack_get_time() is only valid once a client
// is open (it crashes before), so the benchmark starts its own private jackd (dummy backend)
// and opens a client on it; XRUNLAB_BENCH_SERVER=NAME uses a running server instead.
#include <benchmark/benchmark.h>
#include <jack/jack.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "clients/rt/cycle_record.hpp"
#include "clients/rt/spsc_ring.hpp"
#include "engine/backend/backend.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/jack/monitor.hpp"
#include "engine/system/process.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace {

using Ring = xrunlab::SpscRing<xrunlab::CycleRecord, 16384>;
jack_client_t* g_client = nullptr;

// What process_rt does around the DSP work, in the same order.
void BM_Bookkeeping(benchmark::State& state) {
  auto ring = std::make_unique<Ring>();
  uint64_t dropped = 0;
  size_t since_drain = 0;
  for (auto _ : state) {
    xrunlab::CycleRecord rec;
    rec.t_entry_us = jack_get_time();
    rec.frames_since_start = jack_frames_since_cycle_start(g_client);
    rec.frame_time = jack_last_frame_time(g_client);
    rec.nframes = 64;
    jack_nframes_t cf;
    jack_time_t cu, nu;
    float pu;
    if (jack_get_cycle_times(g_client, &cf, &cu, &nu, &pu) == 0) rec.dll_period_start_us = cu;
    rec.t_exit_us = jack_get_time();
    if (!ring->rt_push(rec)) ++dropped;
    // The drain thread empties the ring in bulk; its (small) share is included, amortized.
    if (++since_drain == 4096) {
      ring->drain([](const xrunlab::CycleRecord& r) { benchmark::DoNotOptimize(r); });
      since_drain = 0;
    }
  }
  state.counters["dropped"] = static_cast<double>(dropped);
}
BENCHMARK(BM_Bookkeeping);

// What --backend vcard adds at entry: a CLOCK_MONOTONIC read and decoding the period marker
// from the clock port's buffer.
void BM_VcardEntryReads(benchmark::State& state) {
  float clock[64] = {};
  xrunlab::vcard::write_marker(clock, 1, 123456789);
  for (auto _ : state) {
    xrunlab::CycleRecord rec;
    timespec mono{};
    clock_gettime(CLOCK_MONOTONIC, &mono);
    rec.t_entry_mono_ns =
        static_cast<uint64_t>(mono.tv_sec) * 1000000000u + static_cast<uint64_t>(mono.tv_nsec);
    if (xrunlab::vcard::read_marker(clock, 64, &rec.card_boundary)) rec.flags |= 2;
    benchmark::DoNotOptimize(rec);
  }
}
BENCHMARK(BM_VcardEntryReads);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(jack_get_time());
}
BENCHMARK(BM_ClockRead);

void BM_RingPushOnly(benchmark::State& state) {
  auto ring = std::make_unique<Ring>();
  size_t since_drain = 0;
  xrunlab::CycleRecord rec;
  for (auto _ : state) {
    rec.t_entry_us++;
    benchmark::DoNotOptimize(ring->rt_push(rec));
    if (++since_drain == 4096) {
      ring->drain([](const xrunlab::CycleRecord& r) { benchmark::DoNotOptimize(r); });
      since_drain = 0;
    }
  }
}
BENCHMARK(BM_RingPushOnly);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  xrunlab::Child jackd;
  std::string server;
  if (const char* env = std::getenv("XRUNLAB_BENCH_SERVER")) {
    server = env;
  } else {
    xrunlab::ServerSpec spec;
    spec.name = xrunlab::private_server_name();
    spec.priority = 0;
    spec.clients = 1;
    spec.ports = 1;
    xrunlab::BackendSetup setup;
    setup.frames = 1024;
    setup.ports = 1;
    spec.driver = xrunlab::make_backend(xrunlab::parse_backend("dummy"))->driver_argv(setup);
    xrunlab::SpawnSpec s;
    s.argv = xrunlab::jackd_argv(spec);
    s.output_path = "/dev/null";
    jackd = xrunlab::Child::spawn(s);
    server = spec.name;
  }
  xrunlab::Monitor monitor;
  const std::string err = monitor.connect(server, std::chrono::milliseconds(10000),
                                          [&] { return jackd.pid() < 0 || jackd.running(); });
  if (!err.empty()) {
    std::fprintf(stderr, "callback_bench: %s\n", err.c_str());
    return 1;
  }
  g_client = monitor.client();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  monitor.close();
  jackd.stop(std::chrono::milliseconds(1000));
  return 0;
}

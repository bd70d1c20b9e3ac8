// Benchmark of the process callback's bookkeeping: the clock reads at entry and exit and the
// push of one CycleRecord into the SPSC ring (the DSP work itself is excluded: it is sized by
// --dsp-load). jack_get_time() is CLOCK_MONOTONIC_RAW through the vDSO on Linux; JACK's
// frames-since-cycle-start and cycle-times reads need a live server and are plain shared-memory
// reads, benchmarked here only when XRUNLAB_BENCH_SERVER names a running JACK server.
#include <benchmark/benchmark.h>
#include <jack/jack.h>

#include <cstdlib>
#include <memory>

#include "clients/cycle_record.hpp"
#include "clients/spsc_ring.hpp"

namespace {

using Ring = xrunlab::SpscRing<xrunlab::CycleRecord, 16384>;

void BM_Bookkeeping(benchmark::State& state) {
  auto ring = std::make_unique<Ring>();
  uint64_t dropped = 0;
  size_t since_drain = 0;
  for (auto _ : state) {
    xrunlab::CycleRecord rec;
    rec.t_entry_us = jack_get_time();
    rec.nframes = 64;
    rec.t_exit_us = jack_get_time();
    if (!ring->rt_push(rec)) ++dropped;
    // The drain thread's share: amortized, as in the client (it empties the ring in bulk).
    if (++since_drain == 4096) {
      ring->drain([](const xrunlab::CycleRecord& r) { benchmark::DoNotOptimize(r); });
      since_drain = 0;
    }
  }
  state.counters["dropped"] = static_cast<double>(dropped);
}
BENCHMARK(BM_Bookkeeping);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(jack_get_time());
}
BENCHMARK(BM_ClockRead);

// With a live server: the full set of reads the callback does.
void BM_BookkeepingWithServer(benchmark::State& state) {
  const char* server = std::getenv("XRUNLAB_BENCH_SERVER");
  if (server == nullptr) {
    state.SkipWithError("set XRUNLAB_BENCH_SERVER to a running JACK server name");
    return;
  }
  jack_client_t* client = jack_client_open(
      "xrunlab-bench", static_cast<jack_options_t>(JackNoStartServer | JackServerName), nullptr,
      server);
  if (client == nullptr) {
    state.SkipWithError("cannot connect to XRUNLAB_BENCH_SERVER");
    return;
  }
  auto ring = std::make_unique<Ring>();
  size_t since_drain = 0;
  for (auto _ : state) {
    xrunlab::CycleRecord rec;
    rec.t_entry_us = jack_get_time();
    rec.frames_since_start = jack_frames_since_cycle_start(client);
    rec.frame_time = jack_last_frame_time(client);
    jack_nframes_t cf;
    jack_time_t cu, nu;
    float pu;
    if (jack_get_cycle_times(client, &cf, &cu, &nu, &pu) == 0) rec.dll_period_start_us = cu;
    rec.t_exit_us = jack_get_time();
    ring->rt_push(rec);
    if (++since_drain == 4096) {
      ring->drain([](const xrunlab::CycleRecord& r) { benchmark::DoNotOptimize(r); });
      since_drain = 0;
    }
  }
  jack_client_close(client);
}
BENCHMARK(BM_BookkeepingWithServer);

}  // namespace

BENCHMARK_MAIN();

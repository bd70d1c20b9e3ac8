// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark of the process callback's own bookkeeping: the real process_cycle_rt
// (clients/rt/process_callback.hpp) through the real JACK seam, with DSP work of zero stages (the
// DSP work itself is sized by --dsp-load and excluded here). One iteration is one callback: the
// clock and JACK reads at entry, the port buffers, the zero-stage bank (a copy from each input
// to its output), the clock read at exit and the push of one CycleRecord into the SPSC ring.
//
// The callback runs on the benchmark's thread, on a client that is open but not active, so
// JACK's own cycle never runs it; jack_get_time() is only valid once a client is open (it
// crashes before), so the benchmark starts its own private jackd (dummy backend) and opens a
// client on it; XRUNLAB_BENCH_SERVER=NAME uses a running server instead. The input ports are
// not connected: JACK hands out a zeroed buffer for each (a memset of nframes samples that a
// connected port would not need).
#include <benchmark/benchmark.h>
#include <jack/jack.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "clients/rt/jack_seam.hpp"
#include "clients/rt/process_callback.hpp"
#include "clients/rt/thread_tid.hpp"
#include "engine/backend/backend.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/jack/monitor.hpp"
#include "engine/system/process.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace {

constexpr int kMaxPorts = 4;
constexpr jack_nframes_t kFrames = 64;  // what the callback processes per iteration
jack_client_t* g_client = nullptr;
std::vector<jack_port_t*> g_in, g_out;  // in_1..4, out_1..4 on g_client
jack_port_t* g_clock = nullptr;         // an output port carrying a vcard marker

// The client's context for `ports` ports, as its set-up builds it, on the real JACK seam.
std::unique_ptr<xrunlab::RtContext> make_context(int ports, bool clock_port) {
  auto ctx = std::make_unique<xrunlab::RtContext>();
  xrunlab::RtConfig& c = ctx->config;
  c.jack = xrunlab::real_jack_seam();
  c.client = g_client;
  c.in_ports.assign(g_in.begin(), g_in.begin() + ports);
  c.out_ports.assign(g_out.begin(), g_out.begin() + ports);
  if (clock_port) c.clock_port = g_clock;
  c.bank = std::make_unique<xrunlab::BiquadBank>(ports, 0, jack_get_sample_rate(g_client));
  c.ring = std::make_unique<xrunlab::CycleRing>();
  ctx->state = xrunlab::make_rt_state(c, jack_get_buffer_size(g_client));
  return ctx;
}

// Iterations of the real callback; the drain thread's (small) share of emptying the ring in
// bulk is included, amortized, as before.
void run_callbacks(benchmark::State& state, xrunlab::RtContext& ctx) {
  xrunlab::record_thread_tid();  // as the process thread has: the tid is published once
  uint64_t boundaries = 0;
  size_t since_drain = 0;
  for (auto _ : state) {
    xrunlab::process_cycle_rt(ctx.config, ctx.state, ctx.shared, kFrames);
    if (++since_drain == 4096) {
      ctx.config.ring->drain([&](const xrunlab::CycleRecord& r) {
        boundaries += (r.flags & xrunlab::CycleRecord::kHasBoundary) != 0;
      });
      since_drain = 0;
    }
  }
  ctx.config.ring->drain([&](const xrunlab::CycleRecord& r) {
    boundaries += (r.flags & xrunlab::CycleRecord::kHasBoundary) != 0;
  });
  state.counters["dropped"] = static_cast<double>(ctx.shared.ring_dropped.load());
  state.counters["with_boundary"] =
      benchmark::Counter(static_cast<double>(boundaries), benchmark::Counter::kAvgIterations);
}

// The callback with `ports` ports (the client's default is 4) and nothing else.
void BM_Bookkeeping(benchmark::State& state) {
  auto ctx = make_context(static_cast<int>(state.range(0)), false);
  run_callbacks(state, *ctx);
}
BENCHMARK(BM_Bookkeeping)->ArgName("ports")->Arg(1)->Arg(kMaxPorts);

// What --backend vcard adds: a CLOCK_MONOTONIC read, the clock port's buffer and decoding the
// period marker in it (with_boundary 1: every cycle decoded one).
void BM_VcardBookkeeping(benchmark::State& state) {
  auto ctx = make_context(static_cast<int>(state.range(0)), true);
  run_callbacks(state, *ctx);
}
BENCHMARK(BM_VcardBookkeeping)->ArgName("ports")->Arg(1)->Arg(kMaxPorts);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(jack_get_time());
}
BENCHMARK(BM_ClockRead);

void BM_RingPushOnly(benchmark::State& state) {
  auto ring = std::make_unique<xrunlab::CycleRing>();
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

// The ports the contexts use, on the (inactive) benchmark client. "" or why not.
std::string register_ports() {
  for (int p = 1; p <= kMaxPorts; ++p) {
    g_in.push_back(jack_port_register(g_client, ("in_" + std::to_string(p)).c_str(),
                                      JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0));
    g_out.push_back(jack_port_register(g_client, ("out_" + std::to_string(p)).c_str(),
                                       JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0));
    if (g_in.back() == nullptr || g_out.back() == nullptr) return "cannot register the ports";
  }
  // An output port keeps what is written into it while the client is inactive: the marker of
  // boundary 123456789, as the vcard's clock channel carries it.
  g_clock = jack_port_register(g_client, "clock", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
  if (g_clock == nullptr) return "cannot register the clock port";
  auto* clock = static_cast<float*>(jack_port_get_buffer(g_clock, kFrames));
  xrunlab::vcard::write_marker(clock, 1, 123456789);
  return "";
}

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
    spec.ports = kMaxPorts;
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
  std::string err = monitor.connect(
      server, std::chrono::milliseconds(10000), [&] { return jackd.pid() < 0 || jackd.running(); },
      server + "-bench");
  if (err.empty()) {
    g_client = monitor.client();
    err = register_ports();
  }
  if (!err.empty()) {
    std::fprintf(stderr, "callback_bench: %s\n", err.c_str());
    monitor.close();
    jackd.stop(std::chrono::milliseconds(1000));
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  monitor.close();
  jackd.stop(std::chrono::milliseconds(1000));
  return 0;
}

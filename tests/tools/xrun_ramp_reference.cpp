// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-xruncounter-ref: a minimal JACK client that follows the published rule of xruncounter
// (Hermann Meyer's tool, github.com/Gimmeapill/xruncounter; not packaged in Debian), written
// here from that rule, not from its code (a test tool; not installed). It lets xrunlab headroom's
// figure be set beside the one xruncounter users quote.
//
// The rule: a client with one input and one output port ("in", "out"), connected nowhere
// (--connect: system:capture_1 -> in and out -> system:playback_1, those that exist). Its
// process callback runs a busy loop of `grow` iterations of a nested trigonometric chain (five
// tan(atan()) pairs), then adds --grow (100, as xruncounter) to `grow`, which starts at --grow:
// the load ramps up by the same amount every cycle until JACK reports an xrun. At the first
// xrun the xrun callback records jack_cpu_load() (JACK's smoothed DSP load, %), the figure
// xruncounter prints.
//
// Where it differs: xruncounter goes on, counting xruns, until jack_cpu_load() passes 95 %;
// this one stops at the first xrun (the only figure compared): the callback stops working and
// the client closes. xruncounter's chain starts from a constant (a compiler may fold it); here
// it starts from a volatile read and ends in a volatile write, so every iteration is computed.
// And it measures its own callback: each cycle's duration (CLOCK_MONOTONIC at entry and exit)
// is kept, with the cycle's `grow` and period, in a fixed array of 2^20 cycles (once full, the
// ramp stops growing and stops being recorded).
//
// Output on stdout, printed by the main thread once the first xrun is seen (or at the timeout):
//   first_xrun cycle C grow G jack_cpu_load L own_load_pct P period_us U
//   first Xrun at DSP load L %
// C is the index (from 0) of the last cycle complete when JACK's xrun notification reached the
// client; G the iterations that cycle ran; P its callback duration as % of its period (the time
// the work took in that cycle as a share of the period: the figure comparable to xrunlab
// headroom's calibrated load at the first xrun); U that period in microseconds; L what
// jack_cpu_load() said in the xrun callback, the figure of xruncounter's own line (the second
// line, printed as "%.2f"). C is the late cycle itself when it had ended by the time the
// notification arrived (usual when nothing else disturbs it: it overran the period by a few
// microseconds, and the notification came 0.1-3 ms later on the dummy driver), else the cycle
// before it (a late cycle stretched by something else, a preemption, is still running then): P
// is the load at which the first xrun came, not a stretched cycle's time. P may be under 100:
// the period also holds JACK's own work and the client's wake-up. If no cycle was complete, C
// is -1 and G, P are 0.
// When --timeout-s passes first, one line instead, the same fields for the last complete cycle
// and jack_cpu_load() at the end:
//   no_xrun cycle C grow G jack_cpu_load L own_load_pct P period_us U
//
// Exit codes: 0 an xrun was seen; 1 cannot connect (a one-line error naming the server), cannot
// activate, the server went away, or SIGINT/SIGTERM before an xrun; 2 bad arguments; 3 the
// timeout passed without an xrun.
#include <jack/jack.h>
#include <signal.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <string>

namespace {

constexpr uint32_t kCapacity = uint32_t{1} << 20;  // cycles recorded (the callback never allocates)

struct Options {
  std::string server;
  std::string name = "xruncounter-ref";
  uint32_t grow = 100;
  uint32_t timeout_s = 120;
  bool connect = false;
};

struct Cycle {
  uint32_t duration_ns = 0;  // the callback, entry to exit (a cycle of 4.29 s or more saturates)
  uint32_t grow = 0;         // the iterations it ran
  uint32_t nframes = 0;      // its period
};

// Shared between the process callback (writer of the records and `completed`), the xrun
// callback (JACK's notification thread) and the main thread. A record is written before
// `completed` is raised past it (release); readers read the records below `completed` (acquire).
struct State {
  jack_client_t* client = nullptr;
  Options opt;
  jack_port_t* in = nullptr;
  jack_port_t* out = nullptr;
  jack_nframes_t rate = 48000;
  uint32_t grow = 0;  // the process callback's own: the iterations of its next cycle
  std::array<Cycle, kCapacity> cycles{};
  std::atomic<uint32_t> completed{0};
  // The first xrun, as the xrun callback saw it; `xrun_seen` is raised last (release).
  std::atomic<bool> xrun_seen{false};
  std::atomic<uint32_t> xrun_completed{0};
  std::atomic<float> xrun_cpu_load{0};
  std::atomic<bool> server_gone{false};
};

volatile sig_atomic_t g_stop = 0;
// The chain's start and end, opaque to the compiler: the loop cannot be folded or removed.
volatile double g_seed = 0.5;
volatile double g_sink = 0;

void on_signal(int) {
  g_stop = 1;
}

int64_t mono_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Five nested tan(atan()) pairs, the shape of xruncounter's chain. Each pair gives back its
// argument up to rounding, so x stays near its start; each call waits for the one before.
double chain(double x) noexcept {
  return std::tan(std::atan(
      std::tan(std::atan(std::tan(std::atan(std::tan(std::atan(std::tan(std::atan(x))))))))));
}

// Realtime-safe: no allocation, no lock, no logging, no system call but the two clock reads
// (clock_gettime, served by the vDSO). The busy loop is the load, on purpose. The record array
// is touched by main before activation, so writing it takes no page fault. After the first xrun
// it does no work (the ramp is over; main closes the client).
int process(jack_nframes_t nframes, void* arg) {
  auto* s = static_cast<State*>(arg);
  const int64_t entry = mono_ns();
  std::memset(jack_port_get_buffer(s->out, nframes), 0,
              sizeof(jack_default_audio_sample_t) * nframes);
  if (s->xrun_seen.load(std::memory_order_relaxed)) return 0;
  const uint32_t grow = s->grow;
  double x = g_seed;
  for (uint32_t i = 0; i < grow; ++i) x = chain(x);
  g_sink = x;
  const int64_t exit = mono_ns();
  const uint32_t k = s->completed.load(std::memory_order_relaxed);  // only this thread writes it
  if (k >= kCapacity) return 0;                                     // full: no record, no growth
  const int64_t took = exit - entry;
  s->cycles[k] =
      Cycle{static_cast<uint32_t>(std::min<int64_t>(took, std::numeric_limits<uint32_t>::max())),
            grow, nframes};
  s->completed.store(k + 1, std::memory_order_release);
  if (k + 1 < kCapacity && grow <= std::numeric_limits<uint32_t>::max() - s->opt.grow) {
    s->grow = grow + s->opt.grow;
  }
  return 0;
}

// Not realtime (JACK's notification thread): the first xrun's figures, then the flag.
int on_xrun(void* arg) {
  auto* s = static_cast<State*>(arg);
  if (s->xrun_seen.load(std::memory_order_acquire)) return 0;
  s->xrun_cpu_load.store(jack_cpu_load(s->client), std::memory_order_relaxed);
  s->xrun_completed.store(s->completed.load(std::memory_order_acquire), std::memory_order_relaxed);
  s->xrun_seen.store(true, std::memory_order_release);
  return 0;
}

// Not realtime (JACK's notification thread): one atomic store.
void on_shutdown(void* arg) {
  static_cast<State*>(arg)->server_gone.store(true, std::memory_order_release);
}

// One line: KIND cycle C grow G jack_cpu_load L own_load_pct P period_us U, for the last of the
// first `completed` cycles (C = -1 when there is none; the period is then the server's).
void print_figures(const State& s, const char* kind, uint32_t completed, float cpu_load,
                   jack_nframes_t server_nframes) {
  long long cycle = -1;
  uint32_t grow = 0;
  double own_pct = 0;
  jack_nframes_t nframes = server_nframes;
  if (completed > 0) {
    const Cycle& c = s.cycles[completed - 1];
    cycle = completed - 1;
    grow = c.grow;
    nframes = c.nframes;
  }
  const double period_us = 1e6 * nframes / s.rate;
  if (completed > 0 && period_us > 0) {
    own_pct = 100.0 * (s.cycles[completed - 1].duration_ns / 1000.0) / period_us;
  }
  std::printf("%s cycle %lld grow %u jack_cpu_load %.2f own_load_pct %.2f period_us %.1f\n", kind,
              cycle, grow, static_cast<double>(cpu_load), own_pct, period_us);
}

// --connect: system:capture_1 -> in, out -> system:playback_1, those that exist. A failed
// connection is reported, not fatal.
void connect_ports(State& s) {
  const char* capture = "system:capture_1";
  const char* playback = "system:playback_1";
  if (jack_port_by_name(s.client, capture) != nullptr &&
      jack_connect(s.client, capture, jack_port_name(s.in)) != 0) {
    std::fprintf(stderr, "xrunlab-xruncounter-ref: warning: cannot connect %s\n", capture);
  }
  if (jack_port_by_name(s.client, playback) != nullptr &&
      jack_connect(s.client, jack_port_name(s.out), playback) != 0) {
    std::fprintf(stderr, "xrunlab-xruncounter-ref: warning: cannot connect %s\n", playback);
  }
}

// Every page of the record array written once, so the callback's first writes fault nothing.
void touch_records(State& s) {
  auto* bytes = reinterpret_cast<volatile unsigned char*>(s.cycles.data());
  for (size_t i = 0; i < sizeof(s.cycles); i += 4096) bytes[i] = 0;
}

// Not realtime: libjack's messages while connecting (a failure is reported in one line below).
void quiet(const char*) {}

// Not realtime only in intent: libjack may call it from any thread, as its default does.
void to_stderr(const char* msg) {
  std::fprintf(stderr, "xrunlab-xruncounter-ref: jack: %s\n", msg);
}

int run(State& s) {
  touch_records(s);
  jack_status_t status{};
  jack_set_error_function(quiet);
  jack_set_info_function(to_stderr);  // a verbose server's "Jack: ..." lines: not on stdout
  s.client = jack_client_open(
      s.opt.name.c_str(),
      static_cast<jack_options_t>(JackNoStartServer | JackServerName | JackUseExactName), &status,
      s.opt.server.c_str());
  if (s.client == nullptr) {
    std::fprintf(stderr,
                 "xrunlab-xruncounter-ref: error: cannot connect to JACK server '%s' as '%s' "
                 "(status 0x%x)\n",
                 s.opt.server.c_str(), s.opt.name.c_str(), static_cast<unsigned>(status));
    return 1;
  }
  jack_set_error_function(to_stderr);
  s.rate = jack_get_sample_rate(s.client);
  s.grow = s.opt.grow;
  s.in = jack_port_register(s.client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
  s.out = jack_port_register(s.client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
  jack_set_process_callback(s.client, process, &s);
  jack_set_xrun_callback(s.client, on_xrun, &s);
  jack_on_shutdown(s.client, on_shutdown, &s);
  if (s.in == nullptr || s.out == nullptr || jack_activate(s.client) != 0) {
    std::fprintf(stderr,
                 "xrunlab-xruncounter-ref: error: cannot register or activate on server '%s'\n",
                 s.opt.server.c_str());
    jack_client_close(s.client);
    return 1;
  }
  if (s.opt.connect) connect_ports(s);

  const int64_t deadline = mono_ns() + int64_t{s.opt.timeout_s} * 1000000000;
  bool timed_out = false;
  while (!g_stop && !s.server_gone.load(std::memory_order_acquire) &&
         !s.xrun_seen.load(std::memory_order_acquire)) {
    if (mono_ns() >= deadline) {
      timed_out = true;
      break;
    }
    const timespec tick{0, 10000000};  // 10 ms
    nanosleep(&tick, nullptr);
  }
  const bool xrun = s.xrun_seen.load(std::memory_order_acquire);
  const bool gone = s.server_gone.load(std::memory_order_acquire);
  float end_load = 0;
  const jack_nframes_t server_nframes = gone ? 0 : jack_get_buffer_size(s.client);
  if (!gone) {
    end_load = jack_cpu_load(s.client);
    jack_deactivate(s.client);
  }
  jack_client_close(s.client);
  if (xrun) {
    const float load = s.xrun_cpu_load.load(std::memory_order_relaxed);
    print_figures(s, "first_xrun", s.xrun_completed.load(std::memory_order_relaxed), load,
                  server_nframes);
    std::printf("first Xrun at DSP load %.2f %%\n", static_cast<double>(load));
    std::fflush(stdout);
    return 0;
  }
  if (gone) {
    std::fprintf(stderr, "xrunlab-xruncounter-ref: error: server '%s' went away before an xrun\n",
                 s.opt.server.c_str());
    return 1;
  }
  print_figures(s, "no_xrun", s.completed.load(std::memory_order_acquire), end_load,
                server_nframes);
  std::fflush(stdout);
  if (timed_out) {
    std::fprintf(stderr,
                 "xrunlab-xruncounter-ref: no xrun on server '%s' within %u s (grow reached %u)\n",
                 s.opt.server.c_str(), s.opt.timeout_s, s.grow);
    return 3;
  }
  std::fprintf(stderr, "xrunlab-xruncounter-ref: error: interrupted before an xrun\n");
  return 1;
}

// The options into s.opt: -1 to go on, else the exit code (0 after --help, 2 bad arguments).
int parse_options(State& s, int argc, char** argv) {
  CLI::App app{
      "A JACK client following xruncounter's rule: a load ramp up to the first xrun "
      "(a test tool)",
      "xrunlab-xruncounter-ref"};
  app.add_option("--server", s.opt.server, "JACK server name")->required();
  app.add_option("--name", s.opt.name,
                 "client name (exact; one of its own on the machine: libjack names the client's "
                 "socket by it alone)")
      ->capture_default_str();
  app.add_option("--grow", s.opt.grow, "loop iterations added per cycle (xruncounter: 100)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--timeout-s", s.opt.timeout_s, "give up after S seconds without an xrun")
      ->capture_default_str()
      ->check(CLI::Range(1u, 86400u));
  app.add_flag("--connect", s.opt.connect,
               "connect system:capture_1 -> in and out -> system:playback_1 (those that exist)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  // Static: the record (fixed array, 12 MiB) is large for a stack, and JACK's threads use it
  // until the client is closed.
  static State s;
  try {
    if (const int code = parse_options(s, argc, argv); code >= 0) return code;
  } catch (const std::exception& e) {  // CLI11's own (an option set up wrongly), std::bad_alloc
    std::fprintf(stderr, "xrunlab-xruncounter-ref: error: %s\n", e.what());
    return 1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return run(s);
}

// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-late-client: a foreign JACK client that is late on purpose (a test tool, a fault
// injector; not installed). It attaches to a running JACK server as a client that is not one of
// a run's chain (as a DAW's plugin host on a musician's server would be) and makes its process
// callback late K times: from its first process cycle it waits --after-ms of JACK time, then
// stalls once every --every-ms of JACK time (frame time, so a stall stays on JACK's clock when
// cycles are lost) for --late-us, --count times. It exits 1 s after the last stall, or on
// SIGTERM/SIGINT, closing the client.
//
// A stall sleeps (clock_nanosleep to an absolute CLOCK_MONOTONIC deadline) so that it does not
// take a CPU from the measured chain on a small machine; --spin makes it burn the CPU instead
// (reading the clock until the deadline), the other kind of late client.
//
// Output, one line per stall on stdout, printed by the main thread after the stall:
//   stall K frame F cycle_us C start_us S end_us E slept_us D
// K counts from 1; F is jack_last_frame_time() of the stalled cycle (the frame time the
// cycle table keys its cycles by); C is the cycle's current_usecs by jack_get_cycle_times()
// (JACK's DLL-filtered cycle time; on the dummy driver it was measured 180-230 ms away from
// CLOCK_MONOTONIC, so do not compare it with S); S and E are the stall's start and end on
// CLOCK_MONOTONIC in microseconds; D = E - S.
// At the end one line: "done stalls N of K", and exit 0 (1 if the server went away before the
// last stall; 2 on bad arguments; 1 with a one-line error naming the server if it cannot
// connect).
#include <jack/jack.h>
#include <signal.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kMaxStalls = 4096;  // the record's fixed size (the callback never allocates)

struct Options {
  std::string server;
  std::string name = "intruder";
  uint32_t late_us = 0;
  uint32_t every_ms = 500;
  uint32_t count = 1;
  uint32_t after_ms = 0;
  uint32_t ports = 0;
  bool connect = false;
  bool spin = false;
};

struct Stall {
  jack_nframes_t frame = 0;
  uint64_t cycle_us = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Shared between the process callback (writer) and the main thread (reader). A stall's record
// is written before `done` is raised (release); main reads the records below `done` (acquire).
struct State {
  jack_client_t* client = nullptr;
  Options opt;
  jack_nframes_t rate = 48000;
  std::vector<jack_port_t*> in, out;  // filled before activation, never changed after it
  bool started = false;               // the callback's own: its first cycle has been seen
  jack_nframes_t first_frame = 0;     // the callback's own
  std::array<Stall, kMaxStalls> stalls{};
  std::atomic<uint32_t> done{0};
  std::atomic<bool> server_gone{false};
};

volatile sig_atomic_t g_stop = 0;

void on_signal(int) {
  g_stop = 1;
}

int64_t mono_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

timespec to_timespec(int64_t ns) noexcept {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1000000000);
  ts.tv_nsec = static_cast<long>(ns % 1000000000);
  return ts;
}

// Frames of JACK time from the first cycle at which stall `k` (from 0) is due.
uint64_t due_frames(const State& s, uint32_t k) noexcept {
  const uint64_t ms = uint64_t{s.opt.after_ms} + uint64_t{k} * s.opt.every_ms;
  return ms * s.rate / 1000;
}

// NOT realtime-safe, on purpose: this is a fault injector. A due stall blocks the process
// thread in clock_nanosleep (or, with --spin, burns the CPU reading the clock) for --late-us;
// every other cycle is wait-free (zeroed output buffers, clock reads, an atomic store). It never
// allocates, locks or prints: the stall's record goes into the fixed array, printed by main.
int process(jack_nframes_t nframes, void* arg) {
  auto* s = static_cast<State*>(arg);
  for (jack_port_t* p : s->out) {
    std::memset(jack_port_get_buffer(p, nframes), 0, sizeof(jack_default_audio_sample_t) * nframes);
  }
  const jack_nframes_t frame = jack_last_frame_time(s->client);
  if (!s->started) {
    s->started = true;
    s->first_frame = frame;
  }
  const uint32_t k = s->done.load(std::memory_order_relaxed);  // only this thread writes it
  if (k >= s->opt.count || k >= kMaxStalls) return 0;
  // Unsigned frame arithmetic: correct across the wrap of JACK's 32-bit frame counter.
  if (uint64_t{static_cast<jack_nframes_t>(frame - s->first_frame)} < due_frames(*s, k)) return 0;
  Stall& r = s->stalls[k];
  r.frame = frame;
  jack_nframes_t current_frames = 0;
  jack_time_t current_usecs = 0, next_usecs = 0;
  float period_usecs = 0;
  if (jack_get_cycle_times(s->client, &current_frames, &current_usecs, &next_usecs,
                           &period_usecs) == 0) {
    r.cycle_us = current_usecs;
  }
  r.start_ns = mono_ns();
  const int64_t until = r.start_ns + int64_t{s->opt.late_us} * 1000;
  if (s->opt.spin) {
    while (mono_ns() < until) {
    }
  } else {
    const timespec ts = to_timespec(until);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
  }
  r.end_ns = mono_ns();
  s->done.store(k + 1, std::memory_order_release);
  return 0;
}

// Not realtime (JACK's notification thread): one atomic store.
void on_shutdown(void* arg) {
  static_cast<State*>(arg)->server_gone.store(true, std::memory_order_release);
}

void print_stall(uint32_t k, const Stall& r) {
  std::printf("stall %u frame %u cycle_us %llu start_us %lld end_us %lld slept_us %lld\n", k + 1,
              r.frame, static_cast<unsigned long long>(r.cycle_us),
              static_cast<long long>(r.start_ns / 1000), static_cast<long long>(r.end_ns / 1000),
              static_cast<long long>((r.end_ns - r.start_ns) / 1000));
  std::fflush(stdout);
}

bool register_ports(State& s) {
  for (uint32_t i = 1; i <= s.opt.ports; ++i) {
    jack_port_t* in = jack_port_register(s.client, ("in_" + std::to_string(i)).c_str(),
                                         JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    jack_port_t* out = jack_port_register(s.client, ("out_" + std::to_string(i)).c_str(),
                                          JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (in == nullptr || out == nullptr) {
      std::fprintf(stderr, "xrunlab-late-client: error: cannot register port %u on server '%s'\n",
                   i, s.opt.server.c_str());
      return false;
    }
    s.in.push_back(in);
    s.out.push_back(out);
  }
  return true;
}

// --connect: in_i from the i-th physical capture port, out_i to the i-th physical playback
// port (as many as there are). A failed connection is reported, not fatal.
void connect_ports(State& s) {
  const char** capture = jack_get_ports(s.client, nullptr, JACK_DEFAULT_AUDIO_TYPE,
                                        JackPortIsPhysical | JackPortIsOutput);
  const char** playback = jack_get_ports(s.client, nullptr, JACK_DEFAULT_AUDIO_TYPE,
                                         JackPortIsPhysical | JackPortIsInput);
  for (size_t i = 0; i < s.in.size(); ++i) {
    if (capture != nullptr && capture[i] != nullptr) {
      if (jack_connect(s.client, capture[i], jack_port_name(s.in[i])) != 0) {
        std::fprintf(stderr, "xrunlab-late-client: warning: cannot connect %s\n", capture[i]);
      }
    }
    if (playback != nullptr && playback[i] != nullptr) {
      if (jack_connect(s.client, jack_port_name(s.out[i]), playback[i]) != 0) {
        std::fprintf(stderr, "xrunlab-late-client: warning: cannot connect %s\n", playback[i]);
      }
    }
    if ((capture == nullptr || capture[i] == nullptr) &&
        (playback == nullptr || playback[i] == nullptr)) {
      break;
    }
  }
  jack_free(static_cast<void*>(capture));
  jack_free(static_cast<void*>(playback));
}

// Prints the stalls recorded since `printed`; returns the new count printed.
uint32_t print_new(const State& s, uint32_t printed) {
  const uint32_t done = s.done.load(std::memory_order_acquire);
  for (; printed < done; ++printed) print_stall(printed, s.stalls[printed]);
  return printed;
}

// Not realtime: libjack's messages while connecting (a failure is reported in one line below).
void quiet(const char*) {}

// Not realtime only in intent: libjack may call it from any thread, as its default does.
void to_stderr(const char* msg) {
  std::fprintf(stderr, "xrunlab-late-client: jack: %s\n", msg);
}

int run(State& s) {
  jack_status_t status{};
  jack_set_error_function(quiet);
  jack_set_info_function(to_stderr);  // a verbose server's "Jack: ..." lines: not on stdout
  s.client = jack_client_open(
      s.opt.name.c_str(),
      static_cast<jack_options_t>(JackNoStartServer | JackServerName | JackUseExactName), &status,
      s.opt.server.c_str());
  if (s.client == nullptr) {
    std::fprintf(stderr,
                 "xrunlab-late-client: error: cannot connect to JACK server '%s' as '%s' "
                 "(status 0x%x)\n",
                 s.opt.server.c_str(), s.opt.name.c_str(), static_cast<unsigned>(status));
    return 1;
  }
  jack_set_error_function(to_stderr);
  s.rate = jack_get_sample_rate(s.client);
  jack_set_process_callback(s.client, process, &s);
  jack_on_shutdown(s.client, on_shutdown, &s);
  if (!register_ports(s) || jack_activate(s.client) != 0) {
    if (s.in.size() == s.opt.ports) {
      std::fprintf(stderr, "xrunlab-late-client: error: cannot activate on server '%s'\n",
                   s.opt.server.c_str());
    }
    jack_client_close(s.client);
    return 1;
  }
  if (s.opt.connect) connect_ports(s);

  const uint32_t wanted = std::min<uint32_t>(s.opt.count, kMaxStalls);
  uint32_t printed = 0;
  int64_t last_stall_ns = 0;  // when main first saw the last stall done
  while (!g_stop && !s.server_gone.load(std::memory_order_acquire)) {
    printed = print_new(s, printed);
    if (printed == wanted) {
      if (last_stall_ns == 0) last_stall_ns = mono_ns();
      if (mono_ns() - last_stall_ns >= 1000000000) break;
    }
    const timespec tick{0, 10000000};  // 10 ms
    nanosleep(&tick, nullptr);
  }
  const bool gone = s.server_gone.load(std::memory_order_acquire);
  if (!gone) {
    jack_deactivate(s.client);
  }
  jack_client_close(s.client);
  printed = print_new(s, printed);
  std::printf("done stalls %u of %u\n", printed, wanted);
  std::fflush(stdout);
  if (gone && printed < wanted) {
    std::fprintf(stderr,
                 "xrunlab-late-client: error: server '%s' went away after %u of %u stalls\n",
                 s.opt.server.c_str(), printed, wanted);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Static: the record (fixed array) is large for a stack, and JACK's threads use it until the
  // client is closed.
  static State s;
  CLI::App app{"A foreign JACK client that is late on purpose (a test tool; not realtime-safe)",
               "xrunlab-late-client"};
  app.add_option("--server", s.opt.server, "JACK server name")->required();
  app.add_option("--name", s.opt.name, "client name (exact)")->capture_default_str();
  app.add_option("--late-us", s.opt.late_us, "how long one stall lasts, us")->required();
  app.add_option("--every-ms", s.opt.every_ms, "one stall every M ms of JACK time")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--count", s.opt.count, "number of stalls")
      ->capture_default_str()
      ->check(CLI::Range(1u, static_cast<uint32_t>(kMaxStalls)));
  app.add_option("--after-ms", s.opt.after_ms, "first stall this long after the first cycle")
      ->capture_default_str();
  app.add_option("--ports", s.opt.ports, "register N input and N output ports")
      ->capture_default_str();
  app.add_flag("--connect", s.opt.connect,
               "connect the ports to the physical capture and playback ports");
  app.add_flag("--spin", s.opt.spin, "burn the CPU during a stall instead of sleeping");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return run(s);
}

// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-client: one synthetic DSP client. Its options: engine/wire/client_args.hpp.
//
// Threads: JACK's process thread (clients/rt/process_callback.hpp: clocks, DSP, one ring push per
// cycle), the drain thread (ring -> CycleStats and the audio check -> telemetry), and the main
// thread (start/stop commands, signals).
//
// The pipeline: parse the arguments -> open JACK -> set up (ports, DSP calibration, rings, the
// drain side) -> activate -> apply scheduling to the process thread -> hello -> drain until
// stopped -> totals.
#include <jack/jack.h>
#include <jack/thread.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "clients/drain/audio_check.hpp"
#include "clients/drain/card_record.hpp"
#include "clients/drain/cycle_stats.hpp"
#include "clients/drain/cycle_table_map.hpp"
#include "clients/drain/reference_signal.hpp"
#include "clients/rt/dsp.hpp"
#include "clients/rt/jack_seam.hpp"
#include "clients/rt/looped_samples.hpp"
#include "clients/rt/process_callback.hpp"
#include "clients/rt/test_signal.hpp"
#include "clients/rt/thread_tid.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/jack_open_error.hpp"
#include "engine/wire/sched_target.hpp"
#include "engine/wire/source_audio.hpp"
#include "engine/wire/telemetry.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

// Exit codes of xrunlab-client (the engine reads them from the client's exit status).
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;      // a fatal error, also sent as a telemetry "error" message
constexpr int kExitServerGone = 3;  // the JACK server shut the client down

// How often the non-realtime threads look around when nothing wakes them: the drain thread at
// the rings, the control thread at the signal and server-gone flags (a command on stdin wakes
// it at once). With 254 clients every wake-up counts 254 times.
constexpr int kDrainIntervalMs = 50;
constexpr int kCommandPollMs = 100;

// The stack of the threads this program starts itself (the drain thread). glibc's default is
// RLIMIT_STACK, 8 MiB here, and under mlockall(MCL_FUTURE) a new thread's stack is faulted in
// and locked whole: 8 MiB of page clearing per client, 2 GiB for 254 clients, which the start-up
// profile showed. libjack gives its own threads 512 KiB (THREAD_STACK).
constexpr size_t kThreadStackBytes = size_t{1} << 20;

void set_default_thread_stack() {
  pthread_attr_t attr;
  if (::pthread_attr_init(&attr) != 0) return;
  if (::pthread_attr_setstacksize(&attr, kThreadStackBytes) == 0) {
    ::pthread_setattr_default_np(&attr);
  }
  ::pthread_attr_destroy(&attr);
}

// A fatal error before the measurement starts; its message is one line for the engine.
class ClientFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::atomic<bool> g_signalled{false};
void on_signal(int) {
  g_signalled.store(true);
}

// RLIMIT_RTTIME's soft limit (SIGXCPU): the process thread (or another realtime thread) ran that
// long without blocking. The kernel hands the signal to the thread that ran over, whose callback
// never returned: the handler tells the engine why, on the telemetry and in the log, and ends
// the process. Its lines are formatted before activation (install_rttime_handler); the handler
// makes async-signal-safe calls only (write, _exit).
char g_rttime_line[512];
size_t g_rttime_line_len = 0;
char g_rttime_note[512];
size_t g_rttime_note_len = 0;
int g_rttime_fd = -1;

void write_fully(int fd, const char* p, size_t n) {  // async-signal-safe
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void on_rttime(int) {
  const int saved = errno;
  write_fully(g_rttime_fd, g_rttime_line, g_rttime_line_len);
  write_fully(STDERR_FILENO, g_rttime_note, g_rttime_note_len);
  errno = saved;
  ::_exit(kClientExitRtTime);
}

// The soft limit as this process has it ("no limit": RLIMIT_RTTIME is not set).
void install_rttime_handler(const ClientArgs& a) {
  rlimit rl{};
  ::getrlimit(RLIMIT_RTTIME, &rl);
  const std::string limit = rl.rlim_cur == RLIM_INFINITY
                                ? std::string("its RLIMIT_RTTIME")
                                : std::to_string(rl.rlim_cur / 1000) + " ms (RLIMIT_RTTIME)";
  const std::string message = "a realtime thread ran " + limit +
                              " without blocking: stopped by SIGXCPU (a runaway callback)";
  const std::string line = telemetry::encode(telemetry::Error{a.index, message});
  const std::string note = a.name + ": error: " + message + "\n";
  g_rttime_line_len = std::min(line.size(), sizeof g_rttime_line);
  std::memcpy(g_rttime_line, line.data(), g_rttime_line_len);
  g_rttime_note_len = std::min(note.size(), sizeof g_rttime_note);
  std::memcpy(g_rttime_note, note.data(), g_rttime_note_len);
  g_rttime_fd = a.telemetry_fd;
  struct sigaction sa {};
  sa.sa_handler = on_rttime;
  sigfillset(&sa.sa_mask);
  sigaction(SIGXCPU, &sa, nullptr);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

// The telemetry stream to the engine (one JSON line per message).
class Telemetry {
 public:
  explicit Telemetry(int fd) : fd_(fd) {}
  void send(const telemetry::Message& m) const { write_all(telemetry::encode(m)); }

 private:
  void write_all(const std::string& s) const {
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = ::write(fd_, s.data() + off, s.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the engine is gone; nothing useful left to do with telemetry
      off += static_cast<size_t>(n);
    }
  }
  int fd_;
};

// libjack's error lines while jack_client_open runs (they say why it failed where its status
// bits do not). Installed around the open only, before any JACK thread of ours exists; after it
// the lines go to stderr as libjack's default does.
std::vector<std::string> g_open_errors;
void keep_open_error(const char* msg) {
  std::fprintf(stderr, "%s\n", msg);
  if (g_open_errors.size() < 32) g_open_errors.emplace_back(msg);
}
void print_jack_error(const char* msg) {
  std::fprintf(stderr, "%s\n", msg);
}

// The JACK client, closed on every way out of run().
class JackClient {
 public:
  explicit JackClient(const ClientArgs& a) {
    jack_status_t status{};
    jack_set_error_function(keep_open_error);
    const int flags =
        JackNoStartServer | JackUseExactName | (a.server.empty() ? 0 : JackServerName);
    client_ = a.server.empty()
                  ? jack_client_open(a.name.c_str(), static_cast<jack_options_t>(flags), &status)
                  : jack_client_open(a.name.c_str(), static_cast<jack_options_t>(flags), &status,
                                     a.server.c_str());
    jack_set_error_function(print_jack_error);
    if (client_ == nullptr) {
      throw ClientFailure(jack_open_failure(a.server, static_cast<unsigned>(status), g_open_errors,
                                            static_cast<unsigned>(::getuid())));
    }
  }
  ~JackClient() { jack_client_close(client_); }
  JackClient(const JackClient&) = delete;
  JackClient& operator=(const JackClient&) = delete;

  jack_client_t* get() const { return client_; }
  uint32_t rate() const { return jack_get_sample_rate(client_); }
  uint32_t frames() const { return jack_get_buffer_size(client_); }

 private:
  jack_client_t* client_ = nullptr;
};

// in_1..in_P, out_1..out_P and, with --clock-port, "clock".
void register_ports(jack_client_t* client, const ClientArgs& a, RtConfig* config) {
  auto reg = [&](const std::string& name, unsigned long flags) {
    return jack_port_register(client, name.c_str(), JACK_DEFAULT_AUDIO_TYPE, flags, 0);
  };
  for (int p = 1; p <= a.ports; ++p) {
    jack_port_t* in = reg("in_" + std::to_string(p), JackPortIsInput);
    jack_port_t* out = reg("out_" + std::to_string(p), JackPortIsOutput);
    if (in == nullptr || out == nullptr) {
      throw ClientFailure("cannot register port " + std::to_string(p) +
                          " (is jackd's port-max too small?)");
    }
    config->in_ports.push_back(in);
    config->out_ports.push_back(out);
  }
  if (a.clock_port) {
    config->clock_port = reg("clock", JackPortIsInput);
    if (config->clock_port == nullptr) {
      throw ClientFailure("cannot register the clock port (is jackd's port-max too small?)");
    }
  }
}

// Everything the process callback will touch, allocated before activation. Returns the DSP
// calibration (for hello).
Calibration set_up_rt(const JackClient& jack, const ClientArgs& a, RtContext* ctx) {
  RtConfig& c = ctx->config;
  c.jack = real_jack_seam();
  c.client = jack.get();
  register_ports(jack.get(), a, &c);
  const double period_us = static_cast<double>(jack.frames()) * 1e6 / jack.rate();
  const double target_us = a.dsp_load_pct / 100.0 * period_us;
  const Calibration cal = a.dsp_ns_per_stage > 0
                              ? calibration_for(a.dsp_ns_per_stage, target_us)
                              : calibrate(a.ports, jack.rate(), jack.frames(), target_us);
  if (a.dsp_ramp) {
    // The bank holds the ramp's top; each cycle runs the ramp's stages of it.
    c.ramp =
        dsp_ramp_stages(static_cast<uint32_t>(cal.stages), a.dsp_ramp->step_pct, a.dsp_ramp->every,
                        a.dsp_ramp->max_pct, cal.ns_per_stage, period_us * 1000.0);
  }
  c.bank = std::make_unique<BiquadBank>(
      a.ports, c.ramp ? static_cast<int>(c.ramp->max) : cal.stages, jack.rate());
  c.ring = std::make_unique<CycleRing>();
  c.inject = a.inject;
  c.check_port = a.check_port;
  if (a.source && !a.source_file.empty()) {
    // The whole file (at most kSourceMaxSeconds) in memory before activation: the callback
    // only copies from it.
    try {
      SourceAudioInfo info;
      c.file = std::make_unique<const LoopedSamples>(
          load_source_audio(a.source_file, jack.rate(), &info));
      std::fprintf(stderr, "%s: playing %s, looped\n", a.name.c_str(),
                   describe_source(info).c_str());
    } catch (const std::exception& e) {
      throw ClientFailure(e.what());
    }
  } else if (a.source) {
    c.signal = std::make_unique<const TestSignal>(jack.rate());
  }
  if (a.sink) c.audio = std::make_unique<AudioRing>();
  ctx->state = make_rt_state(c, jack.frames());
  std::fprintf(stderr,
               "%s: rate %u Hz, %u frames (%.1f us), %d ports, DSP %d stages for %.1f us "
               "(%.1f ns per stage), inject %s\n",
               a.name.c_str(), jack.rate(), jack.frames(), period_us, a.ports, cal.stages,
               cal.target_us, cal.ns_per_stage,
               !a.inject ? "none"
               : a.inject->spin_at != 0
                   ? ("a spin forever from cycle " + std::to_string(a.inject->spin_at)).c_str()
                   : (std::to_string(a.inject->usec) + " us every " +
                      std::to_string(a.inject->every) + " cycles")
                         .c_str());
  return cal;
}

// Every page now and every page mapped later, faulted in at once: the callback never faults
// (the engine reads every audio thread's page faults at the start and the end: summary "Page
// faults of the audio threads"). MCL_ONFAULT (lock on first touch) was tried for the start-up
// of 254 clients: no faster within this VM's noise, and process threads then faulted in the
// window (11 minor faults in one 160-client run, 0 without it).
void lock_memory(const ClientArgs& a) {
  if (::mlockall(MCL_CURRENT | MCL_FUTURE) == 0) return;
  std::fprintf(stderr, "%s: note: mlockall failed (%s); pages may fault in the callback\n",
               a.name.c_str(), std::strerror(errno));
}

// The measurement window, from the main thread to the drain thread (0 = not set yet).
struct Window {
  std::atomic<uint64_t> start_at{0};
  std::atomic<uint64_t> planned_stop_at{0};  // the end unless the run stops early
  std::atomic<uint64_t> stop_at{0};          // the end, final
};

// The drain side: turns the callback's records into telemetry. Built before activation on the
// main thread; afterwards only the drain thread (run) uses it.
class Drain {
 public:
  Drain(const ClientArgs& a, const RtContext& ctx, const JackClient& jack, const Telemetry& out)
      : ctx_(ctx),
        out_(out),
        stats_(a.index, jack.rate(), jack.frames(),
               [this](const telemetry::Message& m) { on_stats(m); }) {
    if (a.sink) {
      try {
        audio_ = std::make_unique<AudioCheck>(
            a.index, jack.rate(), a.record_dir,
            [this](const telemetry::GlitchReport& g) { out_.send(g); }, audio_setup(a, jack));
      } catch (const std::exception& e) {
        throw ClientFailure(e.what());
      }
    }
    if (!a.card_shm.empty()) {
      try {
        card_ = std::make_unique<CardRecord>(a.card_shm);
      } catch (const std::exception& e) {
        throw ClientFailure(e.what());
      }
    }
    switch (a.reference) {
      case ClientReference::kFrames:
        break;
      case ClientReference::kDll:
        stats_.set_reference(CycleStats::Reference::kDll);
        break;
      case ClientReference::kCard:
        stats_.set_reference(
            CycleStats::Reference::kCard,
            card_ == nullptr ? CycleStats::WakeLookup{} : [this](uint64_t m, int64_t* wake_ns) {
              return card_->wake(m, wake_ns);
            });
        break;
    }
  }

  // The drain thread: every 50 ms, the window's times, the rings' contents and the drop counts
  // go into the statistics, until they have sent Final. The rings hold seconds (process_callback
  // .hpp), so 50 ms loses nothing; 5 ms was 200 wake-ups a second per client, 50,000 a second
  // with 254 clients on a 2-core machine, taken from the start-up and from the measurement.
  void run(const Window& window) {
    constexpr uint64_t kGraceUs = 500000;  // a callback may still be running at the stop time
    while (!stats_.finished()) {
      t0_ = window.start_at.load();
      const uint64_t planned = window.planned_stop_at.load(), stop = window.stop_at.load();
      t1_ = stop != 0 ? stop : planned;
      if (!stats_.started() && t0_ != 0) stats_.set_start(t0_);
      if (planned != 0) stats_.set_planned_stop(planned);
      if (stop != 0) stats_.set_stop(stop);
      drain_audio();
      ctx_.config.ring->drain([&](const CycleRecord& r) { stats_.consume(r); });
      stats_.add_ring_dropped(ctx_.shared.ring_dropped.load(std::memory_order_relaxed));
      if (ctx_.shared.server_gone.load()) stats_.finish();
      stats_.poll(jack_get_time(), kGraceUs);
      std::this_thread::sleep_for(std::chrono::milliseconds(kDrainIntervalMs));
    }
  }

  // The tail's check: against the test signal, or against the same file the head plays (loaded
  // and indexed here, before activation, off the realtime thread). Throws on a file that cannot
  // be read.
  static AudioCheckSetup audio_setup(const ClientArgs& a, const JackClient& jack) {
    AudioCheckSetup s;
    s.format = a.record_format == "flac" ? RecordFormat::kFlac : RecordFormat::kWav;
    s.block_frames = jack.frames();
    if (a.source_file.empty()) return s;
    s.reference_kind = "file";
    const std::vector<float> samples = load_source_audio(a.source_file, jack.rate());
    if (samples.size() < kMatchFrames) {
      s.not_checked = "the file has " + std::to_string(samples.size()) +
                      " frames; the check needs at least 1 s";
      return s;
    }
    auto ref = std::make_shared<FileReference>(samples);
    ref->prepare_blocks(jack.frames());
    s.not_checked = file_check_impossible(*ref, jack.rate());
    std::fprintf(stderr, "%s: checking against %s: %s\n", a.name.c_str(), a.source_file.c_str(),
                 s.not_checked.empty() ? "indexed" : ("not checked: " + s.not_checked).c_str());
    s.reference = std::move(ref);
    return s;
  }

  uint64_t cycles_total() const { return stats_.cycles_total(); }
  uint64_t cycles_measured() const { return stats_.cycles_measured(); }

 private:
  // The checked audio of the window's cycles: the same [start, stop) as the statistics.
  void drain_audio() {
    if (!audio_) return;
    ctx_.config.audio->drain([&](const AudioChunk& c) {
      if (t0_ != 0 && c.t_entry_us >= t0_ && (t1_ == 0 || c.t_entry_us < t1_)) {
        audio_->feed(c.s, c.count, c.t_entry_us, c.frame_time);
      }
    });
    audio_->add_ring_dropped(ctx_.shared.audio_dropped.load(std::memory_order_relaxed));
  }

  void on_stats(const telemetry::Message& m) {
    const auto* final = std::get_if<telemetry::Final>(&m);
    if (final == nullptr || !audio_) {
      out_.send(m);
      return;
    }
    drain_audio();  // chunks are pushed before their cycle's record: take the last ones too
    audio_->finish();
    telemetry::Final with_audio = *final;
    with_audio.audio = audio_->totals();
    out_.send(with_audio);
  }

  const RtContext& ctx_;
  const Telemetry& out_;
  std::unique_ptr<AudioCheck> audio_;
  std::unique_ptr<CardRecord> card_;
  CycleStats stats_;
  uint64_t t0_ = 0, t1_ = 0;  // the drain thread's view of the window
};

// JACK sets SCHED_FIFO at the client priority in the process thread's own start-up, after any
// hook of ours could run, so --sched-target is applied afterwards, from this (non-realtime)
// thread, to the thread by the tid its first callback published. Returns that tid (0: the
// thread never ran) and sets *error ("" = applied, or nothing to apply).
pid_t apply_scheduling(const ClientArgs& a, const RtShared& shared, std::string* error) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (shared.rt_tid.load(std::memory_order_acquire) == 0 &&
         std::chrono::steady_clock::now() < until && !shared.server_gone.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const pid_t tid = shared.rt_tid.load(std::memory_order_acquire);
  error->clear();
  if (a.sched_target) {
    *error = tid == 0 ? "the process thread never ran, so its scheduling could not be set"
                      : apply_thread_sched(tid, *a.sched_target);
    if (!error->empty()) std::fprintf(stderr, "%s: error: %s\n", a.name.c_str(), error->c_str());
  }
  return tid;
}

telemetry::Hello make_hello(const ClientArgs& a, const JackClient& jack, const Calibration& cal,
                            const std::optional<DspRampStages>& ramp, pid_t rt_tid,
                            const std::string& sched_error) {
  telemetry::Hello h;
  h.index = a.index;
  h.name = jack_get_client_name(jack.get());
  h.pid = ::getpid();
  h.rate = jack.rate();
  h.frames = jack.frames();
  h.ports = a.ports;
  h.dsp_stages = cal.stages;
  h.dsp_target_us = cal.target_us;
  h.dsp_ns_per_stage = cal.ns_per_stage;
  h.rt_tid = rt_tid;
  h.sched_target = a.sched_target ? format_target(*a.sched_target) : "";
  h.sched_error = sched_error;
  h.ramp = ramp;
  return h;
}

// Reads one command line from stdin if one is ready within timeout_ms. "" on timeout,
// "eof" when stdin closed.
std::string read_command(int timeout_ms, std::string* buffer) {
  const auto nl = buffer->find('\n');
  if (nl != std::string::npos) {
    std::string line = buffer->substr(0, nl);
    buffer->erase(0, nl + 1);
    return line;
  }
  pollfd pfd{STDIN_FILENO, POLLIN, 0};
  if (::poll(&pfd, 1, timeout_ms) <= 0) return "";
  char chunk[256];
  const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
  if (n == 0) return "eof";
  if (n < 0) return "";
  buffer->append(chunk, static_cast<size_t>(n));
  return read_command(0, buffer);
}

// "KEYWORD USECS" or "KEYWORD USECS USECS" (the keyword given with its space): true, *first
// and (when there is one) *second set, when `line` is that command with whole numbers.
bool parse_time_command(const std::string& line, const char* keyword, uint64_t* first,
                        std::optional<uint64_t>* second = nullptr) {
  const size_t k = std::strlen(keyword);
  if (line.compare(0, k, keyword) != 0) return false;
  const char* p = line.data() + k;
  const char* last = line.data() + line.size();
  const auto [end1, ec1] = std::from_chars(p, last, *first);
  if (ec1 != std::errc() || end1 == p) return false;
  if (end1 == last) return true;
  uint64_t v = 0;
  if (second == nullptr || *end1 != ' ') return false;
  const auto [end2, ec2] = std::from_chars(end1 + 1, last, v);
  if (ec2 != std::errc() || end2 != last || end2 == end1 + 1) return false;
  *second = v;
  return true;
}

// The main thread while the drain thread works: the window from --duration or from the
// engine's start/stop commands (--wait-start); a signal, the end of stdin or the server going
// away stop the measurement now. Returns once the drain thread has sent Final and, under the
// engine (--wait-start), once the engine has said stop: a client whose planned window ended
// keeps its JACK client and process thread until then, so the engine's last read of the audio
// threads finds them however late it runs on a loaded machine (a campaign run under a compile
// failed with "no thread ... in process" for a client that had closed on its own first). The
// end of stdin (the engine gone) releases it too.
// "connect SRC DST": the engine hands each client the connections into its own ports (the
// tail's also those to the card's playback), so all clients connect at once and JACK2 reorders
// its graph once per cycle for many connections, not once for each. A failure is reported as an
// error (the run fails, naming it); one that exists already is no failure.
void connect_command(const ClientArgs& a, jack_client_t* client, const Telemetry& out,
                     const std::string& args) {
  const auto space = args.find(' ');
  const std::string src = args.substr(0, space);
  const std::string dst = space == std::string::npos ? "" : args.substr(space + 1);
  const int rc = dst.empty() ? -1 : jack_connect(client, src.c_str(), dst.c_str());
  if (rc == 0 || rc == EEXIST) return;
  const std::string why = "cannot connect " + src + " -> " + dst + " (jack_connect returned " +
                          std::to_string(rc) + ")";
  std::fprintf(stderr, "%s: error: %s\n", a.name.c_str(), why.c_str());
  out.send(telemetry::Error{a.index, why});
}

// "report-connections": the connections of the client's own ports as JACK's graph has them,
// read through its port handles (a lookup by name scans every port of the graph), as one
// message. The engine asks after its connect commands, which jack_connect has made by then (it
// returns once the server has). Nothing else sends while the run wires the graph.
void report_connections(const ClientArgs& a, const RtConfig& c, const Telemetry& out) {
  telemetry::Connections m;
  m.index = a.index;
  auto add = [&](jack_port_t* port, bool input) {
    const char** names = jack_port_get_connections(port);
    if (names == nullptr) return;
    const std::string self = jack_port_name(port);
    for (const char** n = names; *n != nullptr; ++n) {
      if (input) {
        m.connections.emplace_back(*n, self);
      } else {
        m.connections.emplace_back(self, *n);
      }
    }
    jack_free(names);
  };
  for (jack_port_t* p : c.in_ports) add(p, true);
  for (jack_port_t* p : c.out_ports) add(p, false);
  if (c.clock_port != nullptr) add(c.clock_port, true);
  out.send(m);
}

void control_window(const ClientArgs& a, RtShared& shared, Window* window,
                    const std::atomic<bool>& drained, jack_client_t* client, const RtConfig& config,
                    const Telemetry& out) {
  bool released = !a.wait_start;
  auto stop_now = [&] {
    if (window->start_at.load() == 0) window->start_at = jack_get_time();
    uint64_t expected = 0;
    window->stop_at.compare_exchange_strong(expected, jack_get_time());
    released = true;
  };
  std::string buffer;
  while (!drained.load() || !released) {
    if (g_signalled.load() || shared.server_gone.load()) stop_now();
    if (!a.wait_start) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const std::string cmd = read_command(kCommandPollMs, &buffer);
    uint64_t usecs = 0;
    std::optional<uint64_t> planned_end;
    if (cmd == "eof") {
      stop_now();
    } else if (parse_time_command(cmd, "start ", &usecs, &planned_end)) {
      if (planned_end) window->planned_stop_at = *planned_end;
      window->start_at = usecs;
      shared.dsp_on.store(true);
    } else if (parse_time_command(cmd, "stop ", &usecs)) {
      if (window->start_at.load() == 0) window->start_at = jack_get_time();
      window->stop_at = usecs;
      released = true;
    } else if (cmd.rfind("ramp ", 0) == 0) {
      uint64_t from = 0;
      if (parse_time_command(cmd, "ramp ", &from)) shared.ramp_from.store(from + 1);
    } else if (cmd.rfind("connect ", 0) == 0) {
      connect_command(a, client, out, cmd.substr(8));
    } else if (cmd == "report-connections") {
      report_connections(a, config, out);
    } else if (!cmd.empty()) {
      std::fprintf(stderr, "%s: ignoring unknown command '%s'\n", a.name.c_str(), cmd.c_str());
    }
  }
}

// After the final report: the JACK client stays open until the engine closes our stdin or a
// signal arrives, also once the server has gone away. The engine stops its own server first: a
// client that then closes talks to no server, where 254 clients closing one by one would cost
// the server a graph change and a notification round to every remaining client each. And the
// client must not close before that server has exited: jackd's close still notifies its
// clients after telling them it shuts down (the driver's ports and client go last), and a
// write to the socket of a client that is gone is a SIGPIPE. jackd has unblocked its signals
// by then, and its handler (SA_RESETHAND) ignores only the first one: the second kills it,
// leaving its shared memory and JACK's metadata database (kill9-trials found it after runs
// that ended normally). The engine closes our stdin once its jackd has exited.
void linger_until_released() {
  std::string buffer;
  while (!g_signalled.load()) {
    if (read_command(kCommandPollMs, &buffer) == "eof") return;
  }
}

int run(const ClientArgs& a) {
  const Telemetry out(a.telemetry_fd);
  set_default_thread_stack();
  jack_set_thread_creator(create_jack_thread);  // the process thread records its tid
  // Declared before the client: the callback may use it until the client is closed.
  auto ctx = std::make_unique<RtContext>();
  std::unique_ptr<CycleTableMap> table;  // likewise: the callback writes into it
  try {
    JackClient jack(a);
    if (!a.cycle_table.empty()) {
      table = std::make_unique<CycleTableMap>(a.cycle_table, a.index, jack.rate(), jack.frames());
      ctx->config.table = table->column();
    }
    const Calibration cal = set_up_rt(jack, a, ctx.get());
    // The drain (the tail's --source index, up to about 250 MB) is made before the memory is
    // locked: under a locked-memory limit too small for it, mlockall then fails (a note) and
    // the client runs unlocked, where locking first would fail the index's allocation instead.
    Drain drain(a, *ctx, jack, out);
    lock_memory(a);
    install_rttime_handler(a);

    // Under the engine (--wait-start) the DSP work starts with the start command: see dsp_on.
    ctx->shared.dsp_on.store(!a.wait_start);
    jack_set_process_callback(jack.get(), process_rt, ctx.get());
    jack_on_shutdown(jack.get(), on_server_shutdown, ctx.get());
    if (jack_activate(jack.get()) != 0) throw ClientFailure("cannot activate the JACK client");
    std::string sched_error;
    const pid_t rt_tid = apply_scheduling(a, ctx->shared, &sched_error);
    out.send(make_hello(a, jack, cal, ctx->config.ramp, rt_tid, sched_error));

    Window window;
    if (!a.wait_start) {
      const uint64_t now = jack_get_time();
      window.start_at = now;
      if (a.duration_s > 0) window.stop_at = now + static_cast<uint64_t>(a.duration_s * 1e6);
    }
    std::atomic<bool> drained{false};
    std::thread drain_thread([&] {
      drain.run(window);
      drained = true;
    });
    control_window(a, ctx->shared, &window, drained, jack.get(), ctx->config, out);
    drain_thread.join();
    if (a.wait_start) linger_until_released();

    const bool gone = ctx->shared.server_gone.load();
    if (!gone) jack_deactivate(jack.get());
    std::fprintf(stderr, "%s: %llu cycles in total, %llu measured, %llu ring drops%s\n",
                 a.name.c_str(), static_cast<unsigned long long>(drain.cycles_total()),
                 static_cast<unsigned long long>(drain.cycles_measured()),
                 static_cast<unsigned long long>(ctx->shared.ring_dropped.load()),
                 gone ? ", the JACK server shut down" : "");
    return gone ? kExitServerGone : kExitOk;
  } catch (const std::exception& e) {  // ClientFailure, or set-up running out of memory
    std::fprintf(stderr, "%s: error: %s\n", a.name.c_str(), e.what());
    out.send(telemetry::Error{a.index, e.what()});
    return kExitFailed;
  }
}

}  // namespace
}  // namespace xrunlab

int main(int argc, char** argv) {
  std::string error;
  int exit_code = 0;
  const std::optional<xrunlab::ClientArgs> args =
      xrunlab::parse_client_args(argc, argv, &error, &exit_code);
  if (!args) {
    if (!error.empty()) std::fprintf(stderr, "xrunlab-client: error: %s\n", error.c_str());
    return exit_code;
  }
  if (args->calibrate_rate > 0) {
    // --calibrate: the engine's one measurement for all clients, on their CPUs and cgroup.
    const xrunlab::Calibration cal =
        xrunlab::calibrate(args->ports, args->calibrate_rate, args->calibrate_frames, 0);
    std::printf("{\"ns_per_stage\": %.3f}\n", cal.ns_per_stage);
    return 0;
  }
  xrunlab::install_signal_handlers();
  return xrunlab::run(*args);
}

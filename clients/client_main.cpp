// xrunlab-client: one synthetic DSP client. Its options: engine/wire/client_args.hpp.
//
// Threads: JACK's process thread (process_rt: clocks, DSP, one ring push), the drain thread
// (ring -> CycleStats -> telemetry), and the main thread (start/stop commands, signals).
#include <fcntl.h>
#include <jack/jack.h>
#include <jack/thread.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "clients/drain/audio_check.hpp"
#include "clients/drain/cycle_stats.hpp"
#include "clients/rt/dsp.hpp"
#include "clients/rt/spsc_ring.hpp"
#include "clients/rt/test_signal.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/sched_target.hpp"
#include "engine/wire/telemetry.hpp"
#include "engine/wire/thread_sched.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

// The kernel tid of each thread libjack creates, captured as the thread starts (see
// create_jack_thread); the process callback publishes its own from there without a system call.
thread_local pid_t t_tid = 0;

struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
};

void* jack_thread_trampoline(void* p) {
  const ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  t_tid = static_cast<pid_t>(::gettid());
  return start.routine(start.arg);
}

// jack_set_thread_creator hook: libjack's threads are created as JACK asks (same attributes),
// only through a trampoline that records the tid.
int create_jack_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*),
                       void* arg) {
  auto* start = new ThreadStart{routine, arg};
  const int rc = ::pthread_create(thread, attr, jack_thread_trampoline, start);
  if (rc != 0) delete start;
  return rc;
}

// The vcard's shared-memory record, mapped read-only: when jackd woke for each boundary.
// Read on the drain thread only (never in the callback).
class CardRecord {
 public:
  CardRecord() = default;
  CardRecord(const CardRecord&) = delete;
  CardRecord& operator=(const CardRecord&) = delete;
  ~CardRecord() {
    if (shm_ != nullptr) ::munmap(const_cast<vcard::Shm*>(shm_), sizeof(vcard::Shm));
  }
  std::string open(const std::string& name) {
    const int fd = ::shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return "cannot open the card record '" + name + "': " + std::strerror(errno);
    void* p = ::mmap(nullptr, sizeof(vcard::Shm), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED)
      return "cannot map the card record '" + name + "': " + std::strerror(errno);
    shm_ = static_cast<const vcard::Shm*>(p);
    if (shm_->magic != vcard::kShmMagic || shm_->version != vcard::kShmVersion) {
      return "the card record '" + name + "' is not a vcard record of this version";
    }
    return "";
  }
  const vcard::Shm* shm() const { return shm_; }
  // jackd's wake-up for boundary m from the capture stream's record (seqlock read).
  bool wake(uint64_t m, int64_t* wake_ns) const {
    const vcard::StreamRecord& s = shm_->stream[1];
    const vcard::WakeSlot& slot = s.wake[m % vcard::kWakeSlots];
    uint64_t got = 0;
    int64_t ideal = 0;
    return vcard::read_wake(slot, &got, &ideal, wake_ns) && got == m;
  }

 private:
  const vcard::Shm* shm_ = nullptr;
};

std::atomic<bool> g_signalled{false};
void on_signal(int) {
  g_signalled.store(true);
}

using Ring = SpscRing<CycleRecord, 16384>;  // 896 KiB: over 20 s of cycles at 64 frames/48 kHz

// What the tail received on the checked port, in pieces of up to kChunk frames.
struct AudioChunk {
  static constexpr uint32_t kChunk = 64;
  uint64_t t_entry_us;  // the cycle's callback entry (JACK time)
  uint32_t frame_time;  // the cycle's jack_last_frame_time()
  uint32_t count;       // samples in s
  float s[kChunk];
};
static_assert(std::is_trivially_copyable_v<AudioChunk>);
using AudioRing = SpscRing<AudioChunk, 16384>;  // 4.5 MiB: 21 s of audio at 48 kHz

// Everything the process callback touches, allocated before activation.
struct RtContext {
  jack_client_t* client = nullptr;
  std::vector<jack_port_t*> in_ports, out_ports;
  jack_port_t* clock_port = nullptr;  // the vcard's marker channel (--clock-port)
  std::vector<const float*> in_bufs;
  std::vector<float*> out_bufs;
  std::unique_ptr<BiquadBank> bank;
  std::unique_ptr<Ring> ring;
  std::atomic<uint64_t> ring_dropped{0};
  uint64_t cycle = 0;
  uint64_t inject_us = 0;
  uint64_t inject_every = 0;
  std::atomic<bool> server_gone{false};
  std::atomic<pid_t> rt_tid{0};  // the process thread's tid, published by its first callback
  // The audible chain: port 1 carries the test signal.
  bool check_port = false;
  const TestSignal* signal = nullptr;  // the source only
  uint64_t signal_frame = 0;           // the source's next frame of the signal
  std::vector<float> scratch;          // port 1's DSP output when it is passed through
  std::vector<float*> dsp_out;         // out_bufs, with port 1 redirected to scratch
  std::unique_ptr<AudioRing> audio;    // the sink only
  std::atomic<uint64_t> audio_dropped{0};
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// Realtime: wait-free apart from the DSP work; no allocation, locks, logging or system calls
// beyond reading the clock (jack_get_time is clock_gettime through the vDSO).
int process_rt(jack_nframes_t nframes, void* arg) noexcept {
  auto* ctx = static_cast<RtContext*>(arg);
  CycleRecord rec;
  rec.t_entry_us = jack_get_time();
  if (ctx->rt_tid.load(std::memory_order_relaxed) == 0) {
    ctx->rt_tid.store(t_tid, std::memory_order_release);  // a thread-local read and a store
  }
  if (ctx->clock_port != nullptr) {
    timespec mono{};
    clock_gettime(CLOCK_MONOTONIC, &mono);  // the vcard's clock, through the vDSO
    rec.t_entry_mono_ns =
        static_cast<uint64_t>(mono.tv_sec) * 1000000000u + static_cast<uint64_t>(mono.tv_nsec);
    const auto* clock = static_cast<const float*>(jack_port_get_buffer(ctx->clock_port, nframes));
    if (vcard::read_marker(clock, nframes, &rec.card_boundary)) {
      rec.flags |= CycleRecord::kHasBoundary;
    }
  }
  rec.frames_since_start = jack_frames_since_cycle_start(ctx->client);
  rec.frame_time = jack_last_frame_time(ctx->client);
  rec.nframes = nframes;
  jack_nframes_t cur_frames = 0;
  jack_time_t cur_usecs = 0, next_usecs = 0;
  float period_usecs = 0;
  if (jack_get_cycle_times(ctx->client, &cur_frames, &cur_usecs, &next_usecs, &period_usecs) == 0) {
    rec.dll_period_start_us = cur_usecs;
  }
  for (size_t p = 0; p < ctx->in_ports.size(); ++p) {
    ctx->in_bufs[p] = static_cast<const float*>(jack_port_get_buffer(ctx->in_ports[p], nframes));
    ctx->out_bufs[p] = static_cast<float*>(jack_port_get_buffer(ctx->out_ports[p], nframes));
    ctx->dsp_out[p] = ctx->out_bufs[p];
  }
  if (ctx->check_port) {
    // Port 1 carries the test signal unchanged; its DSP work still happens, on a scratch copy.
    ctx->dsp_out[0] = ctx->scratch.data();
    ctx->bank->process_rt(ctx->in_bufs.data(), ctx->dsp_out.data(), nframes);
    const float* in = ctx->in_bufs[0];
    if (ctx->audio) {
      AudioChunk chunk;
      chunk.t_entry_us = rec.t_entry_us;
      chunk.frame_time = rec.frame_time;
      for (uint32_t off = 0; off < nframes; off += AudioChunk::kChunk) {
        chunk.count = std::min(AudioChunk::kChunk, nframes - off);
        std::memcpy(chunk.s, in + off, chunk.count * sizeof(float));
        if (!ctx->audio->rt_push(chunk)) ctx->audio_dropped.fetch_add(1, std::memory_order_relaxed);
      }
    }
    if (ctx->signal != nullptr) {
      ctx->signal->fill_rt(ctx->out_bufs[0], ctx->signal_frame, nframes);
      ctx->signal_frame += nframes;
    } else {
      std::memcpy(ctx->out_bufs[0], in, nframes * sizeof(float));
    }
  } else {
    ctx->bank->process_rt(ctx->in_bufs.data(), ctx->out_bufs.data(), nframes);
  }
  ++ctx->cycle;
  if (ctx->inject_every != 0 && ctx->cycle % ctx->inject_every == 0) {
    // Injected overrun: burn CPU until the callback has lasted inject_us in total beyond entry.
    const uint64_t until = rec.t_entry_us + ctx->inject_us;
    while (jack_get_time() < until) {
    }
    rec.flags |= CycleRecord::kInjected;
  }
  rec.t_exit_us = jack_get_time();
  if (!ctx->ring->rt_push(rec)) ctx->ring_dropped.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

void on_shutdown(void* arg) {
  static_cast<RtContext*>(arg)->server_gone.store(true);
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the engine is gone; nothing useful left to do with telemetry
    off += static_cast<size_t>(n);
  }
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

int run(const ClientArgs& opt) {
  const char* tag = opt.name.c_str();
  jack_set_thread_creator(create_jack_thread);
  jack_status_t status{};
  const int flags =
      JackNoStartServer | JackUseExactName | (opt.server.empty() ? 0 : JackServerName);
  jack_client_t* client =
      opt.server.empty()
          ? jack_client_open(opt.name.c_str(), static_cast<jack_options_t>(flags), &status)
          : jack_client_open(opt.name.c_str(), static_cast<jack_options_t>(flags), &status,
                             opt.server.c_str());
  auto fail = [&](const std::string& msg) {
    std::fprintf(stderr, "%s: error: %s\n", tag, msg.c_str());
    write_all(opt.telemetry_fd, telemetry::encode(telemetry::Error{opt.index, msg}));
    return 1;
  };
  if (client == nullptr) {
    return fail("cannot connect to JACK server '" + opt.server + "' (status 0x" +
                std::to_string(static_cast<unsigned>(status)) + "); is it running?");
  }
  auto ctx = std::make_unique<RtContext>();
  ctx->client = client;
  const uint32_t rate = jack_get_sample_rate(client);
  const uint32_t frames = jack_get_buffer_size(client);
  for (int p = 1; p <= opt.ports; ++p) {
    jack_port_t* in = jack_port_register(client, ("in_" + std::to_string(p)).c_str(),
                                         JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    jack_port_t* out = jack_port_register(client, ("out_" + std::to_string(p)).c_str(),
                                          JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (in == nullptr || out == nullptr) {
      jack_client_close(client);
      return fail("cannot register port " + std::to_string(p) +
                  " (is jackd's port-max too small?)");
    }
    ctx->in_ports.push_back(in);
    ctx->out_ports.push_back(out);
  }
  if (opt.clock_port) {
    ctx->clock_port =
        jack_port_register(client, "clock", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (ctx->clock_port == nullptr) {
      jack_client_close(client);
      return fail("cannot register the clock port (is jackd's port-max too small?)");
    }
  }
  ctx->in_bufs.assign(ctx->in_ports.size(), nullptr);
  ctx->out_bufs.assign(ctx->out_ports.size(), nullptr);
  ctx->dsp_out.assign(ctx->out_ports.size(), nullptr);
  std::unique_ptr<TestSignal> signal;
  if (opt.check_port) {
    ctx->check_port = true;
    ctx->scratch.assign(jack_get_buffer_size(client) > 8192 ? jack_get_buffer_size(client) : 8192,
                        0.0f);
    if (opt.source) {
      signal = std::make_unique<TestSignal>(jack_get_sample_rate(client));
      ctx->signal = signal.get();
    }
    if (opt.sink) ctx->audio = std::make_unique<AudioRing>();
  }

  const double period_us = static_cast<double>(frames) * 1e6 / rate;
  const Calibration cal = calibrate(opt.ports, rate, frames, opt.dsp_load_pct / 100.0 * period_us);
  ctx->bank = std::make_unique<BiquadBank>(opt.ports, cal.stages, rate);
  ctx->ring = std::make_unique<Ring>();
  if (opt.inject) {
    ctx->inject_us = opt.inject->usec;
    ctx->inject_every = opt.inject->every;
  }
  std::fprintf(stderr,
               "%s: rate %u Hz, %u frames (%.1f us), %d ports, DSP %d stages for %.1f us "
               "(%.1f ns per stage), inject %s\n",
               tag, rate, frames, period_us, opt.ports, cal.stages, cal.target_us, cal.ns_per_stage,
               opt.inject ? (std::to_string(opt.inject->usec) + " us every " +
                             std::to_string(opt.inject->every) + " cycles")
                                .c_str()
                          : "none");
  if (::mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    std::fprintf(stderr, "%s: note: mlockall failed (%s); pages may fault in the callback\n", tag,
                 std::strerror(errno));
  }

  std::unique_ptr<AudioCheck> audio;
  std::function<void()> drain_audio = [] {};  // set below, once the window's atomics exist
  if (opt.sink) {
    try {
      audio = std::make_unique<AudioCheck>(opt.index, rate, opt.record_dir,
                                           [&](const telemetry::GlitchReport& g) {
                                             write_all(opt.telemetry_fd, telemetry::encode(g));
                                           });
    } catch (const std::exception& e) {
      jack_client_close(client);
      return fail(e.what());
    }
  }
  CycleStats stats(opt.index, rate, frames, [&](const telemetry::Message& m) {
    const auto* final = std::get_if<telemetry::Final>(&m);
    if (final != nullptr && audio) {
      drain_audio();  // chunks are pushed before their cycle's record: take the last ones too
      audio->finish();
      telemetry::Final with_audio = *final;
      with_audio.audio = audio->totals();
      write_all(opt.telemetry_fd, telemetry::encode(with_audio));
      return;
    }
    write_all(opt.telemetry_fd, telemetry::encode(m));
  });
  CardRecord card;
  if (!opt.card_shm.empty()) {
    const std::string err = card.open(opt.card_shm);
    if (!err.empty()) {
      jack_client_close(client);
      return fail(err);
    }
  }
  if (opt.reference == ClientReference::kCard) {
    stats.set_reference(
        CycleStats::Reference::kCard,
        card.shm() == nullptr ? CycleStats::WakeLookup{} : [&card](uint64_t m, int64_t* wake_ns) {
          return card.wake(m, wake_ns);
        });
  } else if (opt.reference == ClientReference::kDll) {
    stats.set_reference(CycleStats::Reference::kDll);
  }

  jack_set_process_callback(client, process_rt, ctx.get());
  jack_on_shutdown(client, on_shutdown, ctx.get());
  if (jack_activate(client) != 0) {
    jack_client_close(client);
    return fail("cannot activate the JACK client");
  }
  // The process thread's scheduling is set from this (non-realtime) thread once the thread has
  // run: JACK sets SCHED_FIFO at the client priority in the thread's own start-up, after any
  // hook of ours could run, so it is applied afterwards, to the thread by its tid.
  std::string sched_error;
  const auto wait_tid_until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ctx->rt_tid.load(std::memory_order_acquire) == 0 &&
         std::chrono::steady_clock::now() < wait_tid_until && !ctx->server_gone.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const pid_t rt_tid = ctx->rt_tid.load(std::memory_order_acquire);
  if (opt.sched_target) {
    if (rt_tid == 0) {
      sched_error = "the process thread never ran, so its scheduling could not be set";
    } else {
      sched_error = apply_thread_sched(rt_tid, *opt.sched_target);
    }
    if (!sched_error.empty()) std::fprintf(stderr, "%s: error: %s\n", tag, sched_error.c_str());
  }

  telemetry::Hello hello;
  hello.index = opt.index;
  hello.name = jack_get_client_name(client);
  hello.pid = ::getpid();
  hello.rate = rate;
  hello.frames = frames;
  hello.ports = opt.ports;
  hello.dsp_stages = cal.stages;
  hello.dsp_target_us = cal.target_us;
  hello.dsp_ns_per_stage = cal.ns_per_stage;
  hello.rt_tid = rt_tid;
  hello.sched_target = opt.sched_target ? format_target(*opt.sched_target) : "";
  hello.sched_error = sched_error;
  write_all(opt.telemetry_fd, telemetry::encode(hello));

  // Start/stop times travel to the drain thread through atomics (0 = not set yet).
  std::atomic<uint64_t> start_at{0}, stop_at{0};
  std::atomic<bool> drained{false};
  if (!opt.wait_start) {
    const uint64_t now = jack_get_time();
    start_at = now;
    if (opt.duration_s > 0) stop_at = now + static_cast<uint64_t>(opt.duration_s * 1e6);
  }
  uint64_t window_t0 = 0, window_t1 = 0;  // the drain thread's view of the window
  if (ctx->audio) {
    drain_audio = [&] {
      // The checked audio of the window's cycles: the same [start, stop) as the statistics.
      ctx->audio->drain([&](const AudioChunk& c) {
        if (window_t0 != 0 && c.t_entry_us >= window_t0 &&
            (window_t1 == 0 || c.t_entry_us < window_t1)) {
          audio->feed(c.s, c.count, c.t_entry_us, c.frame_time);
        }
      });
      audio->add_ring_dropped(ctx->audio_dropped.load(std::memory_order_relaxed));
    };
  }
  std::thread drain([&] {
    constexpr uint64_t kGraceUs = 500000;  // a callback may still be running at the stop time
    while (!stats.finished()) {
      window_t0 = start_at.load();
      window_t1 = stop_at.load();
      if (!stats.started() && window_t0 != 0) stats.set_start(window_t0);
      if (window_t1 != 0) stats.set_stop(window_t1);
      drain_audio();
      ctx->ring->drain([&](const CycleRecord& r) { stats.consume(r); });
      stats.add_ring_dropped(ctx->ring_dropped.load(std::memory_order_relaxed));
      if (ctx->server_gone.load()) stats.finish();
      stats.poll(jack_get_time(), kGraceUs);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    drained = true;
  });

  std::string buffer;
  auto stop_now = [&] {
    if (start_at.load() == 0) start_at = jack_get_time();
    uint64_t expected = 0;
    stop_at.compare_exchange_strong(expected, jack_get_time());
  };
  while (!drained.load()) {
    if (g_signalled.load() || ctx->server_gone.load()) stop_now();
    if (!opt.wait_start) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const std::string cmd = read_command(20, &buffer);
    if (cmd == "eof") {
      stop_now();
    } else if (cmd.rfind("start ", 0) == 0) {
      start_at = std::stoull(cmd.substr(6));
    } else if (cmd.rfind("stop ", 0) == 0) {
      if (start_at.load() == 0) start_at = jack_get_time();
      stop_at = std::stoull(cmd.substr(5));
    } else if (!cmd.empty()) {
      std::fprintf(stderr, "%s: ignoring unknown command '%s'\n", tag, cmd.c_str());
    }
  }
  drain.join();
  const bool gone = ctx->server_gone.load();
  if (!gone) jack_deactivate(client);
  jack_client_close(client);
  std::fprintf(stderr, "%s: %llu cycles in total, %llu measured, %llu ring drops%s\n", tag,
               static_cast<unsigned long long>(stats.cycles_total()),
               static_cast<unsigned long long>(stats.cycles_measured()),
               static_cast<unsigned long long>(ctx->ring_dropped.load()),
               gone ? ", the JACK server shut down" : "");
  return gone ? 3 : 0;
}

}  // namespace
}  // namespace xrunlab

int main(int argc, char** argv) {
  std::string error;
  int exit_code = 0;
  const std::optional<xrunlab::ClientArgs> opt =
      xrunlab::parse_client_args(argc, argv, &error, &exit_code);
  if (!opt) {
    if (!error.empty()) std::fprintf(stderr, "xrunlab-client: error: %s\n", error.c_str());
    return exit_code;
  }
  struct sigaction sa {};
  sa.sa_handler = xrunlab::on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return xrunlab::run(*opt);
}

// SPDX-License-Identifier: GPL-2.0-or-later
// The virtual sound card "vcard": an alsa-lib external I/O (ioplug) PCM plugin, loaded into jackd
// through the private ALSA configuration the engine writes (engine/backend/vcard.hpp). It models a
// real card whose DMA interrupts come on a fixed grid: boundary m at exactly m * frames / rate s of
// CLOCK_MONOTONIC (engine/wire/vcard_shared.hpp). After boundary s + j of a stream started in
// period s, its hardware position is j periods. Poll readiness comes from a timerfd, armed before
// poll() at the first boundary at which the stream becomes ready: one per PCM, or with
// `shared_timer 1` (what the engine writes for jackd) one per card for the PCMs of one process,
// which then fires once per period for both streams (see SharedTimer). The card
// detects xruns itself (ioplug never does), writes the period marker into its clock capture channel
// and records, per boundary, when jackd woke for it in the shared-memory record.
//
// Threads: alsa-lib calls every callback from the thread that uses the PCM; in jackd that is the
// driver thread (realtime) for poll, pointer, transfer and, on xrun recovery, prepare/start/stop.
// The card's state therefore needs no locks. The shared-memory record has one writer per stream.
// `shared_timer 1` declares that both streams of the card are driven from one thread, as jackd's
// driver thread does (alsa_driver_wait polls both): their SharedTimer is then that thread's too.
//
// Written in the C subset of C++ that alsa-lib can call: no exceptions (built with
// -fno-exceptions), no allocation after open, C-style error codes.
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/wire/vcard_shared.hpp"

namespace {

namespace vc = xrunlab::vcard;

#ifdef XRUNLAB_VCARD_PROBE
// A measuring build only (cmake -DXRUNLAB_VCARD_PROBE=ON), never the default: every
// poll_descriptors, poll_revents and timer arming of the process's PCMs, with its
// CLOCK_MONOTONIC time, in a fixed array; written as text to the file named by the environment
// variable XRUNLAB_VCARD_PROBE when a PCM closes. It breaks jackd's wake-up down into the card's
// hops (scripts/vcard-probe.py reads the file).
namespace probe {
enum Kind : unsigned { kPollDescriptors = 0, kPollRevents = 1, kArm = 2, kArmed = 3 };
struct Event {
  int64_t t;
  int64_t arg;  // kArm: the deadline; kPollRevents: the fd's revents | the card's << 16
  unsigned kind;
  unsigned stream;
};
constexpr size_t kEvents = size_t{1} << 20;
Event g_events[kEvents];
size_t g_count = 0;  // jackd's driver thread is the only writer (the card's threading rule)

// Realtime: wait-free (a store into the fixed array).
void note(Kind kind, unsigned stream, int64_t t, int64_t arg) noexcept {
  if (g_count < kEvents) g_events[g_count++] = {t, arg, kind, stream};
}

// Not realtime (close).
void dump() noexcept {
  const char* path = getenv("XRUNLAB_VCARD_PROBE");
  if (path == nullptr || g_count == 0) return;
  FILE* f = fopen(path, "a");
  if (f == nullptr) return;
  for (size_t i = 0; i < g_count; ++i) {
    const Event& e = g_events[i];
    fprintf(f, "%u %u %lld %lld\n", e.kind, e.stream, static_cast<long long>(e.t),
            static_cast<long long>(e.arg));
  }
  fclose(f);
  g_count = 0;
}
}  // namespace probe
#define XRUNLAB_PROBE(kind, stream, t, arg) probe::note(probe::kind, stream, t, arg)
#else
#define XRUNLAB_PROBE(kind, stream, t, arg) ((void)0)
#endif

constexpr unsigned kStreamPlayback = 0;
constexpr unsigned kStreamCapture = 1;

// ---- configuration -------------------------------------------------------------------------

struct Config {
  long rate = 0;
  long period_frames = 0;
  long min_periods = 2;
  long max_periods = 32;
  long playback_channels = 0;
  long capture_channels = 0;
  long clock_channel = 0;
  long shared_timer = 0;
  char shm[NAME_MAX + 1] = {};
};

struct IntField {
  const char* id;
  long* value;
  bool required;
  long min, max;
  bool seen;
};

// Reads the card's fields from `conf`; SNDERR naming the field and -EINVAL when one is unknown,
// missing, of the wrong type or out of range.
int parse_config(snd_config_t* conf, Config* cfg) {
  IntField fields[] = {
      {"rate", &cfg->rate, true, 1000, 1000000, false},
      {"period_frames", &cfg->period_frames, true, vc::kMarkerFrames, 1 << 20, false},
      {"min_periods", &cfg->min_periods, false, 1, 1024, false},
      {"max_periods", &cfg->max_periods, false, 1, 1024, false},
      {"playback_channels", &cfg->playback_channels, true, 1, 1024, false},
      {"capture_channels", &cfg->capture_channels, true, 1, 1024, false},
      {"clock_channel", &cfg->clock_channel, false, 0, 1024, false},
      {"shared_timer", &cfg->shared_timer, false, 0, 1, false},
  };
  bool shm_seen = false;
  snd_config_iterator_t i, next;
  snd_config_for_each(i, next, conf) {
    snd_config_t* n = snd_config_iterator_entry(i);
    const char* id = nullptr;
    if (snd_config_get_id(n, &id) < 0 || id == nullptr) continue;
    if (std::strcmp(id, "comment") == 0 || std::strcmp(id, "type") == 0 ||
        std::strcmp(id, "hint") == 0) {
      continue;
    }
    if (std::strcmp(id, "shm") == 0) {
      const char* s = nullptr;
      if (snd_config_get_string(n, &s) < 0 || s == nullptr) {
        SNDERR("xrunlab: field shm must be a string (the POSIX shm object, \"/name\")");
        return -EINVAL;
      }
      const size_t len = std::strlen(s);
      if (len < 2 || s[0] != '/' || len > NAME_MAX || std::strchr(s + 1, '/') != nullptr) {
        SNDERR("xrunlab: field shm \"%s\" is not a POSIX shm object name (\"/name\")", s);
        return -EINVAL;
      }
      std::memcpy(cfg->shm, s, len + 1);
      shm_seen = true;
      continue;
    }
    IntField* f = nullptr;
    for (IntField& cand : fields) {
      if (std::strcmp(id, cand.id) == 0) f = &cand;
    }
    if (f == nullptr) {
      SNDERR("xrunlab: unknown field %s", id);
      return -EINVAL;
    }
    long v = 0;
    if (snd_config_get_integer(n, &v) < 0) {
      SNDERR("xrunlab: field %s must be an integer", id);
      return -EINVAL;
    }
    if (v < f->min || v > f->max) {
      SNDERR("xrunlab: field %s = %ld is out of range %ld..%ld", id, v, f->min, f->max);
      return -EINVAL;
    }
    *f->value = v;
    f->seen = true;
  }
  for (const IntField& f : fields) {
    if (f.required && !f.seen) {
      SNDERR("xrunlab: missing field %s", f.id);
      return -EINVAL;
    }
  }
  if (!shm_seen) {
    SNDERR("xrunlab: missing field shm");
    return -EINVAL;
  }
  if (cfg->min_periods > cfg->max_periods) {
    SNDERR("xrunlab: field min_periods (%ld) is larger than max_periods (%ld)", cfg->min_periods,
           cfg->max_periods);
    return -EINVAL;
  }
  if (cfg->clock_channel > cfg->capture_channels) {
    SNDERR("xrunlab: field clock_channel (%ld) is not one of the %ld capture channels",
           cfg->clock_channel, cfg->capture_channels);
    return -EINVAL;
  }
  return 0;
}

// ---- one timer per card ----------------------------------------------------------------------
// With `shared_timer 1` the PCMs of one card (same shm object) in one process share one timerfd:
// both expose it as their poll descriptor, so one hrtimer per period wakes the poller for both
// streams, and it is armed once per period instead of once per stream. Each stream states the
// deadline it wants (want[]); the timer is armed at the earliest, and re-armed only when that
// earliest changes. The wishes hold for one poll round: jackd asks the descriptors of the
// streams it waits for, polls once, then asks them for their events. The first
// poll_descriptors after a poll_revents opens a new round and drops every wish, so a stream
// that is not in this poll (served, or no longer waited for) holds no deadline. An armed deadline
// that has passed leaves the timerfd readable (it is never read; timerfd_settime clears it),
// which is right for a wish at or before it: that stream is due now. A stream that finds itself
// not ready after a wake states its own boundary again before the next poll, so another stream's
// earlier deadline cannot make it spin.
// The first poll_revents after a poll is the card's earliest sight of jackd's wake-up; the
// other stream's poll_revents in the same round records that same instant (round_wake_ns)
// instead of the later moment alsa-lib reached its callback.
struct SharedTimer {
  char shm[NAME_MAX + 1];  // the card ("" = free slot)
  unsigned refs;           // PCMs using it
  int fd;
  uint64_t want[2];       // per stream: the deadline it waits for (0 none, 1 at once)
  uint64_t armed;         // the deadline the timerfd is armed at (0 disarmed)
  int64_t round_wake_ns;  // first poll_revents since the last poll_descriptors (0 none)
  unsigned round_seen;    // bit per stream: its poll_revents ran in this round
  bool round_open;        // poll_descriptors ran since the last poll_revents
};
constexpr unsigned kSharedTimers = 16;
SharedTimer g_shared[kSharedTimers];
// Guards g_shared's slots (refs, shm, fd) at open and close only, never in the realtime paths.
pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER;

// The card's shared timer, created on first use; nullptr with *err (SNDERR given) on failure.
// Not realtime (open).
SharedTimer* acquire_shared_timer(const char* shm, int* err) {
  pthread_mutex_lock(&g_shared_lock);
  SharedTimer* found = nullptr;
  SharedTimer* free_slot = nullptr;
  for (SharedTimer& t : g_shared) {
    if (t.refs > 0 && std::strcmp(t.shm, shm) == 0) found = &t;
    if (t.refs == 0 && free_slot == nullptr) free_slot = &t;
  }
  if (found == nullptr && free_slot != nullptr) {
    const int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) {
      *err = -errno;
      SNDERR("xrunlab: timerfd_create: %s", std::strerror(-*err));
      pthread_mutex_unlock(&g_shared_lock);
      return nullptr;
    }
    *free_slot = SharedTimer{};
    std::memcpy(free_slot->shm, shm, std::strlen(shm) + 1);
    free_slot->fd = fd;
    found = free_slot;
  }
  if (found == nullptr) {
    SNDERR("xrunlab: more than %u cards with shared_timer open in this process", kSharedTimers);
    *err = -EMFILE;
  } else {
    ++found->refs;
  }
  pthread_mutex_unlock(&g_shared_lock);
  return found;
}

// Not realtime (close).
void release_shared_timer(SharedTimer* t) {
  pthread_mutex_lock(&g_shared_lock);
  if (--t->refs == 0) {
    close(t->fd);
    t->shm[0] = '\0';
    t->fd = -1;
  }
  pthread_mutex_unlock(&g_shared_lock);
}

// ---- the card --------------------------------------------------------------------------------

struct Card {
  snd_pcm_ioplug_t io{};

  // Fixed at open.
  uint32_t rate = 0;
  uint32_t period = 0;
  bool playback = false;
  uint32_t clock_channel = 0;         // 1-based capture channel with the marker; 0 = none
  unsigned stream = kStreamPlayback;  // kStreamPlayback or kStreamCapture
  int timer_fd = -1;                  // this PCM's own, or the shared timer's
  SharedTimer* shared = nullptr;      // shared_timer 1: the card's timer in this process
  vc::Shm* shm = nullptr;
  vc::StreamRecord* rec = nullptr;
  bool owns_stream = false;  // this PCM set rec->open (a card's stream has one opener at a time)

  // From hw_params / sw_params.
  uint64_t buffer = 0;
  uint64_t avail_min = 1;
  uint64_t stop_threshold = 0;
  bool stop_never = false;
  uint64_t pcm_boundary = 0;  // alsa-lib's wrap point of hw/appl pointers (0: not known yet)

  // Stream state, driver thread only.
  bool running = false;        // started and not stopped: the position follows the grid
  bool xrun = false;           // latched until stop or prepare
  uint64_t anchor = 0;         // s: position 0 corresponds to boundary s
  uint64_t hw_stopped = 0;     // position while not running
  uint64_t hw_last = 0;        // position at the last update (reference to unwrap appl_ptr)
  uint64_t ok_through = 0;     // last boundary at which the stream was seen not in xrun
  uint64_t last_recorded = 0;  // newest boundary with a wake slot written by this PCM
};

// What the stream looks like now.
struct Snapshot {
  uint64_t cur = 0;   // boundary_index(now) (0 when not running)
  uint64_t hw = 0;    // hardware position, 64-bit
  uint64_t appl = 0;  // application position, 64-bit
  int64_t avail = 0;  // frames the application may transfer
};

Card* card_of(snd_pcm_ioplug_t* io) noexcept {
  return static_cast<Card*>(io->private_data);
}

// Realtime: wait-free (one vDSO clock read).
int64_t mono_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// io->appl_ptr counts modulo the pcm boundary (>= 2^62 frames on 64-bit alsa-lib); unwraps it to
// the 64-bit position nearest to hw. Realtime: wait-free.
uint64_t appl64(const Card& c, uint64_t hw) noexcept {
  const uint64_t a = c.io.appl_ptr;
  const uint64_t b = c.pcm_boundary;
  if (b == 0) return a;
  const uint64_t d = (a % b + b - hw % b) % b;  // appl - hw modulo b
  const int64_t signed_d = d > b / 2 ? -static_cast<int64_t>(b - d) : static_cast<int64_t>(d);
  const int64_t r = static_cast<int64_t>(hw) + signed_d;
  return r < 0 ? 0 : static_cast<uint64_t>(r);
}

// Realtime: wait-free.
int64_t avail_of(const Card& c, uint64_t hw, uint64_t appl) noexcept {
  const int64_t h = static_cast<int64_t>(hw);
  const int64_t a = static_cast<int64_t>(appl);
  return c.playback ? h + static_cast<int64_t>(c.buffer) - a : h - a;
}

// The smallest j >= 0 such that avail >= target once the position is j periods (appl fixed).
// Realtime: wait-free.
uint64_t periods_until(const Card& c, uint64_t appl, uint64_t target) noexcept {
  const int64_t need = c.playback
                           ? static_cast<int64_t>(target + appl) - static_cast<int64_t>(c.buffer)
                           : static_cast<int64_t>(target + appl);
  if (need <= 0) return 0;
  return (static_cast<uint64_t>(need) + c.period - 1) / c.period;
}

// Records the (one) xrun of this latch. The boundary is computed, not the detection time: the
// first boundary at which avail reached the stop threshold. Realtime: wait-free.
void latch_xrun(Card& c, const Snapshot& s, int64_t now) noexcept {
  c.xrun = true;
  uint64_t b = c.anchor + periods_until(c, s.appl, c.stop_threshold);
  if (b <= c.ok_through) b = c.ok_through + 1;
  if (b > s.cur) b = s.cur;
  vc::StreamRecord& r = *c.rec;
  const uint64_t n = r.xruns.load(std::memory_order_relaxed);  // single writer
  vc::XrunEvent& e = r.xrun[n % vc::kXrunSlots];
  e.boundary = b;
  e.ideal_ns = static_cast<int64_t>(vc::boundary_ns(b, c.rate, c.period));
  e.detected_ns = now;
  e.avail_frames = s.avail;
  r.xruns.store(n + 1, std::memory_order_release);
}

// Brings the stream state to `now`: position, avail, xrun detection. Realtime: wait-free.
Snapshot update(Card& c, int64_t now) noexcept {
  Snapshot s;
  if (c.running) {
    s.cur = vc::boundary_index(static_cast<uint64_t>(now), c.rate, c.period);
    s.hw = s.cur > c.anchor ? (s.cur - c.anchor) * c.period : 0;
  } else {
    s.hw = c.hw_stopped;
  }
  c.hw_last = s.hw;
  s.appl = appl64(c, s.hw);
  s.avail = avail_of(c, s.hw, s.appl);
  // A draining playback stream empties by design: alsa-lib stops it, it is no xrun.
  if (c.running && !c.xrun && c.io.state != SND_PCM_STATE_DRAINING) {
    if (!c.stop_never && s.avail >= static_cast<int64_t>(c.stop_threshold)) {
      latch_xrun(c, s, now);
    } else {
      c.ok_through = s.cur;
    }
  }
  return s;
}

// One-shot absolute deadline on the grid (0 = disarm). timerfd_settime also clears expirations
// that are still pending. With a shared timer: this stream's wish, and the timer armed at the
// earliest wish only when that changed. Realtime: at most one non-blocking system call.
void arm_timer(Card& c, uint64_t deadline_ns) noexcept {
  if (c.shared != nullptr) {
    SharedTimer& t = *c.shared;
    t.want[c.stream] = deadline_ns;
    uint64_t earliest = 0;
    for (const uint64_t w : t.want) {
      if (w != 0 && (earliest == 0 || w < earliest)) earliest = w;
    }
    if (earliest == t.armed) return;  // pending, or passed and still readable: due now
    t.armed = earliest;
    deadline_ns = earliest;
  }
  itimerspec its{};
  its.it_value.tv_sec = static_cast<time_t>(deadline_ns / 1000000000u);
  its.it_value.tv_nsec = static_cast<long>(deadline_ns % 1000000000u);
  XRUNLAB_PROBE(kArm, c.stream, mono_ns(), static_cast<int64_t>(deadline_ns));
  timerfd_settime(c.timer_fd, TFD_TIMER_ABSTIME, &its, nullptr);
  XRUNLAB_PROBE(kArmed, c.stream, mono_ns(), 0);
  vc::StreamRecord& r = *c.rec;
  r.timer_arms.store(r.timer_arms.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

bool ready(const Card& c, const Snapshot& s) noexcept {
  return s.avail >= static_cast<int64_t>(c.avail_min);
}

// Arms the timer for the next poll(): immediately when the stream is in xrun or ready, else at
// the first boundary at which it becomes ready (or reaches the stop threshold). A stream that
// is not running and not ready never becomes ready: disarmed. Realtime: one system call.
void arm_for(Card& c, const Snapshot& s) noexcept {
  if (c.xrun || ready(c, s)) {
    arm_timer(c, 1);  // {0, 1}: in the past, fires at once
    return;
  }
  if (!c.running) {
    arm_timer(c, 0);
    return;
  }
  uint64_t j = periods_until(c, s.appl, c.avail_min);
  if (!c.stop_never) {
    const uint64_t jx = periods_until(c, s.appl, c.stop_threshold);
    if (jx < j) j = jx;
  }
  uint64_t m = c.anchor + j;
  if (m <= s.cur) m = s.cur + 1;
  arm_timer(c, vc::boundary_ns(m, c.rate, c.period));
}

// Writes a wake slot for every boundary passed since the last call (at most kWakeSlots back):
// jackd woke for them at `now`. Seqlock writer. Realtime: wait-free, bounded by kWakeSlots.
void record_wakes(Card& c, uint64_t cur, int64_t now) noexcept {
  if (cur <= c.last_recorded) return;
  uint64_t first = c.last_recorded + 1;
  if (cur - first >= vc::kWakeSlots) first = cur - vc::kWakeSlots + 1;
  vc::StreamRecord& r = *c.rec;
  uint64_t written = r.wakes_written.load(std::memory_order_relaxed);  // single writer
  for (uint64_t m = first; m <= cur; ++m) {
    vc::WakeSlot& slot = r.wake[m % vc::kWakeSlots];
    vc::write_wake(slot, m, static_cast<int64_t>(vc::boundary_ns(m, c.rate, c.period)), now);
    r.wakes_written.store(++written, std::memory_order_release);
  }
  c.last_recorded = cur;
}

float* frame_ptr(const snd_pcm_channel_area_t& a, uint64_t frame) noexcept {
  return reinterpret_cast<float*>(static_cast<char*>(a.addr) + (a.first + a.step * frame) / 8);
}

// ---- ioplug callbacks ----------------------------------------------------------------------

// Realtime: wait-free (called from snd_pcm_start, also in jackd's xrun recovery).
int cb_start(snd_pcm_ioplug_t* io) noexcept {
  Card& c = *card_of(io);
  c.anchor = vc::boundary_index(static_cast<uint64_t>(mono_ns()), c.rate, c.period);
  c.running = true;
  c.xrun = false;
  c.ok_through = c.anchor - 1;
  if (c.last_recorded < c.anchor) c.last_recorded = c.anchor;
  vc::StreamRecord& r = *c.rec;
  r.starts.store(r.starts.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return 0;
}

// Realtime: one system call (disarms the timer).
int cb_stop(snd_pcm_ioplug_t* io) noexcept {
  Card& c = *card_of(io);
  if (c.running) {
    const uint64_t cur = vc::boundary_index(static_cast<uint64_t>(mono_ns()), c.rate, c.period);
    c.hw_stopped = cur > c.anchor ? (cur - c.anchor) * c.period : 0;
  }
  c.running = false;
  c.xrun = false;
  arm_timer(c, 0);
  return 0;
}

// Realtime: one system call (disarms the timer).
int cb_prepare(snd_pcm_ioplug_t* io) noexcept {
  Card& c = *card_of(io);
  c.running = false;
  c.xrun = false;
  c.hw_stopped = 0;
  c.hw_last = 0;
  arm_timer(c, 0);
  return 0;
}

// Realtime: wait-free.
snd_pcm_sframes_t cb_pointer(snd_pcm_ioplug_t* io) noexcept {
  Card& c = *card_of(io);
  const Snapshot s = update(c, mono_ns());
  if (c.xrun) return -EPIPE;
  const uint64_t hw = c.pcm_boundary != 0 ? s.hw % c.pcm_boundary : s.hw;
  return static_cast<snd_pcm_sframes_t>(hw);
}

// Playback: the data is discarded. Capture: silence, and in the clock channel the marker of each
// period at its first kMarkerFrames frames (written frame by frame by absolute position, so a
// region boundary may fall inside a marker). Idempotent: alsa-lib may pass the same region more
// than once. Realtime: wait-free, bounded by the region size.
snd_pcm_sframes_t cb_transfer(snd_pcm_ioplug_t* io, const snd_pcm_channel_area_t* areas,
                              snd_pcm_uframes_t offset, snd_pcm_uframes_t size) noexcept {
  Card& c = *card_of(io);
  if (c.playback || size == 0) return static_cast<snd_pcm_sframes_t>(size);
  for (unsigned ch = 0; ch < io->channels; ++ch) {
    for (snd_pcm_uframes_t f = 0; f < size; ++f) *frame_ptr(areas[ch], offset + f) = 0.0f;
  }
  if (c.clock_channel == 0 || c.clock_channel > io->channels) {
    return static_cast<snd_pcm_sframes_t>(size);
  }
  const snd_pcm_channel_area_t& a = areas[c.clock_channel - 1];
  const uint64_t pos = appl64(c, c.hw_last);  // stream position of areas[offset]
  const uint64_t end = pos + size;
  for (uint64_t p = pos / c.period * c.period; p < end; p += c.period) {
    float words[vc::kMarkerFrames];
    vc::write_marker(words, 1, c.anchor + p / c.period + 1);
    for (uint32_t k = 0; k < vc::kMarkerFrames; ++k) {
      const uint64_t f = p + k;
      if (f >= pos && f < end) *frame_ptr(a, offset + (f - pos)) = words[k];
    }
  }
  return static_cast<snd_pcm_sframes_t>(size);
}

int cb_close(snd_pcm_ioplug_t* io) noexcept {
  Card* c = card_of(io);
#ifdef XRUNLAB_VCARD_PROBE
  probe::dump();
#endif
  if (c->rec != nullptr && c->owns_stream) c->rec->open.store(0, std::memory_order_release);
  if (c->shared != nullptr) {
    c->shared->want[c->stream] = 0;
    release_shared_timer(c->shared);
  } else if (c->timer_fd >= 0) {
    close(c->timer_fd);
  }
  if (c->shm != nullptr) munmap(c->shm, sizeof(vc::Shm));
  delete c;
  return 0;
}

int cb_hw_params(snd_pcm_ioplug_t* io, snd_pcm_hw_params_t* /*params*/) noexcept {
  Card& c = *card_of(io);
  if (io->period_size != c.period) {
    SNDERR("xrunlab: period size %lu is not the card's %u frames", io->period_size, c.period);
    return -EINVAL;
  }
  c.buffer = io->buffer_size;
  c.rec->buffer_frames = static_cast<uint32_t>(io->buffer_size);
  return 0;
}

int cb_sw_params(snd_pcm_ioplug_t* io, snd_pcm_sw_params_t* params) noexcept {
  Card& c = *card_of(io);
  snd_pcm_uframes_t v = 0;
  if (snd_pcm_sw_params_get_boundary(params, &v) == 0) c.pcm_boundary = v;
  if (snd_pcm_sw_params_get_avail_min(params, &v) == 0) c.avail_min = v > 0 ? v : 1;
  if (snd_pcm_sw_params_get_stop_threshold(params, &v) == 0) c.stop_threshold = v;
  c.stop_never = c.pcm_boundary != 0 && c.stop_threshold >= c.pcm_boundary;
  return 0;
}

int cb_poll_descriptors_count(snd_pcm_ioplug_t* /*io*/) noexcept {
  return 1;
}

// Called by jackd before every poll(): arms the timer for the stream's state now.
// Realtime: wait-free apart from at most one timerfd_settime.
int cb_poll_descriptors(snd_pcm_ioplug_t* io, pollfd* pfd, unsigned int space) noexcept {
  if (pfd == nullptr || space < 1) return 0;
  Card& c = *card_of(io);
  const int64_t now = mono_ns();
  XRUNLAB_PROBE(kPollDescriptors, c.stream, now, 0);
  if (c.shared != nullptr && !c.shared->round_open) {  // a new poll round begins
    SharedTimer& t = *c.shared;
    t.round_open = true;
    t.want[kStreamPlayback] = t.want[kStreamCapture] = 0;
    t.round_wake_ns = 0;
    t.round_seen = 0;
  }
  arm_for(c, update(c, now));
  pfd->fd = c.timer_fd;
  pfd->events = POLLIN;  // a timerfd is readable when it fires; poll_revents translates
  pfd->revents = 0;
  return 1;
}

// Translates the timer's readability into the stream's events, from the state now, and records
// the wakes. Realtime: wait-free (no logging, allocation or locks); one timerfd_settime only in
// the rare not-ready case (a stale or early wake) so that snd_pcm_wait() does not spin.
int cb_poll_revents(snd_pcm_ioplug_t* io, pollfd* pfd, unsigned int nfds,
                    unsigned short* revents) noexcept {
  if (pfd == nullptr || nfds != 1 || revents == nullptr) return -EINVAL;
  Card& c = *card_of(io);
  const int64_t now = mono_ns();
  const Snapshot s = update(c, now);
  // jackd woke when its poll returned: with a shared timer, the round's first poll_revents is
  // the nearest the card sees (if no boundary passed since, else this call's time).
  int64_t wake = now;
  if (c.shared != nullptr) {
    SharedTimer& t = *c.shared;
    t.round_open = false;  // the poll returned
    // A stream asked twice without a poll_descriptors between: a new round all the same.
    if (t.round_seen & (1u << c.stream)) t.round_wake_ns = 0;
    t.round_seen |= 1u << c.stream;
    int64_t& first = t.round_wake_ns;
    if (first == 0) first = now;
    if (vc::boundary_index(static_cast<uint64_t>(first), c.rate, c.period) == s.cur) wake = first;
  }
  if (c.running) record_wakes(c, s.cur, wake);
  unsigned short r = 0;
  if (c.xrun) {
    r = POLLERR;
  } else if (ready(c, s)) {
    r = c.playback ? POLLOUT : POLLIN;
  } else if (pfd->revents & POLLIN) {
    arm_for(c, s);
  }
  if (pfd->revents & POLLNVAL) r |= POLLNVAL;
  *revents = r;
  XRUNLAB_PROBE(kPollRevents, c.stream, now,
                static_cast<int64_t>(pfd->revents) | (static_cast<int64_t>(r) << 16));
  return 0;
}

snd_pcm_ioplug_callback_t make_callbacks() {
  snd_pcm_ioplug_callback_t cb{};
  cb.start = cb_start;
  cb.stop = cb_stop;
  cb.pointer = cb_pointer;
  cb.transfer = cb_transfer;
  cb.close = cb_close;
  cb.hw_params = cb_hw_params;
  cb.sw_params = cb_sw_params;
  cb.prepare = cb_prepare;
  cb.poll_descriptors_count = cb_poll_descriptors_count;
  cb.poll_descriptors = cb_poll_descriptors;
  cb.poll_revents = cb_poll_revents;
  return cb;
}

const snd_pcm_ioplug_callback_t kCallbacks = make_callbacks();

// Opens and checks the engine's shm object; SNDERR and a negative errno on failure.
int map_shm(const Config& cfg, vc::Shm** out) {
  const int fd = shm_open(cfg.shm, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    const int err = errno;
    SNDERR(
        "xrunlab: cannot open the card's shared memory object %s: %s (the engine creates it "
        "before starting jackd)",
        cfg.shm, std::strerror(err));
    return -ENOENT;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < sizeof(vc::Shm)) {
    SNDERR("xrunlab: shared memory object %s is smaller than the card's record (%zu bytes)",
           cfg.shm, sizeof(vc::Shm));
    close(fd);
    return -EINVAL;
  }
  void* p = mmap(nullptr, sizeof(vc::Shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int map_err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    SNDERR("xrunlab: cannot map shared memory object %s: %s", cfg.shm, std::strerror(map_err));
    return -map_err;
  }
  auto* shm = static_cast<vc::Shm*>(p);
  if (shm->magic != vc::kShmMagic || shm->version != vc::kShmVersion ||
      shm->rate != static_cast<uint32_t>(cfg.rate) ||
      shm->frames != static_cast<uint32_t>(cfg.period_frames)) {
    SNDERR(
        "xrunlab: shared memory object %s does not match this card: magic 0x%x version %u "
        "rate %u frames %u, expected magic 0x%x version %u rate %ld frames %ld",
        cfg.shm, shm->magic, shm->version, shm->rate, shm->frames, vc::kShmMagic, vc::kShmVersion,
        cfg.rate, cfg.period_frames);
    munmap(p, sizeof(vc::Shm));
    return -EINVAL;
  }
  *out = shm;
  return 0;
}

int set_constraints(snd_pcm_ioplug_t* io, const Config& cfg, unsigned channels) {
  static const unsigned kAccess[] = {
      SND_PCM_ACCESS_MMAP_INTERLEAVED, SND_PCM_ACCESS_MMAP_NONINTERLEAVED,
      SND_PCM_ACCESS_RW_INTERLEAVED, SND_PCM_ACCESS_RW_NONINTERLEAVED};
  static const unsigned kFormat[] = {SND_PCM_FORMAT_FLOAT_LE};
  const auto rate = static_cast<unsigned>(cfg.rate);
  const unsigned period_bytes = static_cast<unsigned>(cfg.period_frames) * channels * 4u;
  const auto min_p = static_cast<unsigned>(cfg.min_periods);
  const auto max_p = static_cast<unsigned>(cfg.max_periods);
  int err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS, 4, kAccess);
  if (err >= 0) err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT, 1, kFormat);
  if (err >= 0)
    err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, channels, channels);
  if (err >= 0) err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_RATE, rate, rate);
  if (err >= 0) {
    err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, period_bytes,
                                          period_bytes);
  }
  if (err >= 0) err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, min_p, max_p);
  if (err >= 0) {
    err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, min_p * period_bytes,
                                          max_p * period_bytes);
  }
  return err;
}

int open_card(snd_pcm_t** pcmp, const char* name, snd_config_t* conf, snd_pcm_stream_t stream,
              int mode) {
  Config cfg;
  int err = parse_config(conf, &cfg);
  if (err < 0) return err;

  Card* c = new (std::nothrow) Card;
  if (c == nullptr) return -ENOMEM;
  c->rate = static_cast<uint32_t>(cfg.rate);
  c->period = static_cast<uint32_t>(cfg.period_frames);
  c->playback = stream == SND_PCM_STREAM_PLAYBACK;
  c->stream = c->playback ? kStreamPlayback : kStreamCapture;
  c->clock_channel = c->playback ? 0 : static_cast<uint32_t>(cfg.clock_channel);
  c->avail_min = c->period;
  const unsigned channels =
      static_cast<unsigned>(c->playback ? cfg.playback_channels : cfg.capture_channels);

  err = map_shm(cfg, &c->shm);
  if (err < 0) {
    delete c;
    return err;
  }
  c->rec = &c->shm->stream[c->playback ? kStreamPlayback : kStreamCapture];
  // Like a hardware PCM, each direction of the card has one opener at a time.
  uint32_t closed = 0;
  if (!c->rec->open.compare_exchange_strong(closed, 1, std::memory_order_acq_rel)) {
    SNDERR("xrunlab: the %s stream of card %s is in use by another program",
           c->playback ? "playback" : "capture", cfg.shm);
    munmap(c->shm, sizeof(vc::Shm));
    delete c;
    return -EBUSY;
  }
  c->owns_stream = true;
  if (cfg.shared_timer != 0) {
    c->shared = acquire_shared_timer(cfg.shm, &err);
    if (c->shared != nullptr) c->timer_fd = c->shared->fd;
  } else {
    c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (c->timer_fd < 0) {
      err = -errno;
      SNDERR("xrunlab: timerfd_create: %s", std::strerror(-err));
    }
  }
  if (c->timer_fd < 0) {
    c->rec->open.store(0, std::memory_order_release);
    munmap(c->shm, sizeof(vc::Shm));
    delete c;
    return err;
  }

  c->io.version = SND_PCM_IOPLUG_VERSION;
  c->io.name = "xrunlab virtual sound card";
  c->io.flags = SND_PCM_IOPLUG_FLAG_BOUNDARY_WA | SND_PCM_IOPLUG_FLAG_MONOTONIC;
  c->io.poll_fd = c->timer_fd;
  c->io.poll_events = POLLIN;
  c->io.mmap_rw = 0;
  c->io.callback = &kCallbacks;
  c->io.private_data = c;
  err = snd_pcm_ioplug_create(&c->io, name, stream, mode);
  if (err < 0) {
    if (c->shared != nullptr) {
      release_shared_timer(c->shared);
    } else {
      close(c->timer_fd);
    }
    c->rec->open.store(0, std::memory_order_release);
    munmap(c->shm, sizeof(vc::Shm));
    delete c;
    return err;
  }
  // From here on snd_pcm_ioplug_delete() -> cb_close() releases everything.
  err = set_constraints(&c->io, cfg, channels);
  if (err < 0) {
    snd_pcm_ioplug_delete(&c->io);
    return err;
  }
  c->rec->channels = channels;
  c->rec->period_frames = c->period;
  *pcmp = c->io.pcm;
  return 0;
}

}  // namespace

extern "C" {
#pragma GCC visibility push(default)
SND_PCM_PLUGIN_DEFINE_FUNC(xrunlab) {
  (void)root;
  return open_card(pcmp, name, conf, stream, mode);
}
SND_PCM_PLUGIN_SYMBOL(xrunlab)
#pragma GCC visibility pop
}

// SPDX-License-Identifier: GPL-2.0-or-later
// The virtual sound card through alsa-lib (the real plugin, loaded from a configuration held in
// memory, so the process environment and the system's ALSA configuration are untouched), and
// one smoke test with the real jackd running its ALSA driver on the card.
#include <alsa/asoundlib.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend/vcard.hpp"
#include "engine/jack/jack_registry.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/system/proc_stat.hpp"
#include "engine/system/process.hpp"
#include "engine/wire/vcard_shared.hpp"
#include "tests/support/files.hpp"

#ifndef XRUNLAB_VCARD_PLUGIN
#error "XRUNLAB_VCARD_PLUGIN must name the built plugin"
#endif

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000;
constexpr uint32_t kFrames = 256;
constexpr unsigned kPlayCh = 4;
constexpr unsigned kCapCh = 5;
constexpr unsigned kClock = 5;  // 1-based
constexpr int kPlayback = VcardReader::kPlayback;
constexpr int kCapture = VcardReader::kCapture;

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void sleep_until_ns(uint64_t t) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(t / 1000000000u);
  ts.tv_nsec = static_cast<long>(t % 1000000000u);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// Sleeps until shortly after the next boundary, so that two streams started now anchor on the
// same boundary.
void align_to_grid() {
  const uint64_t m = vcard::boundary_index(static_cast<uint64_t>(mono_ns()), kRate, kFrames);
  sleep_until_ns(vcard::boundary_ns(m + 1, kRate, kFrames) + 200000);
}

std::string unique_shm_name() {
  static int n = 0;
  return "/xrunlab-vcard-pcmtest-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
}

int open_fd_count() {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  while (::readdir(d) != nullptr) ++n;
  ::closedir(d);
  return n;
}

// alsa-lib's error messages, captured (SNDERR goes through this handler).
std::string g_alsa_errors;
void capture_alsa_error(const char* /*file*/, int /*line*/, const char* /*function*/, int /*err*/,
                        const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_alsa_errors += buf;
  g_alsa_errors += '\n';
}

// A configuration tree loaded from text, private to the test.
class LocalConfig {
 public:
  explicit LocalConfig(const std::string& text) {
    snd_config_top(&top_);
    snd_input_t* in = nullptr;
    snd_input_buffer_open(&in, text.data(), static_cast<ssize_t>(text.size()));
    load_error_ = snd_config_load(top_, in);
    snd_input_close(in);
  }
  ~LocalConfig() {
    if (top_ != nullptr) snd_config_delete(top_);
  }
  LocalConfig(const LocalConfig&) = delete;
  LocalConfig& operator=(const LocalConfig&) = delete;
  int load_error() const { return load_error_; }
  int open(snd_pcm_t** pcm, snd_pcm_stream_t stream, const char* name = "xrunlab_vcard") const {
    return snd_pcm_open_lconf(pcm, name, stream, 0, top_);
  }

 private:
  snd_config_t* top_ = nullptr;
  int load_error_ = 0;
};

VcardSpec spec_for(const std::string& shm_name) {
  VcardSpec s;
  s.rate = kRate;
  s.frames = kFrames;
  s.playback_channels = kPlayCh;
  s.capture_channels = kCapCh;
  s.clock_channel = kClock;
  s.shm_name = shm_name;
  s.plugin_path = XRUNLAB_VCARD_PLUGIN;
  return s;
}

float* sample_ptr(const snd_pcm_channel_area_t& a, snd_pcm_uframes_t frame) {
  return reinterpret_cast<float*>(static_cast<char*>(a.addr) + (a.first + a.step * frame) / 8);
}

// hw and sw parameters the way the tests (and jackd) use them.
int configure(snd_pcm_t* pcm, snd_pcm_access_t access, unsigned channels, unsigned periods,
              snd_pcm_uframes_t avail_min) {
  snd_pcm_hw_params_t* hw = nullptr;
  snd_pcm_hw_params_alloca(&hw);
  int err = snd_pcm_hw_params_any(pcm, hw);
  if (err >= 0) err = snd_pcm_hw_params_set_access(pcm, hw, access);
  if (err >= 0) err = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE);
  if (err >= 0) err = snd_pcm_hw_params_set_channels(pcm, hw, channels);
  if (err >= 0) err = snd_pcm_hw_params_set_rate(pcm, hw, kRate, 0);
  if (err >= 0) err = snd_pcm_hw_params_set_period_size(pcm, hw, kFrames, 0);
  if (err >= 0) err = snd_pcm_hw_params_set_periods(pcm, hw, periods, 0);
  if (err >= 0) err = snd_pcm_hw_params(pcm, hw);
  if (err < 0) return err;
  snd_pcm_sw_params_t* sw = nullptr;
  snd_pcm_sw_params_alloca(&sw);
  snd_pcm_uframes_t boundary = 0;
  err = snd_pcm_sw_params_current(pcm, sw);
  if (err >= 0) err = snd_pcm_sw_params_get_boundary(sw, &boundary);
  if (err >= 0) err = snd_pcm_sw_params_set_avail_min(pcm, sw, avail_min);
  if (err >= 0) err = snd_pcm_sw_params_set_start_threshold(pcm, sw, boundary);  // start by hand
  if (err >= 0) err = snd_pcm_sw_params_set_stop_threshold(pcm, sw, kFrames * periods);
  if (err >= 0) err = snd_pcm_sw_params(pcm, sw);
  return err;
}

// Fills the whole playback buffer with silence (as jackd does before starting).
void fill_playback(snd_pcm_t* play, snd_pcm_uframes_t frames) {
  ASSERT_EQ(snd_pcm_avail_update(play), static_cast<snd_pcm_sframes_t>(frames));
  const snd_pcm_channel_area_t* areas = nullptr;
  snd_pcm_uframes_t offset = 0, n = frames;
  ASSERT_EQ(snd_pcm_mmap_begin(play, &areas, &offset, &n), 0);
  ASSERT_EQ(n, frames);
  for (unsigned c = 0; c < kPlayCh; ++c) {
    for (snd_pcm_uframes_t f = 0; f < n; ++f) *sample_ptr(areas[c], offset + f) = 0.0f;
  }
  ASSERT_EQ(snd_pcm_mmap_commit(play, offset, n), static_cast<snd_pcm_sframes_t>(n));
}

struct WaitResult {
  bool timeout = false;
  bool play_err = false, cap_err = false;
};

// jackd's alsa_driver_wait: poll both streams' descriptors (asked anew before every poll) until
// both are ready or one reports an error.
WaitResult wait_like_jackd(snd_pcm_t* play, snd_pcm_t* cap, int timeout_ms = 100) {
  WaitResult res;
  bool need_p = play != nullptr, need_c = cap != nullptr;
  while (need_p || need_c) {
    pollfd pfd[4] = {};
    int np = 0, nc = 0;
    if (need_p) np = snd_pcm_poll_descriptors(play, &pfd[0], 2);
    if (need_c) nc = snd_pcm_poll_descriptors(cap, &pfd[np], 2);
    for (int i = 0; i < np + nc; ++i) pfd[i].events |= POLLERR;
    if (::poll(pfd, static_cast<nfds_t>(np + nc), timeout_ms) <= 0) {
      res.timeout = true;
      return res;
    }
    unsigned short rev = 0;
    if (need_p) {
      snd_pcm_poll_descriptors_revents(play, &pfd[0], static_cast<unsigned>(np), &rev);
      if (rev & POLLERR) res.play_err = true;
      if (rev & POLLOUT) need_p = false;
    }
    if (need_c) {
      snd_pcm_poll_descriptors_revents(cap, &pfd[np], static_cast<unsigned>(nc), &rev);
      if (rev & POLLERR) res.cap_err = true;
      if (rev & POLLIN) need_c = false;
    }
    if (res.play_err || res.cap_err) return res;
  }
  return res;
}

// Reads one capture period through mmap_begin/commit: its marker, and whether every other sample
// is silent.
void read_capture_period(snd_pcm_t* cap, std::optional<uint64_t>* marker, bool* silent) {
  ASSERT_GE(snd_pcm_avail_update(cap), static_cast<snd_pcm_sframes_t>(kFrames));
  const snd_pcm_channel_area_t* areas = nullptr;
  snd_pcm_uframes_t offset = 0, n = kFrames;
  ASSERT_EQ(snd_pcm_mmap_begin(cap, &areas, &offset, &n), 0);
  ASSERT_EQ(n, kFrames);
  float clock[vcard::kMarkerFrames];
  for (uint32_t f = 0; f < vcard::kMarkerFrames; ++f) {
    clock[f] = *sample_ptr(areas[kClock - 1], offset + f);
  }
  uint64_t m = 0;
  *marker = vcard::read_marker(clock, vcard::kMarkerFrames, &m) ? std::optional<uint64_t>(m)
                                                                : std::nullopt;
  *silent = true;
  for (unsigned c = 0; c < kCapCh; ++c) {
    for (snd_pcm_uframes_t f = (c == kClock - 1 ? vcard::kMarkerFrames : 0); f < n; ++f) {
      if (*sample_ptr(areas[c], offset + f) != 0.0f) *silent = false;
    }
  }
  ASSERT_EQ(snd_pcm_mmap_commit(cap, offset, n), static_cast<snd_pcm_sframes_t>(n));
}

void write_playback_period(snd_pcm_t* play) {
  ASSERT_GE(snd_pcm_avail_update(play), static_cast<snd_pcm_sframes_t>(kFrames));
  const snd_pcm_channel_area_t* areas = nullptr;
  snd_pcm_uframes_t offset = 0, n = kFrames;
  ASSERT_EQ(snd_pcm_mmap_begin(play, &areas, &offset, &n), 0);
  ASSERT_EQ(n, kFrames);
  for (unsigned c = 0; c < kPlayCh; ++c) {
    for (snd_pcm_uframes_t f = 0; f < n; ++f) *sample_ptr(areas[c], offset + f) = 0.25f;
  }
  ASSERT_EQ(snd_pcm_mmap_commit(play, offset, n), static_cast<snd_pcm_sframes_t>(n));
}

// SCHED_FIFO at `priority` for the calling thread while it lives, where permitted; restores
// the thread's policy afterwards.
class RealtimeScope {
 public:
  explicit RealtimeScope(int priority) {
    pthread_getschedparam(pthread_self(), &old_policy_, &old_param_);
    sched_param p{};
    p.sched_priority = priority;
    active_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
  }
  RealtimeScope(const RealtimeScope&) = delete;
  RealtimeScope& operator=(const RealtimeScope&) = delete;
  ~RealtimeScope() {
    if (active_) pthread_setschedparam(pthread_self(), old_policy_, &old_param_);
  }

 private:
  int old_policy_ = SCHED_OTHER;
  sched_param old_param_{};
  bool active_ = false;
};

// A duplex card opened through alsa-lib on a fresh shm object.
class VcardPcm : public ::testing::Test {
 protected:
  void SetUp() override {
    shm_ = VcardShm::create(unique_shm_name(), kRate, kFrames);
    config_ = std::make_unique<LocalConfig>(alsa_config_text(spec_for(shm_.name())));
    ASSERT_EQ(config_->load_error(), 0);
  }
  void TearDown() override {
    if (play_ != nullptr) snd_pcm_close(play_);
    if (cap_ != nullptr) snd_pcm_close(cap_);
    play_ = cap_ = nullptr;
    config_.reset();
  }

  void open_duplex(snd_pcm_access_t access) {
    ASSERT_EQ(config_->open(&play_, SND_PCM_STREAM_PLAYBACK), 0) << g_alsa_errors;
    ASSERT_EQ(config_->open(&cap_, SND_PCM_STREAM_CAPTURE), 0) << g_alsa_errors;
    ASSERT_EQ(configure(play_, access, kPlayCh, 2, kFrames), 0);
    ASSERT_EQ(configure(cap_, access, kCapCh, 2, kFrames), 0);
  }

  // prepare, fill, start both on the same boundary.
  void start_duplex() {
    ASSERT_EQ(snd_pcm_prepare(play_), 0);
    ASSERT_EQ(snd_pcm_prepare(cap_), 0);
    fill_playback(play_, 2 * kFrames);
    align_to_grid();
    ASSERT_EQ(snd_pcm_start(play_), 0);
    ASSERT_EQ(snd_pcm_start(cap_), 0);
  }

  // `periods` cycles the way jackd runs them; returns the capture markers.
  std::vector<uint64_t> run_cycles(int periods) {
    std::vector<uint64_t> markers;
    for (int k = 0; k < periods; ++k) {
      const WaitResult w = wait_like_jackd(play_, cap_);
      EXPECT_FALSE(w.timeout) << "cycle " << k;
      EXPECT_FALSE(w.play_err || w.cap_err) << "cycle " << k;
      if (w.timeout || w.play_err || w.cap_err) break;
      std::optional<uint64_t> marker;
      bool silent = false;
      read_capture_period(cap_, &marker, &silent);
      EXPECT_TRUE(marker.has_value()) << "cycle " << k;
      EXPECT_TRUE(silent) << "cycle " << k;
      if (marker) markers.push_back(*marker);
      write_playback_period(play_);
    }
    return markers;
  }

  const vcard::StreamRecord& rec(int stream) const { return shm_.shm()->stream[stream]; }

  VcardShm shm_;
  std::unique_ptr<LocalConfig> config_;
  snd_pcm_t* play_ = nullptr;
  snd_pcm_t* cap_ = nullptr;
  // The test thread drives the card the way jackd does: at jackd's realtime priority (where
  // that is permitted: root or an rtprio limit), so that other work on the machine does not
  // make it miss a period of the 2-period buffer, which would be an xrun these tests do not
  // expect. Without the permission it runs as it is.
  RealtimeScope realtime_{70};
};

void expect_consecutive(const std::vector<uint64_t>& markers) {
  for (size_t k = 1; k < markers.size(); ++k) {
    EXPECT_EQ(markers[k], markers[0] + k) << "period " << k;
  }
}

TEST_F(VcardPcm, DuplexRunsFiftyPeriodsOnTheGrid) {
  open_duplex(SND_PCM_ACCESS_MMAP_INTERLEAVED);
  // ioplug PCMs cannot be linked: jackd prepares and starts the two streams one by one.
  EXPECT_EQ(snd_pcm_link(play_, cap_), -ENOSYS);
  start_duplex();
  const std::vector<uint64_t> markers = run_cycles(50);
  ASSERT_EQ(markers.size(), 50u);
  expect_consecutive(markers);

  // Every period's boundary has one wake slot per stream, on the same instant.
  const uint64_t first = markers.front(), last = markers.back();
  int64_t max_gap_ns = 0, max_latency_ns = 0;
  for (uint64_t m = first; m <= last; ++m) {
    const vcard::WakeSlot& c = rec(kCapture).wake[m % vcard::kWakeSlots];
    const vcard::WakeSlot& p = rec(kPlayback).wake[m % vcard::kWakeSlots];
    ASSERT_EQ(c.seq.load(), m + 1) << m;
    ASSERT_EQ(p.seq.load(), m + 1) << m;
    EXPECT_EQ(c.ideal_ns, static_cast<int64_t>(vcard::boundary_ns(m, kRate, kFrames)));
    EXPECT_EQ(p.ideal_ns, c.ideal_ns);
    EXPECT_GE(c.wake_ns, c.ideal_ns);
    EXPECT_GE(p.wake_ns, p.ideal_ns);
    max_gap_ns = std::max(max_gap_ns, std::abs(c.wake_ns - p.wake_ns));
    max_latency_ns = std::max(max_latency_ns, c.wake_ns - c.ideal_ns);
  }
  EXPECT_LT(max_gap_ns, 1000000) << "the streams woke apart";
  // The anchor boundary itself (first - 1) is not a wake.
  EXPECT_NE(rec(kCapture).wake[(first - 1) % vcard::kWakeSlots].seq.load(), first);
  EXPECT_EQ(rec(kCapture).xruns.load(), 0u);
  EXPECT_EQ(rec(kPlayback).xruns.load(), 0u);
  EXPECT_EQ(rec(kCapture).starts.load(), 1u);
  EXPECT_EQ(rec(kCapture).open.load(), 1u);
  EXPECT_EQ(rec(kCapture).channels, kCapCh);
  EXPECT_EQ(rec(kPlayback).channels, kPlayCh);
  EXPECT_EQ(rec(kCapture).period_frames, kFrames);
  EXPECT_EQ(rec(kCapture).buffer_frames, 2 * kFrames);

  VcardReader reader(shm_.shm());
  reader.poll();
  EXPECT_EQ(reader.stream(), kCapture);
  EXPECT_EQ(reader.missed(), 0u);
  EXPECT_GE(reader.wakes(), 50u);
  std::cout << "[ info ] 50 periods: wakes " << reader.wakes() << ", timer arms (capture) "
            << rec(kCapture).timer_arms.load() << ", max wake latency " << max_latency_ns / 1000
            << " us, max playback/capture wake gap " << max_gap_ns / 1000 << " us\n";

  snd_pcm_close(cap_);
  cap_ = nullptr;
  EXPECT_EQ(rec(kCapture).open.load(), 0u);
}

std::string replace(std::string text, const std::string& from, const std::string& to);

// Asks both streams for their poll descriptor (as jackd does before every poll); returns the
// descriptors and how many timerfd_settime calls that took (both streams' records).
struct Descriptors {
  int play_fd = -1, cap_fd = -1;
  uint64_t arms = 0;
};

TEST_F(VcardPcm, SharedTimerGivesBothStreamsOneDescriptorArmedOncePerRound) {
  open_duplex(SND_PCM_ACCESS_MMAP_INTERLEAVED);
  start_duplex();
  ASSERT_EQ(run_cycles(3).size(), 3u);
  // Both streams were just served: each states its next boundary, the timer is armed once.
  auto ask = [&] {
    Descriptors d;
    const uint64_t before = rec(kPlayback).timer_arms.load() + rec(kCapture).timer_arms.load();
    pollfd pfd[2] = {};
    EXPECT_EQ(snd_pcm_poll_descriptors(play_, &pfd[0], 1), 1);
    EXPECT_EQ(snd_pcm_poll_descriptors(cap_, &pfd[1], 1), 1);
    d.arms = rec(kPlayback).timer_arms.load() + rec(kCapture).timer_arms.load() - before;
    d.play_fd = pfd[0].fd;
    d.cap_fd = pfd[1].fd;
    return d;
  };
  const Descriptors first = ask();
  EXPECT_EQ(first.play_fd, first.cap_fd) << "one timer per card";
  EXPECT_EQ(first.arms, 1u) << "armed once for both streams";
  // Asked again before the poll: the same deadline, no new arming.
  EXPECT_EQ(ask().arms, 0u);
  // The shared descriptor still wakes both streams on every boundary.
  const std::vector<uint64_t> markers = run_cycles(20);
  ASSERT_EQ(markers.size(), 20u);
  expect_consecutive(markers);
  // Both streams' wakes of a boundary are the same poll's return: the round's first callback.
  uint64_t same = 0;
  for (const uint64_t m : markers) {
    if (rec(kCapture).wake[m % vcard::kWakeSlots].wake_ns.load() ==
        rec(kPlayback).wake[m % vcard::kWakeSlots].wake_ns.load()) {
      ++same;
    }
  }
  std::cout << "[ info ] boundaries with one wake time for both streams: " << same << " of "
            << markers.size() << "\n";
  EXPECT_GT(same, 0u);
}

TEST_F(VcardPcm, SharedTimerWaitsForCaptureAloneAfterBothWerePolled) {
  open_duplex(SND_PCM_ACCESS_MMAP_INTERLEAVED);
  start_duplex();
  // Both polled and served, as jackd does; then capture alone is waited for (playback's wish
  // of the last round, now in the past, must not keep the shared timer readable).
  for (int attempt = 0; attempt < 10; ++attempt) {
    ASSERT_EQ(run_cycles(1).size(), 1u);
    const int64_t t0 = mono_ns();
    const snd_pcm_sframes_t avail = snd_pcm_avail_update(cap_);
    ASSERT_GE(avail, 0);
    if (avail >= static_cast<snd_pcm_sframes_t>(kFrames)) continue;  // late: a boundary passed
    const uint64_t next = vcard::boundary_index(static_cast<uint64_t>(t0), kRate, kFrames) + 1;
    pollfd pfd{};
    ASSERT_EQ(snd_pcm_poll_descriptors(cap_, &pfd, 1), 1);
    ASSERT_EQ(::poll(&pfd, 1, 100), 1);
    const int64_t t1 = mono_ns();
    EXPECT_GE(t1, static_cast<int64_t>(vcard::boundary_ns(next, kRate, kFrames)))
        << "the capture poll returned before its boundary";
    unsigned short rev = 0;
    ASSERT_EQ(snd_pcm_poll_descriptors_revents(cap_, &pfd, 1, &rev), 0);
    EXPECT_TRUE(rev & POLLIN);
    return;
  }
  FAIL() << "no cycle ended before the next boundary in 10 attempts";
}

TEST_F(VcardPcm, WithoutSharedTimerEachStreamHasItsOwnTimer) {
  config_ = std::make_unique<LocalConfig>(
      replace(alsa_config_text(spec_for(shm_.name())), "  shared_timer 1\n", ""));
  ASSERT_EQ(config_->load_error(), 0);
  open_duplex(SND_PCM_ACCESS_MMAP_INTERLEAVED);
  start_duplex();
  ASSERT_EQ(run_cycles(3).size(), 3u);
  const uint64_t before = rec(kPlayback).timer_arms.load() + rec(kCapture).timer_arms.load();
  pollfd pfd[2] = {};
  ASSERT_EQ(snd_pcm_poll_descriptors(play_, &pfd[0], 1), 1);
  ASSERT_EQ(snd_pcm_poll_descriptors(cap_, &pfd[1], 1), 1);
  EXPECT_NE(pfd[0].fd, pfd[1].fd);
  EXPECT_EQ(rec(kPlayback).timer_arms.load() + rec(kCapture).timer_arms.load() - before, 2u);
  const std::vector<uint64_t> markers = run_cycles(10);
  ASSERT_EQ(markers.size(), 10u);
  expect_consecutive(markers);
}

TEST_F(VcardPcm, NonInterleavedCaptureAsJackdUsesIt) {
  open_duplex(SND_PCM_ACCESS_MMAP_NONINTERLEAVED);
  start_duplex();
  const std::vector<uint64_t> markers = run_cycles(10);
  ASSERT_EQ(markers.size(), 10u);
  expect_consecutive(markers);
}

TEST_F(VcardPcm, ReadInterleavedInSmallPiecesSplitsMarkersCorrectly) {
  ASSERT_EQ(config_->open(&cap_, SND_PCM_STREAM_CAPTURE), 0) << g_alsa_errors;
  ASSERT_EQ(configure(cap_, SND_PCM_ACCESS_RW_INTERLEAVED, kCapCh, 4, 3), 0);
  ASSERT_EQ(snd_pcm_prepare(cap_), 0);
  ASSERT_EQ(snd_pcm_start(cap_), 0);
  // 3 frames per read: the 4 marker frames of every period span two transfers.
  std::vector<float> all;
  std::vector<float> buf(3 * kCapCh);
  const size_t total = 4 * kFrames;
  while (all.size() < total * kCapCh) {
    const snd_pcm_sframes_t n = snd_pcm_readi(cap_, buf.data(), 3);
    ASSERT_GT(n, 0) << snd_strerror(static_cast<int>(n));
    all.insert(all.end(), buf.begin(), buf.begin() + n * kCapCh);
  }
  std::vector<float> clock;
  for (size_t f = 0; f < total; ++f) clock.push_back(all[f * kCapCh + kClock - 1]);
  std::vector<uint64_t> markers;
  for (size_t p = 0; p < 4; ++p) {
    uint64_t m = 0;
    ASSERT_TRUE(vcard::read_marker(&clock[p * kFrames], kFrames, &m)) << "period " << p;
    markers.push_back(m);
    for (size_t f = p * kFrames + vcard::kMarkerFrames; f < (p + 1) * kFrames; ++f) {
      ASSERT_EQ(clock[f], 0.0f) << f;
    }
  }
  expect_consecutive(markers);
}

TEST_F(VcardPcm, XrunIsLatchedRecordedOnceAndClearedByPrepare) {
  open_duplex(SND_PCM_ACCESS_MMAP_INTERLEAVED);
  start_duplex();
  const int serviced = 2;
  const std::vector<uint64_t> markers = run_cycles(serviced);
  ASSERT_EQ(markers.size(), static_cast<size_t>(serviced));
  const uint64_t anchor = markers[0] - 1;

  // Stop servicing for 4 periods.
  sleep_until_ns(static_cast<uint64_t>(mono_ns()) + 4 * vcard::boundary_ns(1, kRate, kFrames));

  const WaitResult w = wait_like_jackd(play_, cap_);
  EXPECT_FALSE(w.timeout);
  EXPECT_TRUE(w.play_err);
  EXPECT_TRUE(w.cap_err);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(snd_pcm_avail_update(cap_), -EPIPE) << i;
    EXPECT_EQ(snd_pcm_avail_update(play_), -EPIPE) << i;
  }
  EXPECT_EQ(snd_pcm_state(cap_), SND_PCM_STATE_XRUN);
  EXPECT_EQ(snd_pcm_state(play_), SND_PCM_STATE_XRUN);

  // Exactly one event per stream, at the computed first boundary of the overrun: after
  // `serviced` periods, capture holds `serviced` frames less than the hardware wrote, so the
  // buffer (2 periods) is full at boundary anchor + serviced + 2; playback empties then too.
  const uint64_t expected = anchor + serviced + 2;
  for (const int s : {kCapture, kPlayback}) {
    ASSERT_EQ(rec(s).xruns.load(), 1u) << s;
    const vcard::XrunEvent& e = rec(s).xrun[0];
    EXPECT_EQ(e.boundary, expected) << s;
    EXPECT_EQ(e.ideal_ns, static_cast<int64_t>(vcard::boundary_ns(expected, kRate, kFrames)));
    EXPECT_GE(e.detected_ns, e.ideal_ns);
    EXPECT_GE(e.avail_frames, 2 * static_cast<int64_t>(kFrames));
    std::cout << "[ info ] " << (s == kCapture ? "capture" : "playback") << " xrun at boundary "
              << e.boundary << " detected " << (e.detected_ns - e.ideal_ns) / 1000
              << " us later, avail " << e.avail_frames << "\n";
  }

  // Recovery as jackd does it: prepare both, refill, start; no further xrun.
  start_duplex();
  const std::vector<uint64_t> again = run_cycles(10);
  ASSERT_EQ(again.size(), 10u);
  expect_consecutive(again);
  EXPECT_GT(again[0], markers.back() + 4);
  EXPECT_EQ(rec(kCapture).xruns.load(), 1u);
  EXPECT_EQ(rec(kPlayback).xruns.load(), 1u);
  EXPECT_EQ(rec(kCapture).starts.load(), 2u);
}

// ---- open failures -----------------------------------------------------------------------------

class VcardPcmOpen : public ::testing::Test {
 protected:
  void SetUp() override {
    snd_lib_error_set_handler(capture_alsa_error);
    g_alsa_errors.clear();
    fds_before_ = open_fd_count();
  }
  void TearDown() override { snd_lib_error_set_handler(nullptr); }

  // Opens both streams with `text`; expects failure with `err`, an SNDERR containing `needle`
  // and no descriptor left open.
  void expect_open_fails(const std::string& text, int err, const std::string& needle) {
    LocalConfig conf(text);
    ASSERT_EQ(conf.load_error(), 0) << text;
    for (const snd_pcm_stream_t s : {SND_PCM_STREAM_PLAYBACK, SND_PCM_STREAM_CAPTURE}) {
      g_alsa_errors.clear();
      snd_pcm_t* pcm = nullptr;
      EXPECT_EQ(conf.open(&pcm, s), err) << text;
      EXPECT_EQ(pcm, nullptr);
      EXPECT_NE(g_alsa_errors.find(needle), std::string::npos) << g_alsa_errors;
      if (pcm != nullptr) snd_pcm_close(pcm);
    }
    EXPECT_EQ(open_fd_count(), fds_before_) << "a descriptor leaked";
  }

  int fds_before_ = 0;
};

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST_F(VcardPcmOpen, UnknownFieldMissingFieldAndBadValues) {
  VcardShm shm = VcardShm::create(unique_shm_name(), kRate, kFrames);
  const std::string good = alsa_config_text(spec_for(shm.name()));
  expect_open_fails(replace(good, "  rate 48000\n", "  rate 48000\n  bogus_field 1\n"), -EINVAL,
                    "bogus_field");
  expect_open_fails(replace(good, "  rate 48000\n", ""), -EINVAL, "missing field rate");
  expect_open_fails(replace(good, "  clock_channel 5\n", "  clock_channel 6\n"), -EINVAL,
                    "clock_channel");
  expect_open_fails(replace(good, "  period_frames 256\n", "  period_frames \"x\"\n"), -EINVAL,
                    "period_frames");
  expect_open_fails(replace(good, "  shared_timer 1\n", "  shared_timer 2\n"), -EINVAL,
                    "shared_timer");
}

TEST_F(VcardPcmOpen, MissingOrMismatchedShmObject) {
  const std::string missing = unique_shm_name();
  expect_open_fails(alsa_config_text(spec_for(missing)), -ENOENT, missing);

  VcardShm other_rate = VcardShm::create(unique_shm_name(), 44100, kFrames);
  expect_open_fails(alsa_config_text(spec_for(other_rate.name())), -EINVAL, other_rate.name());
}

// ---- jackd on the card ---------------------------------------------------------------------

std::string line_with(const std::string& log, const std::string& needle) {
  const size_t at = log.find(needle);
  if (at == std::string::npos) return "";
  const size_t start = log.rfind('\n', at);
  const size_t end = log.find('\n', at);
  return log.substr(start == std::string::npos ? 0 : start + 1,
                    end == std::string::npos ? std::string::npos : end - start - 1);
}

class VcardJackd : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/xrunlab-vcardtest-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    // An xrunlab-<pid>-<n> name, so that the engine's registry housekeeping knows it.
    server_ = private_server_name();
  }

  // Leaves nothing behind, also after a failure: jackd (continued if stopped, terminated, killed
  // after 5 s), the temporary files, the card's shm object, and whatever jackd left in /dev/shm
  // for this private server name if it did not exit cleanly.
  void TearDown() override {
    if (jackd_.running()) jackd_.signal(SIGCONT);
    jackd_.stop(std::chrono::milliseconds(5000));
    for (const char* f : {"/asound.conf", "/jackd.log"}) std::remove((dir_ + f).c_str());
    ::rmdir(dir_.c_str());
    shm_ = VcardShm();  // unmap and unlink
    reclaim_stale_xrunlab_servers("/dev/shm", server_);
    if (DIR* d = ::opendir("/dev/shm")) {
      std::vector<std::string> leftovers;
      while (dirent* e = ::readdir(d)) {
        if (std::string(e->d_name).find(server_) != std::string::npos) {
          leftovers.push_back(e->d_name);
        }
      }
      ::closedir(d);
      for (const std::string& n : leftovers) ::unlink(("/dev/shm/" + n).c_str());
    }
  }

  std::string dir_, server_;
  VcardShm shm_;
  Child jackd_;
};

TEST_F(VcardJackd, JackdRunsItsAlsaDriverOnTheCard) {
  const std::optional<std::string> jackd = find_program("jackd");
  if (!jackd) GTEST_SKIP() << "jackd not installed";
  shm_ = VcardShm::create(vcard_shm_name(server_), kRate, kFrames);
  const std::string conf = dir_ + "/asound.conf";
  const std::string log = dir_ + "/jackd.log";
  std::ofstream(conf) << alsa_config_text(spec_for(shm_.name()));

  SpawnSpec spawn;
  spawn.argv = {*jackd,
                "-n",
                server_,
                "-R",
                "-P",
                "70",
                "-v",
                "-d",
                "alsa",
                "-d",
                "xrunlab_vcard",
                "-r",
                std::to_string(kRate),
                "-p",
                std::to_string(kFrames),
                "-n",
                "2",
                "-i",
                std::to_string(kCapCh),
                "-o",
                std::to_string(kPlayCh)};
  spawn.output_path = log;
  spawn.env = {{"ALSA_CONFIG_PATH", conf}, {"JACK_NO_AUDIO_RESERVATION", "1"}};
  jackd_ = Child::spawn(spawn);

  std::this_thread::sleep_for(std::chrono::seconds(3));
  ASSERT_TRUE(jackd_.running()) << "jackd exited: " << jackd_.describe_exit() << "\n"
                                << testing_support::read_text_or_empty(log);
  const std::string text = testing_support::read_text_or_empty(log);
  const std::string driver_line = line_with(text, "creating alsa driver");
  EXPECT_NE(driver_line.find("xrunlab_vcard"), std::string::npos) << text;
  std::cout << "[ info ] jackd: " << driver_line << "\n";
  for (const char* needle :
       {"final selected sample format for capture", "final selected sample format for playback",
        "periods for capture", "periods for playback", "control open", "configuring for"}) {
    const std::string line = line_with(text, needle);
    if (!line.empty()) std::cout << "[ info ] jackd: " << line << "\n";
  }

  // jackd woken by the card once per period boundary at most (48000 / 256 = 187.5 per second:
  // a jackd that polled instead would be woken far more often, and burn its core), and
  // sleeping between the wake-ups.
  const vcard::StreamRecord& cap = shm_.shm()->stream[kCapture];
  const vcard::StreamRecord& play = shm_.shm()->stream[kPlayback];
  VcardReader reader(shm_.shm());
  reader.poll();
  const uint64_t w0 = cap.wakes_written.load();
  const int64_t t0 = mono_ns();
  const std::optional<uint64_t> c0 = process_cpu_ticks(jackd_.pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const uint64_t w1 = cap.wakes_written.load();
  const int64_t t1 = mono_ns();
  const std::optional<uint64_t> c1 = process_cpu_ticks(jackd_.pid());
  reader.poll();
  ASSERT_TRUE(c0 && c1);
  const double seconds = static_cast<double>(t1 - t0) / 1e9;
  const double rate = static_cast<double>(w1 - w0) / seconds;
  const double cpu_pct =
      100.0 * static_cast<double>(*c1 - *c0) / static_cast<double>(sysconf(_SC_CLK_TCK)) / seconds;
  EXPECT_GT(w1, w0) << "jackd was not woken";
  // Boundaries in the interval, plus one for each end: the grid allows no more wake-ups.
  EXPECT_LE(static_cast<double>(w1 - w0), seconds * 187.5 + 2) << "woken more than once a period";
  EXPECT_LT(cpu_pct, 20.0) << "jackd spins";
  EXPECT_EQ(reader.stream(), kCapture);
  EXPECT_EQ(reader.missed(), 0u);
  // Each xrun the card latched was recovered by exactly one new start (JACK's restart of its
  // driver): whatever this machine's timing added, the card's books balance.
  EXPECT_EQ(cap.starts.load(), 1 + cap.xruns.load()) << testing_support::read_text_or_empty(log);
  const Histogram& h = reader.wake_latency_us();
  std::cout << "[ info ] wakes/s " << rate << ", jackd CPU " << cpu_pct << " %, wakes read "
            << reader.wakes() << ", capture xruns " << cap.xruns.load() << ", wake latency p50 "
            << (h.percentile(50) ? h.percentile(50)->value_us : -1) << " us, p99 "
            << (h.percentile(99) ? h.percentile(99)->value_us : -1) << " us, max "
            << h.max().value_or(-1) << " us; timer arms: capture " << cap.timer_arms.load()
            << ", playback " << play.timer_arms.load() << "\n";

  // A stall of jackd: the card reports an xrun, jackd recovers.
  const uint64_t play_xruns_before = play.xruns.load();
  const uint64_t cap_xruns_before = cap.xruns.load();
  ASSERT_EQ(::kill(jackd_.pid(), SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(::kill(jackd_.pid(), SIGCONT), 0);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_TRUE(jackd_.running()) << testing_support::read_text_or_empty(log);
  reader.poll();
  // 100 ms stopped against a 10.7 ms buffer: at least this one xrun, and one restart per xrun.
  EXPECT_GE(cap.xruns.load(), cap_xruns_before + 1);
  EXPECT_GE(play.xruns.load(), play_xruns_before);
  EXPECT_EQ(cap.starts.load(), 1 + cap.xruns.load());
  const std::string after = testing_support::read_text_or_empty(log);
  const std::string xrun_line = line_with(after, "xrun of at least");
  EXPECT_FALSE(xrun_line.empty()) << after;
  for (const int s : {kCapture, kPlayback}) {
    for (const vcard::XrunEvent& e : reader.xrun_events(s)) {
      std::cout << "[ info ] " << (s == kCapture ? "capture" : "playback") << " xrun: boundary "
                << e.boundary << ", detected " << (e.detected_ns - e.ideal_ns) / 1000
                << " us after it, avail " << e.avail_frames << "\n";
    }
  }
  std::cout << "[ info ] jackd: " << xrun_line << "\n";
  // jackd resumed: the card keeps waking it (progress, given up to 10 s).
  const uint64_t w2 = cap.wakes_written.load();
  const auto resume_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cap.wakes_written.load() < w2 + 20 && std::chrono::steady_clock::now() < resume_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(cap.wakes_written.load(), w2 + 20) << "jackd did not resume";
  const VcardCardRecord card = reader.record();
  std::cout << "[ info ] reader: " << card.wakes << " wake-ups read, " << card.missed
            << " missed\n";

  jackd_.signal(SIGTERM);
  EXPECT_TRUE(jackd_.wait_for(std::chrono::milliseconds(5000)));
  const std::string final_log = testing_support::read_text_or_empty(log);
  for (const char* needle : {"WARNING", "Warning", "error", "ERROR"}) {
    size_t at = 0;
    while ((at = final_log.find(needle, at)) != std::string::npos) {
      std::cout << "[ info ] jackd log: " << line_with(final_log.substr(at), needle) << "\n";
      at = final_log.find('\n', at);
      if (at == std::string::npos) break;
    }
  }
}

}  // namespace
}  // namespace xrunlab

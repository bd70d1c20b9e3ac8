// SPDX-License-Identifier: GPL-2.0-or-later
// The real process callback (clients/rt/process_callback.hpp) with a fake JACK and a fake clock
// behind its seam: no server. Every expectation is exact by construction: the fake clock advances
// by one microsecond per read, so even durations are known.
#include "clients/rt/process_callback.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "clients/rt/thread_tid.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000;

// A port: its buffer, which the fake jack_port_get_buffer hands out.
struct FakePort {
  explicit FakePort(size_t frames) : buf(frames, 0.0f) {}
  std::vector<float> buf;
  jack_port_t* handle() { return reinterpret_cast<jack_port_t*>(this); }
};

// What the fake JACK answers. The seam's functions take no state of their own, so they reach
// the current fake through g_fake (set by the Harness; only the callback's thread calls them).
struct FakeJack {
  uint64_t now_us = 1000;  // jack_get_time returns now_us, then adds 1
  uint64_t time_reads = 0;
  // From this read on (0 = never), jack_get_time returns the largest time: what ends an injected
  // spin, which a real clock never does.
  uint64_t max_from_read = 0;
  jack_nframes_t frames_since_start = 17;
  jack_nframes_t last_frame_time = 4096;  // advanced by the test between cycles if it likes
  int cycle_times_rc = 0;
  jack_time_t cycle_start_us = 990;
  timespec mono{5, 123};
  int mono_reads = 0;
  clockid_t clock_asked = -1;
  jack_nframes_t buffer_frames_asked = 0;
  const jack_client_t* client_seen = nullptr;
};
FakeJack* g_fake = nullptr;

jack_time_t fake_get_time() {
  ++g_fake->time_reads;
  if (g_fake->max_from_read != 0 && g_fake->time_reads >= g_fake->max_from_read) {
    return std::numeric_limits<jack_time_t>::max();
  }
  return g_fake->now_us++;
}
jack_nframes_t fake_frames_since_cycle_start(const jack_client_t* c) {
  g_fake->client_seen = c;
  return g_fake->frames_since_start;
}
jack_nframes_t fake_last_frame_time(const jack_client_t*) {
  return g_fake->last_frame_time;
}
int fake_get_cycle_times(const jack_client_t*, jack_nframes_t* frames, jack_time_t* usecs,
                         jack_time_t* next, float* period) {
  *frames = g_fake->last_frame_time;
  *usecs = g_fake->cycle_start_us;
  *next = g_fake->cycle_start_us + 1333;
  *period = 1333.0f;
  return g_fake->cycle_times_rc;
}
void* fake_port_get_buffer(jack_port_t* port, jack_nframes_t nframes) {
  g_fake->buffer_frames_asked = nframes;
  return reinterpret_cast<FakePort*>(port)->buf.data();
}
int fake_clock_gettime(clockid_t id, timespec* ts) {
  ++g_fake->mono_reads;
  g_fake->clock_asked = id;
  *ts = g_fake->mono;
  return 0;
}

JackSeam fake_seam() {
  JackSeam s;
  s.get_time = fake_get_time;
  s.frames_since_cycle_start = fake_frames_since_cycle_start;
  s.last_frame_time = fake_last_frame_time;
  s.get_cycle_times = fake_get_cycle_times;
  s.port_get_buffer = fake_port_get_buffer;
  s.clock_gettime = fake_clock_gettime;
  return s;
}

struct Options {
  int ports = 2;
  int stages = 0;
  bool clock_port = false;
  std::optional<InjectSpec> inject;
  bool check_port = false, source = false, sink = false;
};

// A callback context wired to fake ports, as the client's set-up wires it to JACK's.
class Harness {
 public:
  static constexpr size_t kMaxFrames = 1024;

  explicit Harness(const Options& o) : clock_(kMaxFrames) {
    g_fake = &jack_;
    RtConfig& c = ctx_.config;
    c.jack = fake_seam();
    c.client = reinterpret_cast<jack_client_t*>(&jack_);
    for (int p = 0; p < o.ports; ++p) {
      ins_.push_back(std::make_unique<FakePort>(kMaxFrames));
      outs_.push_back(std::make_unique<FakePort>(kMaxFrames));
      c.in_ports.push_back(ins_.back()->handle());
      c.out_ports.push_back(outs_.back()->handle());
      // A different, known input on every port.
      for (size_t i = 0; i < kMaxFrames; ++i) {
        ins_.back()->buf[i] = 0.25f * std::sin(0.01f * static_cast<float>((p + 1) * (i + 1)));
      }
    }
    if (o.clock_port) c.clock_port = clock_.handle();
    c.bank = std::make_unique<BiquadBank>(o.ports, o.stages, kRate);
    c.ring = std::make_unique<CycleRing>();
    c.inject = o.inject;
    c.check_port = o.check_port;
    if (o.source) c.signal = std::make_unique<const TestSignal>(kRate);
    if (o.sink) c.audio = std::make_unique<AudioRing>();
    ctx_.state = make_rt_state(c, static_cast<uint32_t>(kMaxFrames));
  }
  ~Harness() { g_fake = nullptr; }

  void cycle(jack_nframes_t nframes) {
    process_cycle_rt(ctx_.config, ctx_.state, ctx_.shared, nframes);
  }
  std::vector<CycleRecord> records() {
    std::vector<CycleRecord> v;
    ctx_.config.ring->drain([&](const CycleRecord& r) { v.push_back(r); });
    return v;
  }
  std::vector<AudioChunk> chunks() {
    std::vector<AudioChunk> v;
    ctx_.config.audio->drain([&](const AudioChunk& c) { v.push_back(c); });
    return v;
  }

  FakeJack& jack() { return jack_; }
  RtContext& ctx() { return ctx_; }
  std::vector<float>& in(int p) { return ins_[static_cast<size_t>(p)]->buf; }
  std::vector<float>& out(int p) { return outs_[static_cast<size_t>(p)]->buf; }
  std::vector<float>& clock() { return clock_.buf; }

 private:
  FakeJack jack_;
  std::vector<std::unique_ptr<FakePort>> ins_, outs_;
  FakePort clock_;
  RtContext ctx_;
};

bool same_bits(const float* a, const float* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

TEST(Process, OneCycleRecordsExactlyWhatJackAndTheClocksSaid) {
  Options o;
  o.clock_port = true;
  Harness h(o);
  vcard::write_marker(h.clock().data(), 1, 77);
  record_thread_tid();  // as libjack's thread does when it starts (create_jack_thread)
  h.cycle(64);
  const std::vector<CycleRecord> r = h.records();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].t_entry_us, 1000u);  // the first clock read
  EXPECT_EQ(r[0].t_exit_us, 1001u);   // the second and last
  EXPECT_EQ(h.jack().time_reads, 2u);
  EXPECT_EQ(r[0].t_entry_mono_ns, 5000000123u);
  EXPECT_EQ(h.jack().mono_reads, 1);
  EXPECT_EQ(h.jack().clock_asked, CLOCK_MONOTONIC);
  EXPECT_EQ(r[0].card_boundary, 77u);
  EXPECT_EQ(r[0].flags, CycleRecord::kHasBoundary);
  EXPECT_EQ(r[0].frames_since_start, 17u);
  EXPECT_EQ(r[0].frame_time, 4096u);
  EXPECT_EQ(r[0].nframes, 64u);
  EXPECT_EQ(r[0].dll_period_start_us, 990u);
  EXPECT_EQ(h.jack().buffer_frames_asked, 64u);
  EXPECT_EQ(h.jack().client_seen, h.ctx().config.client);
  EXPECT_EQ(h.ctx().state.cycle, 1u);
  EXPECT_EQ(h.ctx().shared.rt_tid.load(), static_cast<pid_t>(::gettid()));
  EXPECT_EQ(h.ctx().shared.ring_dropped.load(), 0u);
  // Zero DSP stages: every output is its input.
  for (int p = 0; p < 2; ++p) EXPECT_TRUE(same_bits(h.out(p).data(), h.in(p).data(), 64)) << p;
}

TEST(Process, WithoutClockPortOrCycleTimesThoseFieldsStayEmpty) {
  Harness h(Options{});
  h.jack().cycle_times_rc = -1;  // jack_get_cycle_times failed
  h.cycle(32);
  const std::vector<CycleRecord> r = h.records();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(h.jack().mono_reads, 0);
  EXPECT_EQ(r[0].t_entry_mono_ns, 0u);
  EXPECT_EQ(r[0].card_boundary, 0u);
  EXPECT_EQ(r[0].flags, 0u);
  EXPECT_EQ(r[0].dll_period_start_us, 0u);
  EXPECT_EQ(r[0].nframes, 32u);
}

TEST(Process, ClockPortWithoutMarkerHasNoBoundary) {
  Options o;
  o.clock_port = true;
  Harness h(o);  // the clock port's buffer is silence
  h.cycle(64);
  const std::vector<CycleRecord> r = h.records();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].t_entry_mono_ns, 5000000123u);  // the clock is still read
  EXPECT_EQ(r[0].flags, 0u);
}

TEST(Process, PublishesTheThreadTidOnce) {
  Harness h(Options{});
  pid_t first = -1, second = -1;
  std::thread([&] {  // a thread that never recorded its tid: nothing to publish
    h.cycle(16);
    first = h.ctx().shared.rt_tid.load();
  })
      .join();
  EXPECT_EQ(first, 0);
  pid_t tid = 0;
  std::thread([&] {
    record_thread_tid();
    tid = static_cast<pid_t>(::gettid());
    h.cycle(16);
  }).join();
  EXPECT_EQ(h.ctx().shared.rt_tid.load(), tid);
  std::thread([&] {
    record_thread_tid();
    h.cycle(16);  // published already: kept
    second = h.ctx().shared.rt_tid.load();
  }).join();
  EXPECT_EQ(second, tid);
}

TEST(Process, InjectedOverrunOnExactlyEveryNthCycle) {
  Options o;
  o.inject = InjectSpec{50, 3};
  Harness h(o);
  for (int i = 0; i < 10; ++i) h.cycle(64);
  const std::vector<CycleRecord> r = h.records();
  ASSERT_EQ(r.size(), 10u);
  for (size_t i = 0; i < r.size(); ++i) {
    const bool injected = (i + 1) % 3 == 0;  // cycles 3, 6, 9
    EXPECT_EQ((r[i].flags & CycleRecord::kInjected) != 0, injected) << i;
    // The busy-wait reads the clock until it shows entry + 50 us; the exit read follows.
    EXPECT_EQ(r[i].t_exit_us - r[i].t_entry_us, injected ? 51u : 1u) << i;
  }
}

TEST(Process, InjectedSpinNeverReturnsFromItsCycleWhileTheClockRuns) {
  Options o;
  o.inject = InjectSpec{0, 0, 4};  // spin:4
  Harness h(o);
  for (int i = 0; i < 3; ++i) h.cycle(64);
  // Cycle 4 spins: it reads nothing but the clock, as long as the clock shows a real time. The
  // fake clock shows the largest time from read kReads on, which ends the spin for the test.
  constexpr uint64_t kReads = 200000;
  const uint64_t before = h.jack().time_reads;
  h.jack().max_from_read = before + kReads;
  h.cycle(64);
  EXPECT_GE(h.jack().time_reads - before, kReads);
  h.jack().max_from_read = 0;
  h.cycle(64);  // later cycles, were the spin ever over, are plain ones
  const std::vector<CycleRecord> r = h.records();
  ASSERT_EQ(r.size(), 5u);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ((r[i].flags & CycleRecord::kInjected) != 0, i == 3) << i;
  }
  EXPECT_EQ(r[4].t_exit_us - r[4].t_entry_us, 1u);
}

TEST(Process, CheckPortPassesTheSignalThroughBitExactlyWhileOtherPortsAreProcessed) {
  Options o;
  o.ports = 3;
  o.stages = 6;
  o.check_port = true;
  Harness h(o);
  // The same DSP on copies: what each port's stages make of its input.
  BiquadBank reference(3, 6, kRate);
  constexpr uint32_t kFrames = 128;
  for (int cycle = 0; cycle < 3; ++cycle) {
    for (int p = 0; p < 3; ++p) {  // new input every cycle
      for (uint32_t i = 0; i < kFrames; ++i) {
        h.in(p)[i] = 0.3f * std::sin(0.02f * static_cast<float>((p + 2) * (cycle * kFrames + i)));
      }
    }
    std::vector<std::vector<float>> want(3, std::vector<float>(kFrames));
    const float* in[3] = {h.in(0).data(), h.in(1).data(), h.in(2).data()};
    float* out[3] = {want[0].data(), want[1].data(), want[2].data()};
    reference.process_rt(in, out, kFrames);
    h.cycle(kFrames);
    EXPECT_TRUE(same_bits(h.out(0).data(), h.in(0).data(), kFrames)) << cycle;
    EXPECT_TRUE(same_bits(h.ctx().state.scratch.data(), want[0].data(), kFrames)) << cycle;
    for (int p = 1; p < 3; ++p) {
      EXPECT_TRUE(same_bits(h.out(p).data(), want[static_cast<size_t>(p)].data(), kFrames))
          << cycle << " " << p;
      EXPECT_FALSE(same_bits(h.out(p).data(), h.in(p).data(), kFrames)) << "not processed";
    }
  }
}

TEST(Process, WithTheDspOffEveryPortCopiesItsInputUntilTheDspIsTurnedOn) {
  // The engine's clients start with dsp_on off and get it with the start command.
  Options o;
  o.ports = 2;
  o.stages = 4;
  Harness h(o);
  BiquadBank reference(2, 4, kRate);
  constexpr uint32_t kFrames = 64;
  const auto fill = [&](int cycle) {
    for (int p = 0; p < 2; ++p) {
      for (uint32_t i = 0; i < kFrames; ++i) {
        h.in(p)[i] = 0.25f * std::sin(0.03f * static_cast<float>((p + 1) * (cycle * kFrames + i)));
      }
    }
  };
  h.ctx().shared.dsp_on.store(false);
  for (int cycle = 0; cycle < 2; ++cycle) {
    fill(cycle);
    h.cycle(kFrames);
    for (int p = 0; p < 2; ++p) {
      EXPECT_TRUE(same_bits(h.out(p).data(), h.in(p).data(), kFrames)) << cycle << " " << p;
    }
  }
  EXPECT_EQ(h.ctx().state.cycle, 2u) << "the cycles are still counted and recorded";
  h.ctx().shared.dsp_on.store(true);
  fill(2);
  std::vector<std::vector<float>> want(2, std::vector<float>(kFrames));
  const float* in[2] = {h.in(0).data(), h.in(1).data()};
  float* out[2] = {want[0].data(), want[1].data()};
  reference.process_rt(in, out, kFrames);  // the filters start from rest: nothing ran before
  h.cycle(kFrames);
  for (int p = 0; p < 2; ++p) {
    EXPECT_TRUE(same_bits(h.out(p).data(), want[static_cast<size_t>(p)].data(), kFrames)) << p;
  }
}

TEST(Process, SourcePlaysTheTestSignalAcrossCycles) {
  Options o;
  o.check_port = true;
  o.source = true;
  Harness h(o);
  const TestSignal signal(kRate);
  std::vector<float> want(100);
  for (uint64_t cycle = 0; cycle < 3; ++cycle) {
    h.cycle(100);
    signal.fill_rt(want.data(), cycle * 100, 100);
    EXPECT_TRUE(same_bits(h.out(0).data(), want.data(), 100)) << cycle;
    EXPECT_TRUE(same_bits(h.out(1).data(), h.in(1).data(), 100)) << cycle;  // zero stages
  }
  EXPECT_EQ(h.ctx().state.signal_frame, 300u);
}

TEST(Process, SinkPushesChunksCoveringExactlyNframes) {
  Options o;
  o.check_port = true;
  o.sink = true;
  Harness h(o);
  for (jack_nframes_t nframes : {150u, 64u, 1u, 1024u}) {
    h.jack().last_frame_time += nframes;
    h.cycle(nframes);
    const std::vector<CycleRecord> r = h.records();
    ASSERT_EQ(r.size(), 1u);
    const std::vector<AudioChunk> chunks = h.chunks();
    ASSERT_EQ(chunks.size(), (nframes + AudioChunk::kChunk - 1) / AudioChunk::kChunk) << nframes;
    std::vector<float> got;
    for (const AudioChunk& c : chunks) {
      EXPECT_EQ(c.t_entry_us, r[0].t_entry_us);
      EXPECT_EQ(c.frame_time, r[0].frame_time);
      EXPECT_GE(c.count, 1u);
      EXPECT_LE(c.count, AudioChunk::kChunk);
      got.insert(got.end(), c.s, c.s + c.count);
    }
    ASSERT_EQ(got.size(), nframes);
    EXPECT_TRUE(same_bits(got.data(), h.in(0).data(), nframes)) << nframes;
    EXPECT_TRUE(same_bits(h.out(0).data(), h.in(0).data(), nframes)) << nframes;  // passed on
  }
  EXPECT_EQ(h.ctx().shared.audio_dropped.load(), 0u);
}

TEST(Process, FullRingCountsDropsInsteadOfBlocking) {
  Harness h(Options{});
  constexpr size_t kCapacity = CycleRing::capacity();
  for (size_t i = 0; i < kCapacity + 5; ++i) h.cycle(16);
  EXPECT_EQ(h.ctx().shared.ring_dropped.load(), 5u);
  EXPECT_EQ(h.ctx().state.cycle, kCapacity + 5);
  const std::vector<CycleRecord> r = h.records();
  ASSERT_EQ(r.size(), kCapacity);  // the first ones; the last five were refused
  EXPECT_EQ(r.front().t_entry_us, 1000u);
  EXPECT_EQ(r.back().t_entry_us, 1000u + 2 * (kCapacity - 1));
  h.cycle(16);  // room again
  EXPECT_EQ(h.records().size(), 1u);
  EXPECT_EQ(h.ctx().shared.ring_dropped.load(), 5u);
}

TEST(Process, FullAudioRingCountsDroppedChunks) {
  Options o;
  o.check_port = true;
  o.sink = true;
  Harness h(o);
  // 640 frames = 10 chunks a cycle: 1639 cycles push 16390 chunks into room for 16384.
  static_assert(AudioRing::capacity() == 16384);
  for (int i = 0; i < 1639; ++i) h.cycle(640);
  EXPECT_EQ(h.ctx().shared.audio_dropped.load(), 6u);
  EXPECT_EQ(h.chunks().size(), AudioRing::capacity());
  EXPECT_EQ(h.ctx().shared.ring_dropped.load(), 0u);
}

TEST(Process, JackCallbacksTakeTheContext) {
  Harness h(Options{});
  EXPECT_EQ(process_rt(64, &h.ctx()), 0);
  EXPECT_EQ(h.records().size(), 1u);
  EXPECT_FALSE(h.ctx().shared.server_gone.load());
  on_server_shutdown(&h.ctx());
  EXPECT_TRUE(h.ctx().shared.server_gone.load());
}

TEST(Process, InconsistentConfigurationIsRefusedBeforeActivation) {
  auto refused = [](RtConfig& c, const std::string& names) {
    try {
      make_rt_state(c, 64);
      ADD_FAILURE() << "accepted; expected a refusal naming " << names;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  FakePort a(64), b(64);
  RtConfig c;
  refused(c, "in_ports");
  c.in_ports = {a.handle()};
  refused(c, "out_ports");
  c.out_ports = {b.handle()};
  refused(c, "bank");
  c.bank = std::make_unique<BiquadBank>(2, 0, kRate);
  refused(c, "bank has 2 ports");
  c.bank = std::make_unique<BiquadBank>(1, 0, kRate);
  refused(c, "ring");
  c.ring = std::make_unique<CycleRing>();
  c.inject = InjectSpec{10, 0};
  refused(c, "inject.every");
  c.inject.reset();
  c.audio = std::make_unique<AudioRing>();
  refused(c, "check_port");
  c.check_port = true;
  const RtState s = make_rt_state(c, 64);
  EXPECT_EQ(s.in_bufs.size(), 1u);
  EXPECT_EQ(s.scratch.size(), kMaxJackFrames);  // never smaller than JACK's largest buffer
}

// The callback on one thread, the drain thread's reads on another, as in the client (run under
// ThreadSanitizer in scripts/test.sh): every cycle's record is either drained, in order, or
// counted in ring_dropped; never both, never neither.
TEST(Process, CallbackAndDrainThreadsShareOnlyTheRingAndTheAtomics) {
  Harness h(Options{});
  constexpr uint64_t kCycles = 3 * CycleRing::capacity();
  std::atomic<bool> done{false};
  std::thread callback([&] {
    record_thread_tid();
    for (uint64_t i = 0; i < kCycles; ++i) h.cycle(16);
    done.store(true, std::memory_order_release);
  });
  uint64_t received = 0, last_entry = 0;
  bool in_order = true;
  pid_t tid_seen = 0;
  auto drain = [&] {
    h.ctx().config.ring->drain([&](const CycleRecord& r) {
      in_order = in_order && (received == 0 || r.t_entry_us > last_entry);
      last_entry = r.t_entry_us;
      ++received;
    });
    tid_seen = h.ctx().shared.rt_tid.load(std::memory_order_acquire);
  };
  while (!done.load(std::memory_order_acquire)) drain();
  drain();  // everything pushed before `done` is visible now
  callback.join();
  EXPECT_TRUE(in_order);
  EXPECT_EQ(received + h.ctx().shared.ring_dropped.load(), kCycles);
  EXPECT_NE(tid_seen, 0);
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

// The cycle table (engine/wire/cycle_table.hpp): the callback writes its column's cell of the
// cycle it served, keyed by the vcard boundary of its marker or by the frame time, with its
// entry and exit in CLOCK_MONOTONIC and jackd's wake-up as it saw it.
struct Table {
  static constexpr uint32_t kClients = 3, kRows = 8;
  std::vector<cycle_table::Cell> cells = std::vector<cycle_table::Cell>(kClients * kRows);
  CycleTableColumn column(uint32_t index, uint32_t keyed_by) {
    CycleTableColumn c;
    c.first = cells.data() + (index - 1) * kRows;  // column-major, as the table
    c.rows = kRows;
    c.keyed_by = keyed_by;
    c.rate = kRate;
    return c;
  }
  cycle_table::CellValue at(uint64_t id, uint32_t index) {
    cycle_table::CellValue v;
    EXPECT_TRUE(cycle_table::read_cell(cells[(index - 1) * kRows + id % kRows], &v));
    return v;
  }
};

TEST(ProcessCycleTable, WritesItsCellKeyedByTheMarkersBoundary) {
  Options o;
  o.clock_port = true;
  Harness h(o);
  Table t;
  h.ctx().config.table = t.column(2, cycle_table::kKeyBoundary);
  vcard::write_marker(h.clock().data(), 1, 77);
  h.jack().mono = {5, 1000};
  h.jack().frames_since_start = 48;  // 1 ms at 48 kHz
  h.jack().last_frame_time = 256 * 9 + 5;
  h.cycle(256);
  const cycle_table::CellValue v = t.at(77, 2);
  EXPECT_EQ(v.frame, 256u * 9 + 5) << "JACK's frame time, what ties xrun reports to the cycle";
  EXPECT_EQ(v.id, 77u);
  EXPECT_EQ(v.entry_ns, 5000001000);
  EXPECT_EQ(v.exit_ns, 5000001000);  // the fake clock stands still
  EXPECT_EQ(v.wake_ns, 5000001000 - 1000000);
  cycle_table::CellValue other;
  EXPECT_FALSE(cycle_table::read_cell(t.cells[(77 % Table::kRows) * Table::kClients], &other))
      << "column 1 is another client's";
  // A cycle without a marker has no boundary: nothing is written.
  h.clock().assign(h.clock().size(), 0.0f);
  h.cycle(256);
  EXPECT_EQ(t.at(77, 2).id, 77u);
}

TEST(ProcessCycleTable, WithoutACardTheFrameTimeKeysTheCycle) {
  Harness h(Options{});
  Table t;
  h.ctx().config.table = t.column(1, cycle_table::kKeyFrameTime);
  h.jack().last_frame_time = 256 * 1001;
  h.cycle(256);
  EXPECT_EQ(t.at(1001, 1).id, 1001u);
  EXPECT_EQ(t.at(1001, 1).frame, 256u * 1001);
  EXPECT_EQ(h.jack().mono_reads, 2) << "entry and exit, nothing else";
}

// --dsp-ramp: every cycle's stages from its id and the ramp's first cycle, which the main thread
// stores into shared.ramp_from; the callback's only extra work is that atomic load: no clock
// read, no other call through the seam.
TEST(ProcessRamp, EachCycleRunsTheStagesOfItsStepAndWritesThemIntoTheTable) {
  Options o;
  o.stages = 40;
  Harness h(o);
  Table t;
  h.ctx().config.table = t.column(1, cycle_table::kKeyFrameTime);
  h.ctx().config.ramp = DspRampStages{0, 4u << 16, 3, 40};
  auto run = [&](uint64_t id) {
    h.jack().last_frame_time = static_cast<jack_nframes_t>(64 * id);
    h.cycle(64);
    return t.at(id, 1).stages;
  };
  EXPECT_EQ(run(100), 0u) << "before the engine names the first cycle: the base";
  h.ctx().shared.ramp_from.store(103 + 1);
  const uint64_t reads_before = h.jack().time_reads;
  const int mono_before = h.jack().mono_reads;
  EXPECT_EQ(run(101), 0u);
  EXPECT_EQ(run(102), 0u);
  EXPECT_EQ(run(103), 4u) << "step 1 from the named cycle";
  EXPECT_EQ(run(105), 4u);
  EXPECT_EQ(run(106), 8u) << "every 3 cycles a step";
  EXPECT_EQ(run(115), 20u) << "step 1 + 12 / 3";
  EXPECT_EQ(run(140), 40u) << "at most its top";
  EXPECT_EQ(h.jack().time_reads - reads_before, 2u * 7) << "entry and exit only";
  EXPECT_EQ(h.jack().mono_reads - mono_before, 2 * 7) << "the table's entry and exit only";
  // A cycle the engine's table skipped (an xrun lost cycles) still runs its own step.
  EXPECT_EQ(run(112), 16u);
}

TEST(ProcessRamp, AnInjectedOverrunWaitsForItsStep) {
  Options o;
  o.stages = 8;
  o.inject = InjectSpec{50, 1, 0, 3};
  Harness h(o);
  h.ctx().config.ramp = DspRampStages{0, 1u << 16, 2, 8};
  h.ctx().shared.ramp_from.store(10 + 1);
  for (uint64_t id = 8; id < 16; ++id) {
    h.jack().last_frame_time = static_cast<jack_nframes_t>(64 * id);
    h.cycle(64);
  }
  const std::vector<CycleRecord> recs = h.records();
  ASSERT_EQ(recs.size(), 8u);
  for (size_t i = 0; i < recs.size(); ++i) {
    const uint64_t id = 8 + i;
    const bool step3 = id >= 14;  // steps: 10-11 -> 1, 12-13 -> 2, 14-15 -> 3
    EXPECT_EQ((recs[i].flags & CycleRecord::kInjected) != 0, step3) << "cycle " << id;
  }
}

// The ramp's first cycle stored by another thread while the callback runs (run under
// ThreadSanitizer in scripts/test.sh): the cycles before the named one run the base, every one
// from it the stages of its step.
TEST(ProcessRamp, TheFirstCycleStoredWhileTheCallbackRunsReachesItWithoutARace) {
  Options o;
  o.stages = 64;
  Harness h(o);
  Table t;  // 8 rows: the test reads each cycle's cell right after it
  h.ctx().config.table = t.column(1, cycle_table::kKeyFrameTime);
  const DspRampStages ramp{2, 1u << 16, 4, 64};
  h.ctx().config.ramp = ramp;
  constexpr uint64_t kFrom = 2000, kCycles = 6000;
  std::atomic<bool> go{false};
  std::vector<uint32_t> seen(kCycles);
  std::thread callback([&] {
    for (uint64_t id = 0; id < kCycles; ++id) {
      if (id == 1000) go.store(true, std::memory_order_release);
      // The store lands somewhere in cycles 1000..kFrom - 1, while they run.
      if (id == kFrom) {
        while (h.ctx().shared.ramp_from.load(std::memory_order_acquire) == 0) {
        }
      }
      h.jack().last_frame_time = static_cast<jack_nframes_t>(64 * id);
      h.cycle(64);
      seen[id] = t.at(id, 1).stages;
    }
  });
  while (!go.load(std::memory_order_acquire)) {
  }
  h.ctx().shared.ramp_from.store(kFrom + 1, std::memory_order_release);
  callback.join();
  for (uint64_t id = 0; id < kCycles; ++id) {
    ASSERT_EQ(seen[id], ramp.stages_of_step(ramp.step_at(id, kFrom))) << "cycle " << id;
  }
  EXPECT_EQ(seen[kCycles - 1], 64u) << "it reached its top";
}

}  // namespace
}  // namespace xrunlab

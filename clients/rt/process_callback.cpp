// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/process_callback.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "clients/rt/thread_tid.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

// CLOCK_MONOTONIC in ns, through the seam (the vDSO). Realtime: a clock read only.
uint64_t mono_ns_rt(const RtConfig& c) noexcept {
  timespec mono{};
  c.jack.clock_gettime(CLOCK_MONOTONIC, &mono);
  return static_cast<uint64_t>(mono.tv_sec) * 1000000000u + static_cast<uint64_t>(mono.tv_nsec);
}

// This cycle's id as the cycle table keys it (`keyed_by`; without a table, by frame time):
// false for a vcard cycle without a marker, which has no boundary to key it by.
// Realtime: pure.
bool cycle_id_rt(uint32_t keyed_by, const CycleRecord& rec, uint64_t* id) noexcept {
  if (keyed_by == cycle_table::kKeyBoundary) {
    if ((rec.flags & CycleRecord::kHasBoundary) == 0) return false;
    *id = rec.card_boundary;
    return true;
  }
  if (rec.nframes == 0) return false;
  *id = rec.frame_time / rec.nframes;
  return true;
}

// This cycle's row of the cycle table: entry, exit, jackd's wake-up as this client saw it,
// JACK's frame time and the DSP stages run.
// `id`: the cycle's (cycle_id_rt).
// Realtime: wait-free; plain atomic stores into shared memory, no system call.
void write_table_rt(const CycleTableColumn& t, uint64_t id, const CycleRecord& rec,
                    uint64_t exit_ns, uint32_t stages) noexcept {
  const auto entry = static_cast<int64_t>(rec.t_entry_mono_ns);
  const int64_t since_wake_ns =
      t.rate == 0 ? 0
                  : static_cast<int64_t>(static_cast<uint64_t>(rec.frames_since_start) *
                                         1000000000u / t.rate);
  cycle_table::write_cell(t.cell(id), id, entry, static_cast<int64_t>(exit_ns),
                          entry - since_wake_ns, rec.frame_time, stages);
}

// The clocks and JACK's facts about this cycle, read at entry, in this order: t_entry first
// (the delay is measured to it), then the vcard's clock and marker, then JACK's frame counts.
// Realtime: wait-free; memory reads and clock reads through the seam.
void read_entry_rt(const RtConfig& c, RtShared& shared, jack_nframes_t nframes,
                   CycleRecord* rec) noexcept {
  rec->t_entry_us = c.jack.get_time();
  if (shared.rt_tid.load(std::memory_order_relaxed) == 0) {
    shared.rt_tid.store(recorded_thread_tid_rt(), std::memory_order_release);
  }
  if (c.clock_port != nullptr || c.table.first != nullptr) {
    rec->t_entry_mono_ns = mono_ns_rt(c);  // the vcard's and the cycle table's clock
  }
  if (c.clock_port != nullptr) {
    const auto* clock = static_cast<const float*>(c.jack.port_get_buffer(c.clock_port, nframes));
    if (vcard::read_marker(clock, nframes, &rec->card_boundary)) {
      rec->flags |= CycleRecord::kHasBoundary;
    }
  }
  rec->frames_since_start = c.jack.frames_since_cycle_start(c.client);
  rec->frame_time = c.jack.last_frame_time(c.client);
  rec->nframes = nframes;
  jack_nframes_t cur_frames = 0;
  jack_time_t cur_usecs = 0, next_usecs = 0;
  float period_usecs = 0;
  if (c.jack.get_cycle_times(c.client, &cur_frames, &cur_usecs, &next_usecs, &period_usecs) == 0) {
    rec->dll_period_start_us = cur_usecs;
  }
}

// The sink's copy of port 1 as received, in chunks of up to AudioChunk::kChunk frames; a chunk
// the full ring refuses is counted, never waited for.
// Realtime: wait-free.
void push_audio_rt(AudioRing& ring, RtShared& shared, const float* in, jack_nframes_t nframes,
                   const CycleRecord& rec) noexcept {
  AudioChunk chunk;
  chunk.t_entry_us = rec.t_entry_us;
  chunk.frame_time = rec.frame_time;
  for (uint32_t off = 0; off < nframes; off += AudioChunk::kChunk) {
    chunk.count = std::min(AudioChunk::kChunk, nframes - off);
    std::memcpy(chunk.s, in + off, chunk.count * sizeof(float));
    if (!ring.rt_push(chunk)) shared.audio_dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

// This cycle's DSP stages: all of the bank's, or with --dsp-ramp the ramp's at this cycle's step.
// The step comes from the cycle's id and the ramp's first cycle (shared.ramp_from, one atomic
// load); a cycle without an id (`id` nullptr) keeps the previous cycle's step.
// Realtime: wait-free; one atomic load and arithmetic.
void ramp_stages_rt(const RtConfig& c, RtState& s, const RtShared& shared,
                    const uint64_t* id) noexcept {
  if (!c.ramp) {
    s.stages = static_cast<uint32_t>(c.bank->stages());
    return;
  }
  const uint64_t from = shared.ramp_from.load(std::memory_order_acquire);
  if (from == 0) {
    s.ramp_step = 0;
  } else if (id != nullptr) {
    s.ramp_step = c.ramp->step_at(*id, from - 1);
  }
  s.stages = c.ramp->stages_of_step(s.ramp_step);
}

// The DSP work on every port (s.stages of the bank's stages); with --check-port, port 1 passes
// through exactly (the test signal, or the preloaded --source-file, on the source) while its DSP
// work goes to the scratch buffer. With shared.dsp_on off (before the engine's start command),
// every port only copies its input to its output. Realtime: wait-free apart from the DSP work
// itself (bounded: stages x nframes).
void process_ports_rt(const RtConfig& c, RtState& s, RtShared& shared, jack_nframes_t nframes,
                      const CycleRecord& rec) noexcept {
  for (size_t p = 0; p < c.in_ports.size(); ++p) {
    s.in_bufs[p] = static_cast<const float*>(c.jack.port_get_buffer(c.in_ports[p], nframes));
    s.out_bufs[p] = static_cast<float*>(c.jack.port_get_buffer(c.out_ports[p], nframes));
    s.dsp_out[p] = s.out_bufs[p];
  }
  if (!shared.dsp_on.load(std::memory_order_relaxed)) {
    s.stages = 0;
    for (size_t p = 0; p < c.in_ports.size(); ++p) {
      std::memcpy(s.out_bufs[p], s.in_bufs[p], nframes * sizeof(float));
    }
    return;
  }
  const int stages = static_cast<int>(s.stages);
  if (!c.check_port) {
    c.bank->process_rt(s.in_bufs.data(), s.out_bufs.data(), nframes, stages);
    return;
  }
  s.dsp_out[0] = s.scratch.data();
  c.bank->process_rt(s.in_bufs.data(), s.dsp_out.data(), nframes, stages);
  const float* in = s.in_bufs[0];
  if (c.audio) push_audio_rt(*c.audio, shared, in, nframes, rec);
  if (c.file) {
    c.file->fill_rt(s.out_bufs[0], s.signal_frame, nframes);  // copies from preloaded memory
    s.signal_frame += nframes;
  } else if (c.signal) {
    c.signal->fill_rt(s.out_bufs[0], s.signal_frame, nframes);
    s.signal_frame += nframes;
  } else {
    std::memcpy(s.out_bufs[0], in, nframes * sizeof(float));
  }
}

// --inject-overrun spin:CYCLE: a runaway realtime thread on purpose. Reads the clock until it
// shows the largest JACK time, which a real clock never does (a fake one may, to end a unit
// test), so the process thread never blocks again: RLIMIT_RTTIME's SIGXCPU or the engine's
// watchdog ends the process.
// Realtime: no allocation, locks or system calls (clock reads only); deliberately unbounded.
void spin_forever_rt(const RtConfig& c) noexcept {
  while (c.jack.get_time() != std::numeric_limits<jack_time_t>::max()) {
  }
}

}  // namespace

RtState make_rt_state(const RtConfig& config, uint32_t max_nframes) {
  auto bad = [](const std::string& what) {
    return std::invalid_argument("the process callback's configuration: " + what);
  };
  const size_t ports = config.in_ports.size();
  if (ports == 0) throw bad("in_ports is empty");
  if (config.out_ports.size() != ports) throw bad("out_ports and in_ports differ in size");
  if (!config.bank) throw bad("bank is missing");
  if (static_cast<size_t>(config.bank->ports()) != ports) {
    throw bad("bank has " + std::to_string(config.bank->ports()) + " ports, not " +
              std::to_string(ports));
  }
  if (!config.ring) throw bad("ring is missing");
  if (config.inject && config.inject->spin_at == 0 && config.inject->every == 0) {
    throw bad("inject.every is 0");
  }
  if ((config.signal || config.file || config.audio) && !config.check_port) {
    throw bad("signal, file and audio need check_port");
  }
  if (config.ramp && config.ramp->max > static_cast<uint32_t>(config.bank->stages())) {
    throw bad("the ramp's " + std::to_string(config.ramp->max) + " stages exceed the bank's " +
              std::to_string(config.bank->stages()));
  }
  RtState s;
  s.in_bufs.assign(ports, nullptr);
  s.out_bufs.assign(ports, nullptr);
  s.dsp_out.assign(ports, nullptr);
  if (config.check_port) s.scratch.assign(std::max(max_nframes, kMaxJackFrames), 0.0f);
  return s;
}

void process_cycle_rt(const RtConfig& config, RtState& state, RtShared& shared,
                      jack_nframes_t nframes) noexcept {
  CycleRecord rec;
  read_entry_rt(config, shared, nframes, &rec);
  // The cycle's id, once: the ramp's step and the table's row both key on it. A vcard cycle
  // without a marker has none: it keeps the ramp's step and writes no row (the engine shows it
  // as a cycle in which this client did not run).
  uint64_t id = 0;
  const bool has_id = cycle_id_rt(config.table.keyed_by, rec, &id);
  ramp_stages_rt(config, state, shared, has_id ? &id : nullptr);
  process_ports_rt(config, state, shared, nframes, rec);
  ++state.cycle;
  if (config.inject && config.inject->spin_at != 0) {
    if (state.cycle == config.inject->spin_at) {
      spin_forever_rt(config);
      rec.flags |= CycleRecord::kInjected;  // only reached when a fake clock ends the spin
    }
  } else if (config.inject && state.cycle % config.inject->every == 0 &&
             state.ramp_step >= config.inject->from_step) {
    // Injected overrun: burn CPU until the callback has lasted inject->usec in total.
    const uint64_t until = rec.t_entry_us + config.inject->usec;
    while (config.jack.get_time() < until) {
    }
    rec.flags |= CycleRecord::kInjected;
  }
  rec.t_exit_us = config.jack.get_time();
  if (config.table.first != nullptr && has_id) {
    write_table_rt(config.table, id, rec, mono_ns_rt(config), state.stages);
  }
  if (!config.ring->rt_push(rec)) shared.ring_dropped.fetch_add(1, std::memory_order_relaxed);
}

int process_rt(jack_nframes_t nframes, void* arg) noexcept {
  auto* ctx = static_cast<RtContext*>(arg);
  process_cycle_rt(ctx->config, ctx->state, ctx->shared, nframes);
  return 0;
}

void on_server_shutdown(void* arg) noexcept {
  static_cast<RtContext*>(arg)->shared.server_gone.store(true);
}

}  // namespace xrunlab

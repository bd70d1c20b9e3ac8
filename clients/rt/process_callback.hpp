// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The process callback of xrunlab-client: what JACK's process thread runs every cycle. It reads
// the clocks, does the DSP work, passes the audible chain's port 1 through, and pushes one
// CycleRecord (and, on the sink, the received audio) into rings the drain thread empties.
//
// Its context is split by who may touch each field:
//   RtConfig  set up before jack_activate, then only read (the callback takes it as const&);
//   RtState   the callback's own once activated (set up before, never touched by another thread);
//   RtShared  counters and flags shared with the drain and main threads: lock-free atomics only.
// Every JACK and clock call goes through config.jack (jack_seam.hpp), so a unit test runs the
// real callback without a server.
#include <jack/jack.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "clients/rt/audio_chunk.hpp"
#include "clients/rt/cycle_record.hpp"
#include "clients/rt/cycle_table_column.hpp"
#include "clients/rt/dsp.hpp"
#include "clients/rt/jack_seam.hpp"
#include "clients/rt/looped_samples.hpp"
#include "clients/rt/spsc_ring.hpp"
#include "clients/rt/test_signal.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/dsp_ramp.hpp"

namespace xrunlab {

using CycleRing = SpscRing<CycleRecord, 16384>;  // 896 KiB: over 20 s of cycles at 64 frames/48 kHz
using AudioRing = SpscRing<AudioChunk, 16384>;   // 4.5 MiB: 21 s of audio at 48 kHz

// Set up before jack_activate; afterwards nobody changes it and the callback only reads it. The
// pointers are configuration; what they point to keeps its own thread contract: the rings are
// pushed by the callback (rt_push) and drained by the drain thread (drain); the DSP bank's
// filter memory is written by the callback only (process_rt); the test signal is immutable.
struct RtConfig {
  JackSeam jack{};                  // the JACK and clock calls (real_jack_seam(), or fakes)
  jack_client_t* client = nullptr;  // for the calls that take it
  std::vector<jack_port_t*> in_ports, out_ports;  // in_N and out_N, N = 1..ports
  jack_port_t* clock_port = nullptr;              // --clock-port: the vcard's marker channel
  std::unique_ptr<BiquadBank> bank;               // the DSP work, one set of stages per port
  std::unique_ptr<CycleRing> ring;                // one CycleRecord per cycle
  std::optional<InjectSpec> inject;               // --inject-overrun (an overrun, or spin)
  // --dsp-ramp: the stages each cycle runs (the bank holds ramp->max); none: all of the bank's.
  std::optional<DspRampStages> ramp;
  CycleTableColumn table;  // --cycle-table: this client's column
  // The audible chain: port 1 carries the test signal, passed through exactly (its DSP work
  // still happens, on a scratch copy).
  bool check_port = false;                   // --check-port
  std::unique_ptr<const TestSignal> signal;  // --source: play the signal on port 1
  // --source --source-file FILE: play the preloaded file on port 1 instead (looped).
  std::unique_ptr<const LoopedSamples> file;
  std::unique_ptr<AudioRing> audio;  // --sink: what arrived on port 1, to the check
};

// The callback's own state: written only by the callback once the client is active (sized
// before, by make_rt_state).
struct RtState {
  uint64_t cycle = 0;                 // callbacks so far
  uint64_t signal_frame = 0;          // the source's next frame of the test signal (or file)
  std::vector<const float*> in_bufs;  // this cycle's port buffers, one per port
  std::vector<float*> out_bufs;
  std::vector<float*> dsp_out;  // out_bufs, with port 1 redirected to scratch (--check-port)
  std::vector<float> scratch;   // port 1's DSP output when port 1 is passed through
  uint64_t ramp_step = 0;       // the DSP ramp's step in this cycle (0: not started)
  uint32_t stages = 0;          // the DSP stages this cycle ran (0 with dsp_on off)
};

// Shared between the callback, the drain thread and the main thread: lock-free atomics only.
// On its own cache lines, apart from the callback's state.
struct alignas(64) RtShared {
  std::atomic<uint64_t> ring_dropped{0};   // CycleRecords refused by a full ring (callback)
  std::atomic<uint64_t> audio_dropped{0};  // AudioChunks refused by a full ring (callback)
  std::atomic<pid_t> rt_tid{0};  // the process thread's tid, published by its first callback
  std::atomic<bool> server_gone{false};  // JACK shut the client down (JACK's shutdown thread)
  // The DSP work runs (the main thread turns it on). Off, the callback copies each input port to
  // its output and does no DSP: the engine's clients start that way and get it on with the
  // start command, 300 ms before the window, so the DSP load of the clients already active does
  // not take the CPU from JACK's server while it opens and activates the others one at a time.
  std::atomic<bool> dsp_on{true};
  // The DSP ramp's first cycle id plus one (0: the ramp has not started): the "ramp CYCLE" line
  // the engine sends, stored by the main thread and read by the callback each cycle. The
  // callback computes its step from this and the cycle's id (DspRampStages), nothing else.
  std::atomic<uint64_t> ramp_from{0};
};
static_assert(std::is_trivially_copyable_v<InjectSpec>, "read by value in the callback");
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<pid_t>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::is_trivially_copyable_v<DspRampStages>, "read by value in the callback");

// What jack_set_process_callback and jack_on_shutdown get as their argument.
struct RtContext {
  RtConfig config;
  RtState state;
  RtShared shared;
};

// The largest buffer JACK allows (jackd -p); port 1's scratch is never smaller.
inline constexpr uint32_t kMaxJackFrames = 8192;

// The callback's state for `config`, for buffers of up to max(max_nframes, kMaxJackFrames)
// frames. Not realtime: allocates. Throws std::invalid_argument naming the field when the
// configuration is inconsistent (port lists of different sizes, a bank of another port count,
// no ring, a source, file or sink without the check port, a ramp above the bank's stages).
RtState make_rt_state(const RtConfig& config, uint32_t max_nframes);

// One process cycle of `nframes` frames.
// Realtime: wait-free apart from the DSP work and an injected overrun (a deliberate busy-wait;
// with inject->spin_at, one that never ends); no allocation, locks, logging or system calls
// beyond reading the clock (through config.jack).
void process_cycle_rt(const RtConfig& config, RtState& state, RtShared& shared,
                      jack_nframes_t nframes) noexcept;

// The JACK process callback; `arg` is an RtContext. Always returns 0.
// Realtime: as process_cycle_rt.
int process_rt(jack_nframes_t nframes, void* arg) noexcept;

// The JACK shutdown callback; `arg` is an RtContext: sets shared.server_gone. Runs on a JACK
// thread that is not the process thread. Wait-free.
void on_server_shutdown(void* arg) noexcept;

}  // namespace xrunlab

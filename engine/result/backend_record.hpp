// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a run records of its sound card (--backend): Backend::describe() fills it, run.json
// writes it as "backend" (engine/result/run_json.cpp) and the reports read it. The members every
// backend has come first; each backend's own members are in its part, set only for that backend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/histogram.hpp"

namespace xrunlab {

// What an attached server says about itself (Monitor::server_settings).
struct ServerSettings {
  uint32_t rate_hz = 0;
  uint32_t frames = 0;
  bool realtime = false;
  double max_delayed_usecs = 0;      // as the server reports it (jack_get_max_delayed_usecs)
  std::string jack_library_version;  // of the libjack this process loaded
  std::vector<std::string> physical_ports;
};

// One xrun the virtual card detected on a stream.
struct VcardXrunRecord {
  uint64_t boundary = 0;  // the first boundary at which the stream was in xrun
  int64_t ideal_ns = 0;
  int64_t detected_ns = 0;
  int64_t detection_delay_us = 0;  // detected - ideal, rounded down
  int64_t avail_frames = 0;
};

// One stream of the virtual card as its shared-memory record has it.
struct VcardStreamRecord {
  bool open = false;
  uint64_t starts = 0;      // trigger starts (1 + restarts after xruns)
  uint64_t timer_arms = 0;  // timerfd_settime calls
  uint64_t wakes_written = 0;
  uint64_t xruns = 0;  // every xrun, the listed ones and those the ring lost
  std::vector<VcardXrunRecord> xrun_events;
};

// The virtual card's own record (VcardReader::record).
struct VcardCardRecord {
  std::optional<std::string> wake_stream;  // "capture" or "playback"; nullopt until known
  uint64_t wakes = 0;                      // wake-ups read
  uint64_t missed = 0;                     // wake-ups written but no longer in the ring
  MetricSummary wake_latency_us;           // jackd's wake-up after the card's interrupt
  VcardStreamRecord playback, capture;
};

// --backend vcard: the card's configuration, and its record once the card exists.
struct VcardBackendRecord {
  std::string pcm, plugin, alsa_config, shm;
  int capture_channels = 0, playback_channels = 0;
  int clock_channel = 0;  // the capture channel carrying the period marker
  std::string clock;      // the card's clock, in words
  std::optional<VcardCardRecord> card;
};

// An interrupt line of /proc/interrupts that is the card's.
struct CardIrqRecord {
  int irq = -1;
  uint64_t count = 0;
  std::string action;
  std::vector<std::string> card_actions;
  std::string matched_by;
};

// An interrupt thread of the card; its scheduling nullopt when it could not be read.
struct CardIrqThreadRecord {
  int64_t pid = 0;
  std::string comm;
  int irq = -1;
  std::optional<std::string> policy;
  std::optional<int> priority;
};

// The card a PCM name means (engine/backend/card_info.hpp). What is not known is nullopt and a
// note says why.
struct AlsaCardInfo {
  std::string pcm;
  std::optional<int> device;  // the PCM device number
  std::optional<int> card;    // the card's index
  std::optional<std::string> id, driver, name, long_name;
  std::optional<std::vector<CardIrqRecord>> irqs;
  std::optional<std::vector<CardIrqThreadRecord>> irq_threads;
  std::vector<std::string> notes;
};

// --backend alsa[:DEVICE].
struct AlsaBackendRecord {
  std::string device;  // as given, "(first card)" without one
  std::string pcm;
  std::optional<AlsaCardInfo> card;  // nullopt before the device was resolved
};

// --backend attach[:SERVER]: the user's server, never launched by the run.
struct AttachBackendRecord {
  std::string server;
  bool launched = false;
};

// A thread of the PipeWire daemon's data loop as the kernel has it.
struct PipewireThreadRecord {
  int64_t pid = 0, tid = 0;
  std::string name;
  std::string policy;  // its scheduling class: policy_name()
  int priority = 0;
  int nice = 0;
};

// --backend pipewire: the private daemon.
struct PipewireBackendRecord {
  std::string program;
  std::optional<std::string> version;  // nullopt when pipewire --version named none
  std::string config, runtime_dir, socket, libjack;
  uint32_t quantum_requested = 0, rate_requested = 0;
  std::optional<int> rt_priority;  // libpipewire-module-rt's rt.prio; nullopt: not loaded
  std::optional<int64_t> pid;      // the daemon's, once started
  std::vector<PipewireThreadRecord> data_loop_threads;  // at its start
  // At the window's end; nullopt when not read.
  std::optional<std::vector<PipewireThreadRecord>> data_loop_threads_end;
  std::optional<std::string> data_loop_why;  // why no data-loop thread was read at its start
};

struct BackendRecord {
  std::string name;  // Backend::name(); "" when no backend is known
  std::string driver;
  std::string reference;  // Backend::reference_text()
  bool reference_exact = false;
  // attach: what the server says about itself (read when the run attached).
  std::optional<ServerSettings> server_settings;
  // The backend's own part: at most one is set, the one `name` names.
  std::optional<VcardBackendRecord> vcard;
  std::optional<AlsaBackendRecord> alsa;
  std::optional<AttachBackendRecord> attach;
  std::optional<PipewireBackendRecord> pipewire;

  bool is_pipewire() const { return name == "pipewire"; }
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The tail of the chain's audio check (non-realtime: the client's drain thread). It takes what
// arrived on the checked port, cycle by cycle, inside the measurement window; finds every
// discontinuity of the test signal (GlitchDetector); reports each one with the JACK time of the
// cycle that carried it; and optionally records the received signal and a 200 ms excerpt around
// every glitch (libsndfile: 32-bit float WAV, or 24-bit integer FLAC, whose samples beyond
// +-1.0 are clipped and counted).
//
// What it checks against: the test signal, or the user's file (AudioCheckSetup::reference, a
// FileReference). A file the check cannot work on (file_check_impossible) is still received,
// counted and recorded, and reported as "not checked" with the reason: nothing is judged.
#include <sndfile.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clients/drain/glitch_detector.hpp"
#include "clients/drain/reference_signal.hpp"
#include "engine/wire/telemetry.hpp"

namespace xrunlab {

enum class RecordFormat { kWav, kFlac };
const char* extension(RecordFormat f);  // "wav", "flac"

struct AudioCheckSetup {
  std::shared_ptr<const ReferenceSignal> reference;  // nullptr: the test signal at the rate
  std::string reference_kind = "test-signal";        // or "file"
  std::string not_checked;  // why the reference cannot be checked ("" = it can)
  // With no reference: the test signal's block size (the JACK period) for the judged-block
  // counts (0: not counted). A given reference carries its own (prepare_blocks).
  uint32_t block_frames = 0;
  RecordFormat format = RecordFormat::kWav;
};

class AudioCheck {
 public:
  using Emit = std::function<void(const telemetry::GlitchReport&)>;

  // record_dir "" = no recording. Throws std::runtime_error naming the file it cannot create.
  AudioCheck(int index, uint32_t rate, const std::string& record_dir, Emit emit,
             AudioCheckSetup setup = {});
  ~AudioCheck();  // NOLINT(bugprone-exception-escape): see the definition
  AudioCheck(const AudioCheck&) = delete;
  AudioCheck& operator=(const AudioCheck&) = delete;

  // One cycle's received samples (in order; a cycle may come in several pieces, all with the
  // same t_entry_us and frame_time).
  void feed(const float* samples, uint32_t n, uint64_t t_entry_us, uint32_t frame_time);
  void add_ring_dropped(uint64_t chunks) { ring_dropped_ = chunks; }
  // Closes open glitches, excerpts and the recording.
  void finish();
  telemetry::AudioTotals totals() const;
  const GlitchDetector& detector() const { return detector_; }

 private:
  struct CycleStart {
    uint64_t first_frame;  // received index of its first sample
    uint64_t t_entry_us;
    uint32_t frame_time;
  };
  struct Excerpt {
    SNDFILE* file = nullptr;
    uint64_t from = 0, to = 0;  // received frames [from, to)
    uint64_t written_to = 0;
  };
  void report_new_glitches();
  void write_excerpts(bool at_end);
  SNDFILE* open_file(const std::string& path);
  bool checking() const { return setup_.not_checked.empty(); }

  int index_;
  uint32_t rate_;
  std::string record_dir_;
  Emit emit_;
  AudioCheckSetup setup_;
  GlitchDetector detector_;
  uint64_t received_ = 0;  // frames fed, checked or not
  uint64_t clipped_ = 0;   // recorded samples beyond +-1.0 (FLAC clips them)
  size_t reported_ = 0;
  std::deque<CycleStart> cycles_;  // the last few seconds, to time glitches
  std::deque<float> history_;      // the last second of received audio (for excerpts)
  uint64_t history_first_ = 0;     // received index of history_.front()
  std::vector<Excerpt> excerpts_;
  SNDFILE* recording_ = nullptr;
  uint64_t recorded_ = 0;
  uint64_t ring_dropped_ = 0;
  uint64_t last_cycle_t_ = 0;
  double check_ns_ = 0;
  bool finished_ = false;
};

}  // namespace xrunlab

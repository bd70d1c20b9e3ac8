// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The virtual sound card, engine side. The card itself is an alsa-lib plugin loaded into jackd
// (clients/card/vcard_pcm.cpp); the engine
//   * writes the private ALSA configuration that defines it (alsa_config_text) into the run
//     folder and starts jackd with ALSA_CONFIG_PATH pointing at it, so that neither ~/.asoundrc
//     nor /etc is read;
//   * creates the card's shared-memory record before jackd starts (VcardShm) and removes it after;
//   * reads what the card records there: when jackd woke for each period boundary, and the xruns
//     the card detected (VcardReader).
// None of this is realtime code.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/result/backend_record.hpp"
#include "engine/result/histogram.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {

struct VcardSpec {
  uint32_t rate = 48000;
  uint32_t frames = 256;  // the only period size the card offers
  int playback_channels = 2;
  int capture_channels = 2;
  int clock_channel = 0;    // 1-based capture channel carrying the period marker; 0 = none
  std::string shm_name;     // "/xrunlab-vcard-<server>" (vcard_shm_name)
  std::string plugin_path;  // absolute path of libasound_module_pcm_xrunlab.so
  std::string pcm_name = "xrunlab_vcard";
};

// The complete private ALSA configuration: the plugin type and the card's PCM. Pure.
std::string alsa_config_text(const VcardSpec& spec);

// The card's shm object for a server: "/xrunlab-vcard-" + server_name.
std::string vcard_shm_name(const std::string& server_name);

// The card's POSIX shm object, created (exclusively) and initialised by the engine. Unmapped and
// unlinked on destruction unless unlink() was called already (then only unmapped).
class VcardShm {
 public:
  VcardShm() = default;
  VcardShm(const VcardShm&) = delete;
  VcardShm& operator=(const VcardShm&) = delete;
  VcardShm(VcardShm&& other) noexcept;
  VcardShm& operator=(VcardShm&& other) noexcept;
  ~VcardShm();

  // Throws Error(kOutput) naming the object when it exists already or cannot be created.
  static VcardShm create(const std::string& name, uint32_t rate, uint32_t frames);

  void unlink();  // removes the name (the mapping stays valid); idempotent
  const vcard::Shm* shm() const { return shm_; }
  const std::string& name() const { return name_; }

 private:
  void release() noexcept;
  std::string name_;
  vcard::Shm* shm_ = nullptr;
  bool linked_ = false;
};

// Reads the card's record on the engine thread: the wake slots of one stream (capture if it was
// opened, else playback) and the xrun events of both.
//
// Reading the ring: each poll() takes a snapshot of all slots between two reads of the stream's
// wakes_written counter (retried while the card writes); every slot that holds a boundary newer
// than the last one read is read with its seqlock. A record that was written (counted in
// wakes_written) but is no longer in the ring - overwritten by a newer lap, or torn - is counted
// in missed(): wakes() + missed() equals the records written, exactly once the card is idle and
// at least after every poll that saw no concurrent write.
class VcardReader {
 public:
  explicit VcardReader(const vcard::Shm* shm);

  void poll();

  static constexpr int kPlayback = 0;
  static constexpr int kCapture = 1;
  int stream() const { return stream_; }  // the stream whose wakes are read; -1 until known
  uint64_t wakes() const { return wakes_; }
  uint64_t missed() const { return missed_; }
  // Wake latency per boundary: wake_ns - ideal_ns in µs, rounded down.
  const Histogram& wake_latency_us() const { return latency_; }
  const std::vector<vcard::XrunEvent>& xrun_events(int stream) const { return xruns_[stream]; }
  uint64_t xruns_missed(int stream) const { return xruns_missed_[stream]; }

  // What the run records of the card: both streams and the wake latency.
  VcardCardRecord record() const;

 private:
  struct Wake {
    uint64_t boundary;
    int64_t ideal_ns, wake_ns;
  };
  void choose_stream();
  void poll_wakes();
  void poll_xruns(int stream);

  const vcard::Shm* shm_;
  int stream_ = -1;
  bool any_read_ = false;
  uint64_t next_boundary_ = 0;  // the oldest boundary not read yet (when any_read_)
  uint64_t wakes_ = 0, missed_ = 0;
  Histogram latency_;
  std::vector<Wake> scratch_;
  std::vector<vcard::XrunEvent> xruns_[2];
  uint64_t xruns_seen_[2] = {0, 0};
  uint64_t xruns_missed_[2] = {0, 0};
};

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/backend.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/card_info.hpp"
#include "engine/backend/pcm_holders.hpp"
#include "engine/backend/pipewire.hpp"
#include "engine/backend/vcard.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/install_layout.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/clock.hpp"

namespace xrunlab {

BackendSpec parse_backend(const std::string& text) {
  BackendSpec s;
  s.text = text;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool has_arg = colon != std::string::npos;
  auto bad = [&](const std::string& why) {
    return Error(ExitCode::kUsage, "--backend " + text + ": " + why);
  };
  if (kind == "dummy" || kind == "vcard") {
    if (has_arg) throw bad(kind + " takes no argument");
    s.kind = kind == "dummy" ? BackendSpec::Kind::kDummy : BackendSpec::Kind::kVcard;
  } else if (kind == "alsa") {
    if (has_arg && arg.empty()) throw bad("give a device after the colon, e.g. alsa:hw:0");
    s.kind = BackendSpec::Kind::kAlsa;
    s.device = arg;
  } else if (kind == "attach") {
    if (has_arg && arg.empty())
      throw bad("give a server name after the colon, e.g. attach:default");
    s.kind = BackendSpec::Kind::kAttach;
    s.device = arg;
  } else if (kind == "pipewire") {
    if (has_arg) throw bad("pipewire takes no argument (it starts a private PipeWire)");
    s.kind = BackendSpec::Kind::kPipewire;
  } else {
    throw bad("unknown backend; use vcard, dummy, alsa[:DEVICE], attach[:SERVER] or pipewire");
  }
  return s;
}

std::string default_backend(bool has_sound_card) {
  return has_sound_card ? "alsa" : "vcard";
}

namespace {

std::vector<std::string> alsa_driver_args(const std::string& device, const BackendSetup& s,
                                          int in_channels, int out_channels) {
  std::vector<std::string> a = {"-d", "alsa",
                                "-d", device,
                                "-r", std::to_string(s.rate),
                                "-p", std::to_string(s.frames),
                                "-n", std::to_string(s.nperiods)};
  if (in_channels > 0) a.insert(a.end(), {"-i", std::to_string(in_channels)});
  if (out_channels > 0) a.insert(a.end(), {"-o", std::to_string(out_channels)});
  return a;
}

// JACK's timer-driven dummy driver: no card at all; the reference is approximate.
class DummyBackend : public Backend {
 public:
  std::string name() const override { return "dummy"; }
  std::vector<std::string> driver_argv(const BackendSetup& s) const override {
    return {"-d", "dummy",
            "-r", std::to_string(s.rate),
            "-p", std::to_string(s.frames),
            "-C", std::to_string(s.ports),
            "-P", std::to_string(s.ports)};
  }
  ClientReference reference() const override { return ClientReference::kFrames; }
  std::string reference_text() const override {
    return "jack_frames_since_cycle_start (time since the dummy driver woke; approximate: "
           "the dummy driver sleeps a relative period, so its own lateness is not seen)";
  }
  std::string xrun_sources() const override {
    return "monitor xrun callbacks (client-late xruns) and jackd's log (JackTimedDriver and "
           "JackEngine lines)";
  }
  bool driver_xruns_reach_monitor() const override { return false; }
  BackendRecord describe() const override {
    BackendRecord b;
    b.name = "dummy";
    b.driver = "JACK dummy (timer)";
    b.reference = reference_text();
    return b;
  }
};

// The virtual ALSA card shipped with xrunlab (engine/wire/vcard_shared.hpp explains the grid).
class VcardBackend : public Backend {
 public:
  std::string name() const override { return "vcard"; }

  void check(const BackendSetup& s) override {
    spec_.plugin_path = vcard_plugin_path(s.exe_dir);
    if (spec_.plugin_path.empty()) {
      throw Error(ExitCode::kMissingProgram,
                  "--backend vcard: the card plug-in is at neither " +
                      vcard_plugin_places(s.exe_dir) +
                      "; rebuild or reinstall xrunlab (cmake --build build) or use "
                      "--backend dummy");
    }
  }
  void prepare(const BackendSetup& s) override {
    check(s);
    spec_.rate = s.rate;
    spec_.frames = s.frames;
    spec_.playback_channels = s.ports;
    spec_.capture_channels = s.ports + 1;  // the last one carries the period marker
    spec_.clock_channel = s.ports + 1;
    spec_.shm_name = vcard_shm_name(s.server_name);
    shm_.emplace(VcardShm::create(spec_.shm_name, s.rate, s.frames));
    config_path_ = s.run_dir + "/vcard-asound.conf";
    write_file_atomic(config_path_, alsa_config_text(spec_));
    reader_.emplace(shm_->shm());
  }
  std::vector<std::string> driver_argv(const BackendSetup& s) const override {
    return alsa_driver_args(spec_.pcm_name, s, spec_.capture_channels, spec_.playback_channels);
  }
  std::vector<std::pair<std::string, std::string>> server_env() const override {
    // alsa-lib reads only this file: the user's ~/.asoundrc and /etc stay out of it.
    return {{"ALSA_CONFIG_PATH", config_path_}};
  }
  bool server_verbose() const override { return true; }
  ClientReference reference() const override { return ClientReference::kCard; }
  std::string reference_text() const override {
    return "vcard period boundary (exact: the card's timer deadline for the interrupt whose data "
           "the cycle processes, identified by the period marker; CLOCK_MONOTONIC)";
  }
  bool reference_exact() const override { return true; }
  double reference_resolution_us(uint32_t) const override { return 1; }
  std::string xrun_sources() const override {
    return "the card's own xrun record (shared memory), monitor xrun callbacks, jackd's log "
           "(ALSA 'xrun of at least' lines, whose durations are meaningless on ioplug, and "
           "JackEngine lines)";
  }
  void add_client_args(ClientArgs& a) const override {
    a.clock_port = true;
    a.card_shm = spec_.shm_name;
  }
  std::string clock_port(const BackendSetup&) const override {
    return fmt::format("system:capture_{}", spec_.clock_channel);
  }
  void poll() override {
    if (reader_) reader_->poll();
  }
  void set_window(uint64_t t0_us, uint64_t end_us) override {
    // JACK time is CLOCK_MONOTONIC_RAW, the card's CLOCK_MONOTONIC: map with an offset sampled
    // now (both clocks read back to back; NTP slewing between the two is far below a period).
    const int64_t offset = mono_minus_raw_ns();
    window_t0_ns_ = static_cast<int64_t>(t0_us) * 1000 + offset;
    window_end_ns_ = end_us == 0 ? INT64_MAX : static_cast<int64_t>(end_us) * 1000 + offset;
  }
  const vcard::Shm* card_record() const override { return shm_ ? shm_->shm() : nullptr; }
  std::optional<uint64_t> card_xruns_in_window() const override {
    if (!reader_) return std::nullopt;
    // Both streams of one stall are one xrun for JACK (it restarts both): events detected
    // within half a period of each other are merged.
    std::vector<int64_t> times;
    for (int stream = 0; stream < 2; ++stream) {
      for (const vcard::XrunEvent& e : reader_->xrun_events(stream)) {
        if (e.detected_ns >= window_t0_ns_ && e.detected_ns < window_end_ns_) {
          times.push_back(e.detected_ns);
        }
      }
    }
    std::sort(times.begin(), times.end());
    const int64_t half_period =
        static_cast<int64_t>(uint64_t{spec_.frames} * 500000000u / spec_.rate);
    uint64_t n = 0;
    for (size_t i = 0; i < times.size(); ++i) {
      if (i == 0 || times[i] - times[i - 1] > half_period) ++n;
    }
    return n;
  }
  BackendRecord describe() const override {
    BackendRecord b;
    b.name = "vcard";
    b.driver = "JACK alsa driver on the xrunlab ioplug card";
    b.reference = reference_text();
    b.reference_exact = true;
    VcardBackendRecord& v = b.vcard.emplace();
    v.pcm = spec_.pcm_name;
    v.plugin = spec_.plugin_path;
    v.alsa_config = config_path_;
    v.shm = spec_.shm_name;
    v.capture_channels = spec_.capture_channels;
    v.playback_channels = spec_.playback_channels;
    v.clock_channel = spec_.clock_channel;
    v.clock =
        "CLOCK_MONOTONIC (timerfd); client entry times are read in the same clock for the delay";
    if (reader_) v.card = reader_->record();
    return b;
  }
  std::vector<std::string> warnings() const override {
    std::vector<std::string> w;
    if (reader_ && reader_->missed() > 0) {
      w.push_back(fmt::format("the card's wake record overflowed: {} period(s) not read",
                              reader_->missed()));
    }
    return w;
  }
  void cleanup() noexcept override {
    if (shm_) shm_->unlink();
  }

 private:
  VcardSpec spec_;
  std::optional<VcardShm> shm_;
  std::optional<VcardReader> reader_;
  std::string config_path_;
  int64_t window_t0_ns_ = 0, window_end_ns_ = INT64_MAX;
};

// A real ALSA card (or snd-dummy / snd-aloop), driven by JACK's ALSA driver.
class AlsaBackend : public Backend {
 public:
  explicit AlsaBackend(std::string device) : device_(std::move(device)) {}
  std::string name() const override { return "alsa:" + pcm_; }
  void check(const BackendSetup&) override {
    AlsaDevice d;
    try {
      d = resolve_alsa_device(device_, read_asound_cards());
    } catch (const Error& e) {
      throw Error(ExitCode::kDevice, std::string("--backend alsa: ") + e.what());
    }
    pcm_ = d.pcm;
    const std::string busy = pcm_busy_reason(pcm_);
    if (!busy.empty()) throw Error(ExitCode::kDevice, "--backend alsa: " + busy);
    info_ = collect_card_info(d);
  }
  std::vector<std::string> driver_argv(const BackendSetup& s) const override {
    return alsa_driver_args(pcm_, s, 0, 0);
  }
  bool server_verbose() const override { return true; }
  ClientReference reference() const override { return ClientReference::kDll; }
  std::string reference_text() const override {
    return "jack_get_cycle_times current_usecs (JACK's DLL estimate of the card's interrupt; "
           "good in steady state, disturbed for a few cycles after each xrun)";
  }
  std::string xrun_sources() const override {
    return "monitor xrun callbacks (driver and client-late xruns) and jackd's log (ALSA "
           "'xrun of at least' lines and JackEngine lines)";
  }
  BackendRecord describe() const override {
    BackendRecord b;
    b.name = name();
    b.driver = "JACK alsa driver";
    b.reference = reference_text();
    AlsaBackendRecord& a = b.alsa.emplace();
    a.device = device_.empty() ? "(first card)" : device_;
    a.pcm = pcm_;
    a.card = info_;
    return b;
  }

 private:
  std::string device_;
  std::string pcm_;
  std::optional<AlsaCardInfo> info_;  // nullopt until check() resolved the device
};

// Measure under the user's running JACK2 or PipeWire-JACK server: no jackd is launched.
class AttachBackend : public Backend {
 public:
  explicit AttachBackend(std::string server) : server_(std::move(server)) {}
  std::string name() const override { return "attach"; }
  bool launches_server() const override { return false; }
  std::string server_name(const BackendSetup&) const override { return attached_name(); }
  std::vector<std::string> driver_argv(const BackendSetup&) const override { return {}; }
  ClientReference reference() const override { return ClientReference::kDll; }
  std::string reference_text() const override {
    return "jack_get_cycle_times current_usecs (the attached server's DLL estimate; not "
           "checked against the card)";
  }
  std::string xrun_sources() const override {
    return "monitor xrun callbacks only (the server's log is not ours; PipeWire's JACK sends at "
           "most one xrun callback per cycle, so several late clients count once)";
  }
  // The user's hardware ports are left alone: the chain runs between our clients only.
  bool wire_system_ports() const override { return false; }
  BackendRecord describe() const override {
    BackendRecord b;
    b.name = "attach";
    b.reference = reference_text();
    b.attach.emplace().server = attached_name();
    return b;
  }

 private:
  std::string attached_name() const {
    if (!server_.empty()) return server_;
    const char* env = std::getenv("JACK_DEFAULT_SERVER");
    return env != nullptr && *env != '\0' ? env : "default";
  }
  std::string server_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendSpec& spec) {
  switch (spec.kind) {
    case BackendSpec::Kind::kDummy:
      return std::make_unique<DummyBackend>();
    case BackendSpec::Kind::kVcard:
      return std::make_unique<VcardBackend>();
    case BackendSpec::Kind::kAlsa:
      return std::make_unique<AlsaBackend>(spec.device);
    case BackendSpec::Kind::kAttach:
      return std::make_unique<AttachBackend>(spec.device);
    case BackendSpec::Kind::kPipewire:
      return make_pipewire_backend();
  }
  return nullptr;
}

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The sound card behind a run (`--backend`). Everything that depends on it lives behind this
// interface: whether jackd is launched and with which driver arguments and environment, which
// period-start reference the clients measure against (and how exact it is), which port carries
// the card's period marker, what the card itself records, and what jackd's log lines mean.
// The rest of the engine does not branch on the backend.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/result/backend_record.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {

struct BackendSpec {
  enum class Kind { kDummy, kVcard, kAlsa, kAttach, kPipewire };
  Kind kind = Kind::kVcard;
  std::string device;  // alsa: the ALSA PCM ("" = the first card); attach: the server name
  std::string text;    // as given on the command line
};

// "dummy", "vcard", "alsa", "alsa:DEVICE", "attach", "attach:SERVER", "pipewire". Throws
// Error(kUsage).
BackendSpec parse_backend(const std::string& text);

// What `--backend` means when it is not given: vcard without a sound card, alsa with one.
std::string default_backend(bool has_sound_card);

// What the run knows when the backend is set up.
struct BackendSetup {
  std::string run_dir;
  std::string server_name;  // the private name (unused by attach)
  std::string exe_dir;      // where the xrunlab binary lives (the card plugin is in ../lib)
  uint32_t rate = 48000;
  uint32_t frames = 64;
  int ports = 4;
  int nperiods = 2;
  int server_priority = 70;  // the server's realtime priority (0 = none), as jackd -P
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // as run.json and the summary show it

  // False for attach: the server is the user's, already running; never started or stopped.
  virtual bool launches_server() const { return true; }
  // The server to connect to: the private name, or the attached server's.
  virtual std::string server_name(const BackendSetup& s) const { return s.server_name; }

  // Before anything is created (no run folder yet): is the device there and free, is the card
  // plugin built? Throws Error naming what is wrong.
  virtual void check(const BackendSetup& s) { (void)s; }
  // Before jackd starts: create the card (its configuration, its record). Throws Error.
  virtual void prepare(const BackendSetup& s) { (void)s; }
  // The server program's name, for messages and its log file (<name>.log in the run folder).
  virtual std::string server_program() const { return "jackd"; }
  // A server other than jackd: its whole argv (empty = jackd with driver_argv()).
  virtual std::vector<std::string> server_argv(const BackendSetup& s) const {
    (void)s;
    return {};
  }
  // jackd's driver arguments, from "-d" on.
  virtual std::vector<std::string> driver_argv(const BackendSetup& s) const = 0;
  // The launched server accepts clients and the policy is applied to it: read what it runs.
  virtual void server_started(pid_t pid) { (void)pid; }
  // The run's scheduling label when the backend knows the server's threads better than the
  // policy's targets (read, not assumed); "" = the policy's own label. `clients` is the
  // clients' target, e.g. "SCHED_FIFO 65".
  virtual std::string scheduling_label(const std::string& clients) const {
    (void)clients;
    return "";
  }
  // Extra environment for jackd (the card's private ALSA configuration).
  virtual std::vector<std::pair<std::string, std::string>> server_env() const { return {}; }
  // Whether the server's libjack makes each client's thread realtime on its own (PipeWire's
  // loads module-rt in every client), so that even --priority 0 gives the clients a target
  // (SCHED_OTHER nice 0) to apply.
  virtual bool libjack_makes_clients_realtime() const { return false; }
  // jackd -v: the ALSA driver prints its xrun lines only then.
  virtual bool server_verbose() const { return false; }

  // How a client computes "when did this period start", and why each backend has the one it
  // has (docs/architecture.md, The period-start reference).
  virtual ClientReference reference() const = 0;
  virtual std::string reference_text() const = 0;  // for run.json and summary.txt
  virtual bool reference_exact() const { return false; }
  virtual double reference_resolution_us(uint32_t rate) const { return 1e6 / rate; }
  // What counts xruns on this backend, for run.json.
  virtual std::string xrun_sources() const = 0;
  // Whether driver xruns reach the monitor's xrun callback (ALSA driver: yes; JACK's dummy
  // driver only logs them, so they are added from jackd's log instead).
  virtual bool driver_xruns_reach_monitor() const { return true; }
  // The measurement window in JACK time (CLOCK_MONOTONIC_RAW µs); end 0 while it is open.
  virtual void set_window(uint64_t t0_us, uint64_t end_us) {
    (void)t0_us;
    (void)end_us;
  }
  // The card's shared-memory record (vcard only; nullptr elsewhere), for the cycle table's
  // reader: the interrupt and jackd's wake-up of every boundary. Valid until cleanup().
  virtual const vcard::Shm* card_record() const { return nullptr; }
  // The card's own xrun count inside the window (nullopt: no card record on this backend).
  virtual std::optional<uint64_t> card_xruns_in_window() const { return std::nullopt; }

  // Arguments every client gets (e.g. the card's clock input and record).
  virtual void add_client_args(ClientArgs& a) const { (void)a; }
  // The server port carrying the card's period marker ("" = none); each client's "clock"
  // input is connected to it.
  virtual std::string clock_port(const BackendSetup& s) const {
    (void)s;
    return "";
  }
  // Whether the chain is connected to the server's system:capture/playback ports.
  virtual bool wire_system_ports() const { return true; }

  // Called about every 100 ms while the run is live: read what the card recorded.
  virtual void poll() {}
  // What the run records of the backend (run.json's "backend").
  virtual BackendRecord describe() const = 0;
  // Problems the backend noticed (shown as run warnings).
  virtual std::vector<std::string> warnings() const { return {}; }
  // Removes what prepare() created. Idempotent; runs on every exit path.
  virtual void cleanup() noexcept {}
};

std::unique_ptr<Backend> make_backend(const BackendSpec& spec);

}  // namespace xrunlab

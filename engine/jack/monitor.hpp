// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The engine's own JACK client: waits for the server, wires the graph, reads JACK's DSP load
// and counts xrun events. It has no process callback of its own: libjack starts no realtime
// thread for it and JACK2 keeps it out of the cycle (it is activated for the xrun
// notifications), so its memory is not locked (monitor.cpp, NoMemoryLocking).
#include <jack/jack.h>
#include <jack/statistics.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/jack/xrun_dedup.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

class Monitor {
 public:
  Monitor() = default;
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;
  ~Monitor();

  // Retries jack_client_open (never starting a server) until it succeeds, `alive()` turns
  // false (jackd exited) or the timeout passes. Returns "" on success, else why not.
  // A name that is taken is reported at once, not retried (JACK status JackNameNotUnique, or
  // JackServerError and the server has a client of that name: JACK2 1.9.21's answer).
  // `name` should be unique on the machine, not only on the server: libjack names the client's
  // notification socket /dev/shm/jack_<name>_<uid>_0, so two clients of one name on two servers
  // at once take each other's socket.
  std::string connect(const std::string& server, std::chrono::milliseconds timeout,
                      const std::function<bool()>& alive, const std::string& name);
  std::string activate(double period_us);
  // Deactivates (unless the server is gone or `server_stopped`) and closes the client.
  void close(bool server_stopped = false);
  // The engine stops the server now: libjack's complaints about its vanished socket ("Cannot
  // read socket", "Server is not running") are expected, and no longer printed.
  static void server_stopping();

  jack_client_t* client() const { return client_; }
  uint32_t rate() const;
  uint32_t frames() const;
  uint64_t now_us() const { return jack_get_time(); }
  float cpu_load() const;
  bool server_gone() const { return server_gone_; }

  // Connects a -> b; "" on success, else the reason.
  std::string connect_ports(const std::string& a, const std::string& b);
  // Full names of the ports connected to `port`.
  std::vector<std::string> connections(const std::string& port) const;
  bool port_exists(const std::string& port) const;
  // Is `from` connected to `to`? Read from JACK's shared graph (no server request).
  bool connected(const std::string& from, const std::string& to) const;
  // What the server says about itself (for --backend attach, where it is not ours): rate,
  // frames, realtime, its JACK library version, its physical ports; nullopt when not connected.
  std::optional<ServerSettings> server_settings() const;

  // Xrun events since `since_us` (window start); thread-safe snapshot.
  void set_window_start(uint64_t t0_us);
  XrunCounts xrun_snapshot() const;
  uint64_t events_total() const;

  static constexpr size_t kMaxEventsKept = kXrunEventsKept;  // the result's bound (result.hpp)

  // Every xrun callback of the window as it arrived (not kept in run.json: counted against the
  // cycle table, engine/result/xrun_ledger.hpp). The run takes them as it goes
  // (take_callbacks): only those since the last take wait here, at most kMaxCallbacksKept.
  using Callback = XrunCallback;
  static constexpr size_t kMaxCallbacksKept = size_t{1} << 21;
  // Appends the callbacks since the last take to `into` and forgets them; `cut`: some were
  // dropped (more than kMaxCallbacksKept between two takes).
  void take_callbacks(std::vector<Callback>& into, bool* cut);
  // The newest callback's arrival (jack_get_time), taken or not; nullopt before the first.
  std::optional<uint64_t> last_callback_us() const;

 private:
  static int on_xrun(void* arg);
  static void on_shutdown(void* arg);

  jack_client_t* client_ = nullptr;
  mutable std::mutex mu_;
  XrunDedup dedup_{0};
  uint64_t t0_us_ = 0;
  bool window_started_ = false;
  XrunCounts counts_;
  std::vector<Callback> callbacks_;
  bool callbacks_cut_ = false;
  std::optional<uint64_t> last_callback_us_;
  std::atomic<bool> server_gone_{false};
};

}  // namespace xrunlab

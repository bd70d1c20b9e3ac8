// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/monitor.hpp"

#include <fmt/format.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

namespace xrunlab {

Monitor::~Monitor() {
  close();
}

namespace {
// libjack's own messages: silent while we poll for the server (each failed attempt prints
// several lines), then forwarded to stderr with a prefix.
void jack_silent(const char*) {}
void jack_forward(const char* msg) {
  std::fprintf(stderr, "xrunlab: jack: %s\n", msg);
}

// Has the server a client called `name`? Asked through a short-lived client of another name,
// as unique as `name` (libjack's notification sockets are named after the client only).
bool client_name_taken(const std::string& server, const std::string& name) {
  const std::string probe_name = name + "-probe";
  jack_client_t* probe = jack_client_open(
      probe_name.c_str(), static_cast<jack_options_t>(JackNoStartServer | JackServerName), nullptr,
      server.c_str());
  if (probe == nullptr) return false;
  char* uuid = jack_get_uuid_for_client_name(probe, name.c_str());
  const bool taken = uuid != nullptr;
  if (uuid != nullptr) jack_free(uuid);
  jack_client_close(probe);
  return taken;
}
// libjack mlocks every JACK segment a client attaches, the graph segment too (38 MB plus 34 KB per
// port: 116 MB at 253 x 4 ports), and mlock faults every page of it in. The monitor has no
// process callback: libjack gives it no realtime thread and JACK2 keeps it out of the graph, so
// nothing of it runs in the cycle, and its locked copy of the graph only made the engine's RSS
// (and peak RSS) carry pages that jackd and the clients' process threads use; a page the monitor
// reads later (a port's name, a connection) is mapped when read. So while the monitor opens, the
// engine's RLIMIT_MEMLOCK is at most kOpenLockLimit and the opening thread has no CAP_IPC_LOCK:
// libjack's mlock of the graph fails (ENOMEM; its message falls in the silence of the connect
// loop) and maps nothing. The limit is not 0: libjack maps its futexes locked and fails to open
// when it cannot (EPERM). The DSP clients keep libjack's locking, as any JACK client does. The
// limit is process-wide: nothing else of the engine locks memory or starts a process while the
// monitor opens (jackd runs already, the clients start after).
class NoMemoryLocking {
 public:
  // The kernel's default limit: room for libjack's futexes and control segments (a few pages
  // each), far below the smallest graph segment (38 MB).
  static constexpr rlim_t kOpenLockLimit = rlim_t{8} << 20;

  NoMemoryLocking() {
    if (::getrlimit(RLIMIT_MEMLOCK, &saved_) != 0 || saved_.rlim_cur <= kOpenLockLimit) return;
    rlimit lower = saved_;
    lower.rlim_cur = kOpenLockLimit;
    changed_ = ::setrlimit(RLIMIT_MEMLOCK, &lower) == 0;
  }
  ~NoMemoryLocking() {
    if (changed_) ::setrlimit(RLIMIT_MEMLOCK, &saved_);
  }
  NoMemoryLocking(const NoMemoryLocking&) = delete;
  NoMemoryLocking& operator=(const NoMemoryLocking&) = delete;

  // Takes CAP_IPC_LOCK out of the calling thread's effective set (capabilities are per thread;
  // the permitted set keeps it). For a thread that only opens the monitor.
  static void drop_ipc_lock_in_this_thread() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (::syscall(SYS_capget, &header, data) != 0) return;
    data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
    ::syscall(SYS_capset, &header, data);
  }

 private:
  rlimit saved_{};
  bool changed_ = false;
};

// jack_client_open can wait for ever: inside it libjack opens JACK2's metadata database (a
// Berkeley DB environment in /dev/shm), whose locks a program killed there never releases. So it
// runs on a thread of its own, and is abandoned (with its thread, until we exit) when it has not
// returned within `wait`. Returns false then; else true with the client (or nullptr) and status.
constexpr std::chrono::seconds kOpenGrace{2};  // an attempt near the deadline gets this long

bool open_within(const std::string& server, const std::string& name,
                 std::chrono::steady_clock::duration wait, jack_client_t** client,
                 jack_status_t* status) {
  struct Attempt {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    jack_client_t* client = nullptr;
    jack_status_t status{};
  };
  auto a = std::make_shared<Attempt>();
  NoMemoryLocking no_locking;
  std::thread([a, server, name] {
    NoMemoryLocking::drop_ipc_lock_in_this_thread();
    jack_status_t st{};
    jack_client_t* c = jack_client_open(
        name.c_str(),
        static_cast<jack_options_t>(JackNoStartServer | JackServerName | JackUseExactName), &st,
        server.c_str());
    std::lock_guard<std::mutex> lock(a->m);
    a->client = c;
    a->status = st;
    a->done = true;
    a->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(a->m);
  if (!a->cv.wait_for(lock, wait, [&] { return a->done; })) return false;
  *client = a->client;
  *status = a->status;
  return true;
}

}  // namespace

std::string Monitor::connect(const std::string& server, std::chrono::milliseconds timeout,
                             const std::function<bool()>& alive, const std::string& name) {
  jack_set_error_function(jack_silent);
  jack_set_info_function(jack_silent);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  jack_status_t status{};
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    const auto wait = std::max<std::chrono::steady_clock::duration>(deadline - now, kOpenGrace);
    if (!open_within(server, name, wait, &client_, &status)) {
      return fmt::format(
          "jack_client_open did not return within {:.1f} s: JACK's metadata database "
          "/dev/shm/jack_db-{} is probably locked by a JACK program that was killed inside it; "
          "stop every JACK program of this user, remove that folder and retry",
          std::chrono::duration<double>(wait).count(), ::getuid());
    }
    if (client_ != nullptr) break;
    // JACK2 1.9.21 refuses a taken exact name with JackFailure | JackServerError, not
    // JackNameNotUnique: a server that answered but refused is asked about the name.
    if ((status & JackNameNotUnique) != 0 ||
        ((status & JackServerError) != 0 && client_name_taken(server, name))) {
      return "the server already has a client named '" + name + "'";
    }
    if (!alive()) return "jackd exited before accepting clients";
    if (std::chrono::steady_clock::now() >= deadline) {
      return "jackd did not accept clients within " +
             std::to_string(static_cast<double>(timeout.count()) / 1000.0).substr(0, 4) + " s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  jack_set_error_function(jack_forward);
  jack_on_shutdown(client_, on_shutdown, this);
  return "";
}

std::string Monitor::activate(double period_us) {
  // A burst of one cycle's notifications arrives well within half a period.
  dedup_ = XrunDedup(static_cast<int64_t>(period_us / 2));
  jack_set_xrun_callback(client_, on_xrun, this);
  if (jack_activate(client_) != 0) return "cannot activate the monitor client";
  return "";
}

void Monitor::server_stopping() {
  jack_set_error_function(jack_silent);
}

void Monitor::close(bool server_stopped) {
  if (client_ != nullptr) {
    if (!server_gone_ && !server_stopped) jack_deactivate(client_);
    jack_client_close(client_);
    client_ = nullptr;
  }
}

uint32_t Monitor::rate() const {
  return jack_get_sample_rate(client_);
}
uint32_t Monitor::frames() const {
  return jack_get_buffer_size(client_);
}
float Monitor::cpu_load() const {
  return jack_cpu_load(client_);
}

std::string Monitor::connect_ports(const std::string& a, const std::string& b) {
  const int rc = jack_connect(client_, a.c_str(), b.c_str());
  if (rc == 0 || rc == EEXIST) return "";
  return "cannot connect " + a + " -> " + b + " (jack_connect returned " + std::to_string(rc) + ")";
}

bool Monitor::connected(const std::string& from, const std::string& to) const {
  jack_port_t* p = jack_port_by_name(client_, from.c_str());
  return p != nullptr && jack_port_connected_to(p, to.c_str()) != 0;
}

std::vector<std::string> Monitor::connections(const std::string& port) const {
  std::vector<std::string> out;
  jack_port_t* p = jack_port_by_name(client_, port.c_str());
  if (p == nullptr) return out;
  const char** names = jack_port_get_all_connections(client_, p);
  if (names == nullptr) return out;
  for (const char** n = names; *n != nullptr; ++n) out.emplace_back(*n);
  jack_free(names);
  return out;
}

void Monitor::set_window_start(uint64_t t0_us) {
  std::lock_guard<std::mutex> lock(mu_);
  t0_us_ = t0_us;
  window_started_ = true;
}

XrunCounts Monitor::xrun_snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

void Monitor::take_callbacks(std::vector<Callback>& into, bool* cut) {
  std::vector<Callback> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cut != nullptr) *cut = callbacks_cut_;
    taken.swap(callbacks_);
  }
  into.insert(into.end(), taken.begin(), taken.end());
}

std::optional<uint64_t> Monitor::last_callback_us() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_callback_us_;
}

uint64_t Monitor::events_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_.monitor_events;
}

// Runs on JACK's notification thread (not the realtime thread): a mutex is fine here.
int Monitor::on_xrun(void* arg) {
  auto* self = static_cast<Monitor*>(arg);
  const uint64_t now = jack_get_time();
  const uint32_t frame = jack_last_frame_time(self->client_);
  std::lock_guard<std::mutex> lock(self->mu_);
  if (!self->window_started_ || now < self->t0_us_) return 0;
  self->last_callback_us_ = now;
  if (self->callbacks_.size() < kMaxCallbacksKept) {
    self->callbacks_.push_back({now, frame});
  } else {
    self->callbacks_cut_ = true;
  }
  const bool is_new = self->dedup_.add(frame, static_cast<int64_t>(now));
  self->counts_.monitor_events = self->dedup_.events();
  self->counts_.monitor_callbacks = self->dedup_.callbacks();
  if (is_new && self->counts_.events.size() < kMaxEventsKept) {
    self->counts_.events.push_back({static_cast<double>(now - self->t0_us_) / 1e6, frame, 1});
  } else if (!is_new && !self->counts_.events.empty()) {
    ++self->counts_.events.back().callbacks;
  }
  return 0;
}

void Monitor::on_shutdown(void* arg) {
  static_cast<Monitor*>(arg)->server_gone_ = true;
}

}  // namespace xrunlab

namespace xrunlab {

bool Monitor::port_exists(const std::string& port) const {
  return client_ != nullptr && jack_port_by_name(client_, port.c_str()) != nullptr;
}

std::optional<ServerSettings> Monitor::server_settings() const {
  if (client_ == nullptr) return std::nullopt;
  ServerSettings s;
  s.rate_hz = jack_get_sample_rate(client_);
  s.frames = jack_get_buffer_size(client_);
  s.realtime = jack_is_realtime(client_) != 0;
  s.max_delayed_usecs = jack_get_max_delayed_usecs(client_);
  // The libjack this process loaded: JACK2's, or PipeWire's when run under pw-jack.
  s.jack_library_version = jack_get_version_string();
  if (const char** ports = jack_get_ports(client_, nullptr, nullptr, JackPortIsPhysical)) {
    for (const char** p = ports; *p != nullptr; ++p) s.physical_ports.emplace_back(*p);
    jack_free(ports);
  }
  return s;
}

}  // namespace xrunlab

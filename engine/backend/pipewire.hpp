// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --backend pipewire: a private, headless PipeWire daemon (no D-Bus, no session manager) with
// its Dummy-Driver, started from a configuration file that xrunlab writes into the run folder,
// with its own runtime folder (PIPEWIRE_RUNTIME_DIR, XDG_RUNTIME_DIR) and its own socket name
// (the run's private server name), so a user's PipeWire or JACK is never touched. The clients
// and the engine's monitor reach it through PipeWire's libjack: use_pipewire_jack (below)
// re-executes xrunlab once with LD_LIBRARY_PATH led by PipeWire's JACK folder, as pw-jack does
// (docs/architecture.md, PipeWire headless).
// Everything here but the backend itself is pure or reads /proc, and is unit-tested in
// tests/backend/pipewire_test.cpp. Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/backend_record.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {

class Backend;

struct PipewireConfig {
  std::string core_name;  // the socket's name in the runtime folder = the JACK server name
  uint32_t rate = 48000;
  uint32_t quantum = 256;  // frames; min = max = this, so no client can change it
  int rt_priority = 70;    // libpipewire-module-rt's rt.prio; 0 = the module is not loaded
};

// The daemon's whole configuration (SPA-JSON, as pipewire -c reads it): support.dbus = false,
// the clock fixed at `rate` and `quantum`, the modules a JACK client needs (rt unless
// rt_priority is 0, protocol-native, metadata, spa-node-factory, client-node, adapter,
// link-factory, access) and one Dummy-Driver (support.node.driver).
std::string pipewire_config_text(const PipewireConfig& c);

// The path of the mapped library whose file name starts with `name_prefix` (e.g.
// "libjack.so") in a /proc/PID/maps image; nullopt when none is mapped.
std::optional<std::string> mapped_library(const std::string& maps, const std::string& name_prefix);

// Whether a libjack path is PipeWire's (".../pipewire-0.3/jack/libjack.so...").
bool is_pipewire_libjack(const std::string& path);

// PipeWire's JACK folder beside JACK2's libjack (pw-jack's LD_LIBRARY_PATH):
// "/usr/lib/x86_64-linux-gnu/libjack.so.0.1.0" -> "/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack".
std::string pipewire_jack_dir_beside(const std::string& libjack_path);

// The environment variable set when xrunlab re-executes itself for --backend pipewire (its
// value is PipeWire's JACK folder); a second re-execution is never tried.
inline constexpr const char* kPipewireJackEnv = "XRUNLAB_PIPEWIRE_JACK";

// For `run --backend pipewire`, before anything else runs: returns when this process already
// uses PipeWire's libjack; otherwise re-executes /proc/self/exe with `argv` and
// LD_LIBRARY_PATH led by PipeWire's JACK folder (never returns then). Throws
// Error(kMissingProgram) when PipeWire's JACK library is not installed or still not loaded
// after the re-execution.
void use_pipewire_jack(char** argv);

// "Linked with libpipewire 0.3.65" (pipewire --version) -> "0.3.65"; nullopt without one.
std::optional<std::string> parse_pipewire_version(const std::string& text);

// The daemon's threads as the kernel has them. The data-loop threads are every thread of the
// daemon but its main thread (PipeWire 0.3.65 does not name them: their comm is the process's).
struct PipewireThreads {
  pid_t pid = 0;
  std::vector<ThreadSched> data_loop;
  std::string why;  // why none could be read ("" when read)
};
PipewireThreads read_pipewire_threads(pid_t pid);

// What the run records of the data-loop threads (none when none were read).
std::vector<PipewireThreadRecord> pipewire_thread_records(const PipewireThreads& t);

// What the summary says of the daemon, only as read: "PipeWire data loop (pid 42, tid 43):
// SCHED_FIFO 70", "... SCHED_OTHER nice -11", or "PipeWire data loop: unknown (why)".
std::string describe_pipewire_threads(const PipewireThreads& t);

// Runtime folders of earlier runs (/tmp/xrunlab-pipewire-xrunlab-PID-N.XXXXXX) whose engine
// PID is gone: removed when they are folders of this user (remove_owned_tree: anyone can make
// one of that name first); their names returned. One line per folder left is appended to *left.
std::vector<std::string> remove_stale_pipewire_dirs(const std::string& tmp_dir,
                                                    std::vector<std::string>* left = nullptr);

std::unique_ptr<Backend> make_pipewire_backend();

}  // namespace xrunlab

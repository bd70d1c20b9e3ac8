// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --backend attach: the user's server as the kernel shows it, since xrunlab neither starts it
// nor sets its scheduling. Its pid comes from JACK2's server registry (the entry of its name in
// /dev/shm/jack-shm-registry), its threads' classes and priorities from /proc. A server that
// has no entry there (PipeWire's JACK keeps none) is reported as unknown, never assumed.
// Non-realtime: read once by the engine before the measurement.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/wire/thread_sched.hpp"

namespace xrunlab {

struct AttachedServer {
  std::string name;
  std::optional<pid_t> pid;             // from the registry; nullopt: not found (see why)
  std::vector<ThreadSched> rt_threads;  // its SCHED_FIFO / SCHED_RR threads, highest first
  std::string why;                      // why pid is unknown or its threads unread
};

// Reads the server `name`'s registry entry from `registry_path` and its realtime threads.
AttachedServer read_attached_server(
    const std::string& name, const std::string& registry_path = "/dev/shm/jack-shm-registry");

// What the label says of the server, e.g. "attached server 'x' (pid 42): SCHED_FIFO 70 (2
// realtime threads, highest shown)", "attached server 'x' (pid 42): no realtime thread",
// "attached server 'x': threads unknown (not in JACK2's server registry ...)".
std::string describe_attached_server(const AttachedServer& s);

// The run's scheduling label under --backend attach: what xrunlab applies to its own clients,
// and what the server was found to be. `clients` is the clients' target, e.g. "SCHED_FIFO 65".
std::string attached_scheduling_label(const std::string& clients, const AttachedServer& s);

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How xrunlab starts the real JACK2 server: the argv for jackd (pure, tested) and the names.
#include <cstdint>
#include <string>
#include <vector>

namespace xrunlab {

struct ServerSpec {
  std::string jackd = "jackd";
  std::string name;   // private server name (-n)
  int priority = 70;  // -P; 0 = not realtime (no -R)
  int clients = 14;
  int ports = 4;                    // per client
  bool verbose = false;             // -v (the ALSA driver prints its xrun lines only then)
  std::vector<std::string> driver;  // the backend's driver arguments, from "-d" on
};

// What went wrong when jackd was stopped (SIGTERM, then SIGKILL after the grace): "" when it
// exited by itself (any status) or of the SIGTERM; else one line saying how it died and what it
// may have left (a jackd that dies while closing leaves its shared memory and JACK's metadata
// database, which the next run's start-up removes). `wait_status` as waitpid gives it;
// `grace_ms` the time it had between SIGTERM and SIGKILL. Pure.
std::string jackd_stop_problem(int wait_status, int grace_ms = 1000);

// A server name no other run or user server has: xrunlab-<pid>-<counter>.
std::string private_server_name();

// Ports the run needs (clients x (2P + clock), the card's 2P + clock; the monitor has none)
// with 16 to spare, at least 64; jackd's graph segment scales with it and every DSP client
// mlocks it (docs/architecture.md, The graph segment). 253 clients x 4 ports need 2302; a run
// needing more than JACK2's PORT_NUM_MAX of 4096 is refused (engine/run/run_options.cpp).
int port_max_for(int clients, int ports);
// JACK2's PORT_NUM_MAX: jackd refuses a larger -p.
inline constexpr int kJackPortMax = 4096;

std::vector<std::string> jackd_argv(const ServerSpec& spec);

}  // namespace xrunlab

// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Wiring the run's chain (engine/run/graph.hpp) through its clients, and waiting until the graph
// holds every wanted connection. Every client makes the connections into its own ports (the
// tail also those to the card's playback), all clients at once: JACK2 reorders its graph (a
// notification round trip to every client) once per cycle in which connections arrived, so one
// connection at a time from the monitor cost a reorder each: 7.5 minutes for 253 clients x 4
// ports on a 2-core VM. Then each reads the connections of its own ports back and reports them:
// the monitor does not look ports up by name, which scans the graph's every port (34 KB each)
// and so maps the whole segment into the engine (libjack's mlock is kept from it: monitor.cpp).
// Non-realtime: the run's own thread.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "engine/run/client_fleet.hpp"
#include "engine/run/graph.hpp"
#include "engine/run/live_result.hpp"

namespace xrunlab {

// Wires `g` (its clients are the fleet's, in chain order) and returns the graph as the clients
// reported it, every wanted connection in it. `port_exists` asks the server about a port;
// `server_ended` says why the server is gone ("" while it runs). Throws Error: a client that
// failed or ended (kClientsFailed, at once), a server that ended (kServerFailed), connections
// missing at the deadline (15 s + 20 ms per connection; kClientsFailed) or a stop request
// (kInterrupted).
std::vector<Connection> wire_chain(const GraphSpec& g,
                                   const std::function<bool(const std::string&)>& port_exists,
                                   ClientFleet& fleet, LiveResult& live,
                                   const std::function<std::string()>& server_ended,
                                   const std::atomic<bool>& stop);

}  // namespace xrunlab

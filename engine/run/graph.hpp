// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run's graph: system:capture -> c1 -> c2 -> ... -> cN -> system:playback on every port, and
// the card's period marker to each client's clock input. What to connect is a pure function
// (tested without JACK); the clients make the connections into their own ports
// (engine/run/wiring.cpp hands them out) and read the connections of their ports back.
// Non-realtime.
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace xrunlab {

using Connection = std::pair<std::string, std::string>;  // output port -> input port

struct GraphSpec {
  std::vector<std::string> clients;  // JACK client names, in chain order
  int ports = 0;
  bool system_ports = true;  // connect the chain to system:capture_P / system:playback_P
  std::string clock_port;    // the card's marker output ("" = none)
};

// Every connection, in the order they are made. A system port for which `exists` is false (a
// card with fewer channels than --ports) is left out: that chain starts or ends unconnected.
std::vector<Connection> chain_connections(const GraphSpec& g,
                                          const std::function<bool(const std::string&)>& exists);

// The input ports whose connections describe the graph (read back after wiring).
std::vector<std::string> graph_inputs(const GraphSpec& g);

// Which of `clients` (JACK client names) makes the connection from -> to: the owner of `to`,
// else of `from` (the tail's connection to the card's playback). Throws Error(kClientsFailed)
// when neither port is one of theirs.
size_t connection_owner(const std::vector<std::string>& clients, const std::string& from,
                        const std::string& to);

// The graph as JACK has it, from what the clients read back of their own ports after wiring:
// for each of graph_inputs(g) in order, the outputs connected to it, in the order reported,
// each once. Complete when every client reported after making its connections: a client's
// inputs are connected by that client, the card's playback by the tail (connection_owner).
std::vector<Connection> graph_from_reports(const GraphSpec& g,
                                           const std::vector<std::vector<Connection>>& reports);

}  // namespace xrunlab

#pragma once
// The run's graph: system:capture -> c1 -> c2 -> ... -> cN -> system:playback on every port, and
// the card's period marker to each client's clock input. What to connect is a pure function
// (tested without JACK); the monitor client makes the connections and reads the graph back.
// Non-realtime.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace xrunlab {

class Monitor;

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

// Makes chain_connections() through the monitor, then reads the graph back from JACK: what the
// server has, not what was asked. Throws Error(kClientsFailed) naming a connection JACK refused.
std::vector<Connection> wire_graph(Monitor& monitor, const GraphSpec& g);

}  // namespace xrunlab

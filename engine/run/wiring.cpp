// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/wiring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "engine/base/errors.hpp"

namespace xrunlab {

using std::chrono::milliseconds;

std::vector<Connection> wire_chain(const GraphSpec& g,
                                   const std::function<bool(const std::string&)>& port_exists,
                                   ClientFleet& fleet, LiveResult& live,
                                   const std::function<std::string()>& server_ended,
                                   const std::atomic<bool>& stop) {
  const std::vector<Connection> wanted = chain_connections(g, port_exists);
  std::vector<std::string> commands(g.clients.size());
  for (const auto& [from, to] : wanted) {
    const size_t owner = connection_owner(g.clients, from, to);
    commands[owner] += "connect " + from + " " + to + "\n";
  }
  for (std::string& c : commands) c += "report-connections\n";
  fleet.send_each(commands);
  const auto deadline = std::chrono::steady_clock::now() +
                        milliseconds(15000 + 20 * static_cast<int64_t>(wanted.size()));
  // A connection jack_connect has made reaches the graph clients read at the server's next cycle
  // (JACK2 switches its graph state there), so a report can miss one its client made a moment
  // before: when all clients reported and a wanted connection is missing, they are asked again
  // (each request gets one reply, so none is stale), until the deadline.
  int rounds = 0;
  while (true) {
    std::string failed, waiting;
    size_t reported = 0;
    std::vector<std::vector<Connection>> reports;
    live.with([&](const RunResult& r) {
      for (const ClientResult& c : r.client_results) {
        if (!c.error.empty() && failed.empty()) failed = c.name + ": " + c.error;
        if (c.connections) {
          ++reported;
        } else if (waiting.empty()) {
          waiting = c.name;
        }
      }
      if (reported == r.client_results.size()) {
        for (const ClientResult& c : r.client_results) reports.push_back(*c.connections);
      }
    });
    if (!failed.empty()) {
      if (const std::string gone = server_end_within(server_ended); !gone.empty()) {
        throw Error(ExitCode::kServerFailed, gone);
      }
      throw Error(ExitCode::kClientsFailed, failed);
    }
    const bool timed_out = std::chrono::steady_clock::now() >= deadline;
    if (waiting.empty()) {
      ++rounds;
      std::vector<Connection> graph = graph_from_reports(g, reports);
      const std::set<Connection> have(graph.begin(), graph.end());
      const auto missing = std::find_if(wanted.begin(), wanted.end(),
                                        [&](const Connection& c) { return have.count(c) == 0; });
      if (missing == wanted.end()) return graph;
      if (timed_out || stop.load()) {
        const auto made = std::count_if(wanted.begin(), wanted.end(),
                                        [&](const Connection& c) { return have.count(c) != 0; });
        throw Error(stop.load() ? ExitCode::kInterrupted : ExitCode::kClientsFailed,
                    fmt::format("only {} of {} connections made (the first missing: {} -> {}): "
                                "the clients read their ports back without it {} time{}",
                                made, wanted.size(), missing->first, missing->second, rounds,
                                rounds == 1 ? "" : "s"));
      }
      live.with([&](RunResult& r) {
        for (ClientResult& c : r.client_results) c.connections.reset();
      });
      fleet.send_each(std::vector<std::string>(g.clients.size(), "report-connections\n"));
      std::this_thread::sleep_for(milliseconds(20));
      continue;
    }
    if (const std::string gone = server_ended(); !gone.empty()) {
      throw Error(ExitCode::kServerFailed, gone);
    }
    // A client that died here never reports: said at once, not at the deadline.
    if (const std::string ended = fleet.first_ended(); !ended.empty()) {
      if (const std::string gone = server_end_within(server_ended); !gone.empty()) {
        throw Error(ExitCode::kServerFailed, gone);
      }
      throw Error(ExitCode::kClientsFailed,
                  fmt::format("client {} while the clients made their connections", ended));
    }
    if (stop.load()) {
      throw Error(ExitCode::kInterrupted,
                  fmt::format("only {} of {} clients had made their connections before the "
                              "interrupt",
                              reported, g.clients.size()));
    }
    if (timed_out) {
      throw Error(ExitCode::kClientsFailed,
                  fmt::format("only {} of {} clients made their connections in time (the next: "
                              "{})",
                              reported, g.clients.size(), waiting));
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
}

}  // namespace xrunlab

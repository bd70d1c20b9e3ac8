// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

std::string port(const std::string& client, const char* kind, int p) {
  return fmt::format("{}:{}_{}", client, kind, p);
}

}  // namespace

std::vector<Connection> chain_connections(const GraphSpec& g,
                                          const std::function<bool(const std::string&)>& exists) {
  std::vector<Connection> out;
  for (int p = 1; p <= g.ports; ++p) {
    std::string from = fmt::format("system:capture_{}", p);
    if (!g.system_ports || !exists(from)) from.clear();
    for (const std::string& c : g.clients) {
      if (!from.empty()) out.emplace_back(from, port(c, "in", p));
      from = port(c, "out", p);
    }
    const std::string to = fmt::format("system:playback_{}", p);
    if (g.system_ports && exists(to)) out.emplace_back(from, to);
  }
  if (!g.clock_port.empty()) {
    for (const std::string& c : g.clients) out.emplace_back(g.clock_port, c + ":clock");
  }
  return out;
}

std::vector<std::string> graph_inputs(const GraphSpec& g) {
  std::vector<std::string> inputs;
  for (const std::string& c : g.clients) {
    for (int p = 1; p <= g.ports; ++p) inputs.push_back(port(c, "in", p));
    if (!g.clock_port.empty()) inputs.push_back(c + ":clock");
  }
  for (int p = 1; p <= g.ports; ++p) inputs.push_back(fmt::format("system:playback_{}", p));
  return inputs;
}

size_t connection_owner(const std::vector<std::string>& clients, const std::string& from,
                        const std::string& to) {
  const auto index_of = [&](const std::string& port) -> std::optional<size_t> {
    const std::string client = port.substr(0, port.find(':'));
    for (size_t i = 0; i < clients.size(); ++i) {
      if (clients[i] == client) return i;
    }
    return std::nullopt;
  };
  if (const auto i = index_of(to)) return *i;
  if (const auto i = index_of(from)) return *i;
  throw Error(ExitCode::kClientsFailed, "no client of the run owns " + from + " or " + to);
}

std::vector<Connection> graph_from_reports(const GraphSpec& g,
                                           const std::vector<std::vector<Connection>>& reports) {
  std::map<std::string, std::vector<std::string>> into;  // input -> outputs, as reported
  for (const std::vector<Connection>& report : reports) {
    for (const auto& [from, to] : report) {
      std::vector<std::string>& froms = into[to];
      if (std::find(froms.begin(), froms.end(), from) == froms.end()) froms.push_back(from);
    }
  }
  std::vector<Connection> graph;
  for (const std::string& in : graph_inputs(g)) {
    const auto it = into.find(in);
    if (it == into.end()) continue;
    for (const std::string& from : it->second) graph.emplace_back(from, in);
  }
  return graph;
}

}  // namespace xrunlab

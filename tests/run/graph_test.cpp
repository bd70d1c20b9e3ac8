#include "engine/run/graph.hpp"

#include <gtest/gtest.h>

#include <set>

namespace xrunlab {
namespace {

using V = std::vector<Connection>;

TEST(ChainConnections, CaptureThroughEveryClientToPlaybackOnEachPort) {
  GraphSpec g;
  g.clients = {"a", "b"};
  g.ports = 2;
  const V got = chain_connections(g, [](const std::string&) { return true; });
  EXPECT_EQ(got, (V{{"system:capture_1", "a:in_1"},
                    {"a:out_1", "b:in_1"},
                    {"b:out_1", "system:playback_1"},
                    {"system:capture_2", "a:in_2"},
                    {"a:out_2", "b:in_2"},
                    {"b:out_2", "system:playback_2"}}));
}

TEST(ChainConnections, MissingSystemPortsLeaveThatChainOpen) {
  GraphSpec g;
  g.clients = {"a", "b"};
  g.ports = 2;
  const std::set<std::string> card = {"system:capture_1", "system:playback_1"};
  const V got = chain_connections(g, [&](const std::string& p) { return card.count(p) > 0; });
  EXPECT_EQ(got, (V{{"system:capture_1", "a:in_1"},
                    {"a:out_1", "b:in_1"},
                    {"b:out_1", "system:playback_1"},
                    {"a:out_2", "b:in_2"}}));
}

TEST(ChainConnections, WithoutSystemPortsAndWithTheCardsClock) {
  GraphSpec g;
  g.clients = {"a", "b", "c"};
  g.ports = 1;
  g.system_ports = false;  // attach: the user's hardware is never connected
  g.clock_port = "system:capture_2";
  const V got = chain_connections(g, [](const std::string&) { return true; });
  EXPECT_EQ(got, (V{{"a:out_1", "b:in_1"},
                    {"b:out_1", "c:in_1"},
                    {"system:capture_2", "a:clock"},
                    {"system:capture_2", "b:clock"},
                    {"system:capture_2", "c:clock"}}));
}

TEST(GraphInputs, EveryClientInputThenPlayback) {
  GraphSpec g;
  g.clients = {"a", "b"};
  g.ports = 2;
  g.clock_port = "x:marker";
  EXPECT_EQ(graph_inputs(g),
            (std::vector<std::string>{"a:in_1", "a:in_2", "a:clock", "b:in_1", "b:in_2", "b:clock",
                                      "system:playback_1", "system:playback_2"}));
}

}  // namespace
}  // namespace xrunlab

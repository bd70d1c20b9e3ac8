// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/graph.hpp"

#include <gtest/gtest.h>

#include <set>

#include "engine/base/errors.hpp"

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

// Each client reports its own ports' connections: an input's by its owner, a hop between two
// clients by both, the card's playback by the tail. The graph lists every connection once, by
// input in graph_inputs' order, and leaves out what is not an input of the graph.
TEST(GraphFromReports, EachConnectionOnceByInputInTheGraphsOrder) {
  GraphSpec g;
  g.clients = {"a", "b"};
  g.ports = 1;
  g.clock_port = "x:marker";
  const std::vector<std::vector<Connection>> reports = {
      {{"system:capture_1", "a:in_1"}, {"x:marker", "a:clock"}, {"a:out_1", "b:in_1"}},
      {{"a:out_1", "b:in_1"},
       {"x:marker", "b:clock"},
       {"b:out_1", "system:playback_1"},
       {"b:out_1", "somewhere:else"}}};
  EXPECT_EQ(graph_from_reports(g, reports),
            (std::vector<Connection>{{"system:capture_1", "a:in_1"},
                                     {"x:marker", "a:clock"},
                                     {"a:out_1", "b:in_1"},
                                     {"x:marker", "b:clock"},
                                     {"b:out_1", "system:playback_1"}}));
  // Two sources into one input keep the order they were reported in.
  EXPECT_EQ(graph_from_reports(g, {{{"z:out", "b:in_1"}, {"a:out_1", "b:in_1"}}}),
            (std::vector<Connection>{{"z:out", "b:in_1"}, {"a:out_1", "b:in_1"}}));
  EXPECT_TRUE(graph_from_reports(g, {{}, {}}).empty());
}

}  // namespace

TEST(ConnectionOwner, TheClientWhoseInputItIsElseTheOneWhoseOutput) {
  const std::vector<std::string> clients = {"xrunlab-c01", "xrunlab-c02"};
  EXPECT_EQ(connection_owner(clients, "system:capture_1", "xrunlab-c01:in_1"), 0u);
  EXPECT_EQ(connection_owner(clients, "xrunlab-c01:out_1", "xrunlab-c02:in_1"), 1u);
  EXPECT_EQ(connection_owner(clients, "xrunlab-c02:out_1", "system:playback_1"), 1u);
  EXPECT_EQ(connection_owner(clients, "vcard:clock", "xrunlab-c02:clock"), 1u);
  EXPECT_THROW(connection_owner(clients, "system:capture_1", "system:playback_1"), Error);
  // A name that only starts like one of ours is not ours.
  EXPECT_THROW(connection_owner(clients, "system:capture_1", "xrunlab-c011:in_1"), Error);
}

}  // namespace xrunlab

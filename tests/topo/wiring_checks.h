// Properties every generated topology must have, checked from the Topology's links alone (an
// independent BFS, not Routing's): every port wired once and symmetric, host ports first, and
// minimal routes that are exactly the shortest paths.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <set>
#include <vector>

#include "topo/routing.h"
#include "topo/stats.h"
#include "topo/topology.h"

namespace spraylab::topo {

// Each node's ports 0 .. degree − 1 each hold one link whose far end points back at that port;
// a link never joins a node to itself; a host has exactly one link; on a switch the host ports
// come first (topology.h).
inline void expect_wired_once_and_symmetric(const Topology& t) {
  std::vector<uint32_t> uses(t.links().size(), 0);
  for (NodeId n = 0; n < t.nodes().size(); ++n) {
    const Node& node = t.node(n);
    bool fabric_seen = false;
    for (PortId p = 0; p < node.links.size(); ++p) {
      ++uses[node.links[p]];
      const PortRef far = t.peer(n, p);
      ASSERT_NE(far.node, n) << node.name << " port " << p << " loops back";
      EXPECT_EQ(t.peer(far.node, far.port), (PortRef{n, p})) << node.name << " port " << p;
      const bool to_host = t.node(far.node).kind == NodeKind::kHost;
      if (node.kind == NodeKind::kSwitch) {
        EXPECT_FALSE(to_host && fabric_seen)
            << node.name << ": host port " << p << " after a fabric port";
        fabric_seen = fabric_seen || !to_host;
      }
    }
    if (node.kind == NodeKind::kHost) {
      EXPECT_EQ(node.links.size(), 1u) << node.name;
    }
  }
  for (size_t l = 0; l < uses.size(); ++l) {
    EXPECT_EQ(uses[l], 2u) << "link " << l;
  }
}

// Hop distances from `from` to every switch over switch-to-switch links (UINT32_MAX: none).
inline std::vector<uint32_t> switch_bfs(const Topology& t, NodeId from) {
  std::vector<uint32_t> dist(t.nodes().size(), UINT32_MAX);
  std::deque<NodeId> queue{from};
  dist[from] = 0;
  while (!queue.empty()) {
    const NodeId v = queue.front();
    queue.pop_front();
    for (PortId p = 0; p < t.degree(v); ++p) {
      const NodeId w = t.peer(v, p).node;
      if (t.node(w).kind != NodeKind::kSwitch || dist[w] != UINT32_MAX) continue;
      dist[w] = dist[v] + 1;
      queue.push_back(w);
    }
  }
  return dist;
}

// For every destination leaf t (so for every pair of hosts, each under a leaf) and every switch
// c: Routing's distance is the BFS distance, and its minimal next hops (the ECMP group the
// fabric forwards on, switch_tables.cpp) are exactly the ports to a neighbour one hop closer,
// never empty before t. Walking any of them from a source leaf therefore reaches t in exactly
// the BFS distance; the walk over first choices is checked too.
inline void expect_minimal_routes(const Topology& t) {
  const Routing r(t);
  const SwitchGraph& g = r.graph();
  ASSERT_TRUE(r.connected());
  for (NodeId h : t.hosts()) {
    EXPECT_TRUE(r.is_leaf(g.index_of(t.peer(h, 0).node))) << t.node(h).name;
  }
  for (uint32_t dst : r.leaves()) {
    const std::vector<uint32_t> dist = switch_bfs(t, g.node_of(dst));
    for (uint32_t c = 0; c < g.size(); ++c) {
      const NodeId node = g.node_of(c);
      ASSERT_EQ(r.distance(c, dst), dist[node]);
      std::set<PortId> expected;
      for (PortId p = 0; p < t.degree(node); ++p) {
        const NodeId far = t.peer(node, p).node;
        if (t.node(far).kind == NodeKind::kSwitch && dist[far] + 1 == dist[node]) {
          expected.insert(p);
        }
      }
      std::set<PortId> got;
      for (const PolarizedHop& hop : r.minimal_hops(c, dst)) got.insert(hop.port);
      ASSERT_EQ(got, expected) << t.node(node).name << " toward " << t.node(g.node_of(dst)).name;
      ASSERT_EQ(got.empty(), c == dst) << t.node(node).name;
    }
    for (uint32_t src : r.leaves()) {
      uint32_t at = src, hops = 0;
      while (at != dst && hops <= dist[g.node_of(src)]) {
        at = r.minimal_hops(at, dst).front().next;
        ++hops;
      }
      ASSERT_EQ(at, dst);
      ASSERT_EQ(hops, dist[g.node_of(src)]);
    }
  }
}

// The paper's Eq. 2 and 3 (§2.2.4) hold as identities: M/S = Θ·A/2 and N/S = Θ·A/k.
inline void expect_cost_equations(const Stats& s) {
  EXPECT_NEAR(s.cost_links_per_host, s.capacity * s.avg_distance / 2, 1e-12);
  EXPECT_NEAR(s.cost_switches_per_host, s.capacity * s.avg_distance / s.avg_switch_degree, 1e-12);
  EXPECT_DOUBLE_EQ(s.avg_switch_degree, 2.0 * s.links / s.switches);
}

// Every pair of groups joined by the same number of switch links; `group_of` maps a switch's
// node id to its group. Returns that number (0 if some pair differs, after failing).
template <class GroupOf>
uint64_t links_per_group_pair(const Topology& t, uint32_t groups, GroupOf group_of) {
  std::vector<uint64_t> count(static_cast<size_t>(groups) * groups, 0);
  for (const Link& l : t.links()) {
    if (t.node(l.a.node).kind != NodeKind::kSwitch || t.node(l.b.node).kind != NodeKind::kSwitch)
      continue;
    const uint32_t ga = group_of(l.a.node), gb = group_of(l.b.node);
    if (ga != gb) {
      ++count[static_cast<size_t>(ga) * groups + gb];
      ++count[static_cast<size_t>(gb) * groups + ga];
    }
  }
  const uint64_t first = groups > 1 ? count[1] : 0;
  for (uint32_t a = 0; a < groups; ++a) {
    for (uint32_t b = 0; b < groups; ++b) {
      if (a == b) continue;
      EXPECT_EQ(count[static_cast<size_t>(a) * groups + b], first) << a << "-" << b;
    }
  }
  return first;
}

}  // namespace spraylab::topo

// The Dragonfly generator against its closed forms (Kim et al. 2008; MRLS paper §5, Table 2).
#include <gtest/gtest.h>

#include <string>

#include "tests/topo/wiring_checks.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

DragonflyParams df(uint32_t p, uint32_t a, uint32_t h, uint32_t groups = 0) {
  DragonflyParams d;
  d.hosts_per_router = p;
  d.routers_per_group = a;
  d.global_links_per_router = h;
  d.groups = groups;
  return d;
}

struct Case {
  DragonflyParams params;
  uint64_t g;  // the groups it should have
};

const Case kCases[] = {
    {df(1, 2, 1), 3},    {df(2, 4, 2), 9},    {df(3, 3, 2), 7},    {df(2, 4, 1), 5},
    {df(1, 4, 2, 2), 2}, {df(2, 4, 2, 5), 5}, {df(1, 3, 2, 4), 4}, {df(4, 8, 4), 33},
};

TEST(Dragonfly, CountsMatchTheClosedForms) {
  for (const Case& c : kCases) {
    const DragonflyParams& d = c.params;
    const uint64_t p = d.hosts_per_router, a = d.routers_per_group, h = d.global_links_per_router,
                   g = c.g;
    SCOPED_TRACE(::testing::Message() << "p=" << p << " a=" << a << " h=" << h << " g=" << g);
    const Topology t = dragonfly(d);
    const Stats s = compute_stats(Routing(t));
    EXPECT_EQ(s.kind, "dragonfly");
    EXPECT_EQ(s.hosts, p * a * g);
    EXPECT_EQ(s.switches, a * g);
    EXPECT_EQ(s.leaves, a * g);  // every router has hosts
    EXPECT_EQ(s.links, g * a * (a - 1) / 2 + g * a * h / 2);
    EXPECT_EQ(s.radix, p + a - 1 + h);
    for (NodeId n : t.switches()) EXPECT_EQ(t.degree(n), p + a - 1 + h) << t.node(n).name;
    // a·h / (g − 1) global links between every pair of groups.
    EXPECT_EQ(links_per_group_pair(t, static_cast<uint32_t>(g),
                                   [&](NodeId n) { return t.node(n).index / a; }),
              a * h / (g - 1));
    EXPECT_EQ(s.corners, 0u);  // not bipartite: no Polarized corner scan
    expect_cost_equations(s);
  }
}

TEST(Dragonfly, BalancedSizesHaveDiameterThree) {
  // Kim et al.: local, global, local. With g = a·h + 1 and a ≥ 2 some pair needs all three.
  for (const Case& c : kCases) {
    if (c.params.groups != 0) continue;
    const Stats s = compute_stats(Routing(dragonfly(c.params)));
    EXPECT_EQ(s.diameter, 3u) << "a=" << c.params.routers_per_group;
    EXPECT_EQ(s.diameter_all, 3u);
  }
}

TEST(Dragonfly, EveryPortIsWiredOnceAndSymmetric) {
  for (const Case& c : kCases) expect_wired_once_and_symmetric(dragonfly(c.params));
}

TEST(Dragonfly, MinimalRoutesAreTheShortestPathsBetweenEveryHostPair) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "g=" << c.g);
    expect_minimal_routes(dragonfly(c.params));
  }
}

TEST(Dragonfly, PortsAreHostsThenLocalThenGlobal) {
  // router0 of a p = 2, a = 4, h = 2 dragonfly: ports 0-1 hosts, 2-4 routers 1-3 of its group,
  // 5-6 other groups.
  const Topology t = dragonfly(df(2, 4, 2));
  const NodeId r0 = t.find("router0");
  for (PortId p = 0; p < 2; ++p) EXPECT_EQ(t.node(t.peer(r0, p).node).kind, NodeKind::kHost);
  for (PortId p = 2; p < 5; ++p) EXPECT_EQ(t.node(t.peer(r0, p).node).index, p - 1u);
  for (PortId p = 5; p < 7; ++p) EXPECT_NE(t.node(t.peer(r0, p).node).index / 4, 0u);
}

TEST(Dragonfly, TableTwoSizeCostsWhatThePaperSays) {
  // MRLS paper Table 2: DF(32, 16512), 129 groups: Cost_links 1.5, Cost_switches 0.125; §6.3
  // says "Cost_links ≈ 1.5" and Figure 7 "Cost_links ≤ 1.5". With p = h = 8 and a = 2h = 16 (the
  // canonical dragonfly, radix 31 of a 32-port switch) the exact link cost is
  // (15/2 + 8/2) / 8 = 1.4375.
  const Stats s = compute_stats(Routing(dragonfly(df(8, 16, 8))), false);
  EXPECT_EQ(s.hosts, 16512u);
  EXPECT_EQ(s.radix, 31u);
  EXPECT_DOUBLE_EQ(s.cost_links_per_host, 1.4375);
  EXPECT_LE(s.cost_links_per_host, 1.5);
  EXPECT_DOUBLE_EQ(s.cost_switches_per_host, 0.125);
  EXPECT_EQ(s.diameter, 3u);  // §6.3: "The DF networks feature a diameter of 3"
}

void expect_error(const DragonflyParams& d, const std::string& words) {
  try {
    dragonfly(d);
    ADD_FAILURE() << "expected a TopologyError with '" << words << "'";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Dragonfly, BadParametersGetAPreciseError) {
  expect_error(df(0, 4, 2), "must all be at least 1, got p = 0, a = 4, h = 2");
  expect_error(df(1, 0, 2), "got p = 1, a = 0, h = 2");
  expect_error(df(1, 4, 0), "got p = 1, a = 4, h = 0");
  expect_error(df(1, 4, 2, 10), "groups must be between 2 and a·h + 1 = 9");
  expect_error(
      df(1, 4, 2, 1),
      "groups must be between 2 and a·h + 1 = 9 (one global link per pair of groups), got 1");
  expect_error(df(1, 4, 2, 4), "groups - 1 = 3 must divide a·h = 8");
  expect_error(df(70000, 4, 2), "ports, more than the 65535 supported");
}

}  // namespace
}  // namespace spraylab::topo

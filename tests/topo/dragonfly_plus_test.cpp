// The Dragonfly+ generator against its closed forms (Shpiner et al. 2017; MRLS paper §5, Table 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/topo/wiring_checks.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

DragonflyPlusParams dfp(uint32_t leaves, uint32_t spines, uint32_t hosts, uint32_t h,
                        uint32_t groups = 0) {
  DragonflyPlusParams d;
  d.leaves_per_group = leaves;
  d.spines_per_group = spines;
  d.hosts_per_leaf = hosts;
  d.global_links_per_spine = h;
  d.groups = groups;
  return d;
}

struct Case {
  DragonflyPlusParams params;
  uint64_t g;
};

const Case kCases[] = {
    {dfp(2, 2, 2, 1), 3},    {dfp(4, 2, 2, 2), 5},    {dfp(2, 4, 2, 2, 5), 5},
    {dfp(3, 2, 1, 3, 4), 4}, {dfp(2, 3, 3, 1, 2), 2}, {dfp(4, 4, 4, 4), 17},
};

TEST(DragonflyPlus, CountsMatchTheClosedForms) {
  for (const Case& c : kCases) {
    const DragonflyPlusParams& d = c.params;
    const uint64_t l = d.leaves_per_group, sp = d.spines_per_group, p = d.hosts_per_leaf,
                   h = d.global_links_per_spine, g = c.g;
    SCOPED_TRACE(::testing::Message()
                 << "leaves=" << l << " spines=" << sp << " p=" << p << " h=" << h << " g=" << g);
    const Topology t = dragonfly_plus(d);
    const Stats s = compute_stats(Routing(t));
    EXPECT_EQ(s.kind, "dragonfly-plus");
    EXPECT_EQ(s.hosts, g * l * p);
    EXPECT_EQ(s.leaves, g * l);
    EXPECT_EQ(s.spines, g * sp);
    EXPECT_EQ(s.links, g * l * sp + g * sp * h / 2);
    EXPECT_EQ(s.radix, std::max(p + sp, l + h));
    for (NodeId n : t.switches()) {
      EXPECT_EQ(t.degree(n), t.node(n).level == 0 ? p + sp : l + h) << t.node(n).name;
    }
    // Leaf, spine, (global) spine, leaf; two hops inside a group.
    EXPECT_EQ(s.diameter, 3u);
    // The global trunking: spines·h / (g − 1) links between every pair of groups.
    EXPECT_EQ(links_per_group_pair(t, static_cast<uint32_t>(g),
                                   [&](NodeId n) {
                                     return t.node(n).index /
                                            static_cast<uint32_t>(t.node(n).level == 0 ? l : sp);
                                   }),
              sp * h / (g - 1));
    EXPECT_EQ(s.corners, 0u);  // spine-spine links: no Polarized corner scan
    expect_cost_equations(s);
  }
}

TEST(DragonflyPlus, EveryPortIsWiredOnceAndSymmetric) {
  for (const Case& c : kCases) expect_wired_once_and_symmetric(dragonfly_plus(c.params));
}

TEST(DragonflyPlus, MinimalRoutesAreTheShortestPathsBetweenEveryHostPair) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "g=" << c.g);
    expect_minimal_routes(dragonfly_plus(c.params));
  }
}

TEST(DragonflyPlus, LeavesLinkOnlyToTheSpinesOfTheirGroup) {
  const Topology t = dragonfly_plus(dfp(4, 2, 2, 2));  // 5 groups
  for (NodeId n : t.switches()) {
    if (t.node(n).level != 0) continue;
    for (PortId p = 2; p < t.degree(n); ++p) {
      const Node& far = t.node(t.peer(n, p).node);
      EXPECT_EQ(far.level, 1);
      EXPECT_EQ(far.index / 2, t.node(n).index / 4) << t.node(n).name << " - " << far.name;
    }
  }
}

TEST(DragonflyPlus, TableTwoSizeCostsWhatThePaperSays) {
  // MRLS paper Table 2: DF+(32, 16640), 65 groups, global trunking 4 (§5): Cost_links 1.5,
  // Cost_switches 0.127. Radix 32 with 16 hosts per leaf: 16 leaves and 16 spines per group,
  // 16 global links per spine (64 other groups × 4 / 16). Links: 65·(256 + 128) / 16640 = 1.5
  // exactly; switches 2080 / 16640 = 0.125, not Table 2's 0.127 (docs/topology.md).
  const Topology t = dragonfly_plus(dfp(16, 16, 16, 16, 65));
  const Stats s = compute_stats(Routing(t), false);
  EXPECT_EQ(s.hosts, 16640u);
  EXPECT_EQ(s.radix, 32u);
  EXPECT_DOUBLE_EQ(s.cost_links_per_host, 1.5);
  EXPECT_DOUBLE_EQ(s.cost_switches_per_host, 0.125);
  EXPECT_EQ(links_per_group_pair(t, 65, [&](NodeId n) { return t.node(n).index / 16; }), 4u);
}

void expect_error(const DragonflyPlusParams& d, const std::string& words) {
  try {
    dragonfly_plus(d);
    ADD_FAILURE() << "expected a TopologyError with '" << words << "'";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(DragonflyPlus, BadParametersGetAPreciseError) {
  expect_error(dfp(0, 2, 2, 1), "must all be at least 1, got 0, 2, 2, 1");
  expect_error(dfp(2, 2, 0, 1), "must all be at least 1, got 2, 2, 0, 1");
  expect_error(dfp(2, 2, 2, 0), "must all be at least 1, got 2, 2, 2, 0");
  expect_error(
      dfp(2, 4, 2, 2, 10),
      "groups must be between 2 and spines·h + 1 = 9 (one global link per pair of groups), "
      "got 10");
  expect_error(dfp(2, 4, 2, 2, 4), "groups - 1 = 3 must divide spines·h = 8");
}

}  // namespace
}  // namespace spraylab::topo

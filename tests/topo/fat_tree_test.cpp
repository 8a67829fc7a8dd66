#include <gtest/gtest.h>

#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

class ThreeLevelFatTree : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ThreeLevelFatTree, HasKCubedOverFourHostsAndFiveKSquaredOverFourSwitches) {
  const uint32_t k = GetParam();
  Topology t = fat_tree({.k = k, .levels = 3, .link = {}});
  EXPECT_EQ(t.hosts().size(), k * k * k / 4);
  EXPECT_EQ(t.switches().size(), 5 * k * k / 4);
  Routing r(t);
  Stats s = compute_stats(r);
  EXPECT_EQ(s.leaves, k * k / 2);
  EXPECT_EQ(s.links, k * k * k / 2);  // edge-agg and agg-core: k³/4 each
  EXPECT_EQ(s.radix, k);
  EXPECT_EQ(s.diameter, 4u);
  EXPECT_EQ(s.diameter_all, 4u);
  EXPECT_TRUE(s.connected);
}

INSTANTIATE_TEST_SUITE_P(PaperSizes, ThreeLevelFatTree, ::testing::Values(4u, 8u, 12u));

TEST(FatTree, TwoLevelsHasKLeavesOfKOverTwoHostsAndKOverTwoSpines) {
  Topology t = fat_tree({.k = 8, .levels = 2, .link = {}});
  EXPECT_EQ(t.hosts().size(), 32u);
  EXPECT_EQ(t.switches().size(), 12u);
  Stats s = compute_stats(Routing(t));
  EXPECT_EQ(s.leaves, 8u);
  EXPECT_EQ(s.diameter, 2u);
  EXPECT_DOUBLE_EQ(s.avg_distance, 2.0);
  EXPECT_DOUBLE_EQ(s.capacity, 2.0 * 32 / (32 * 2.0));  // full bisection: Θ = 1
}

TEST(FatTree, LeafPortsFaceHostsFirstThenUplinks) {
  Topology t = fat_tree({.k = 4, .levels = 3, .link = {}});
  for (NodeId leaf : t.leaves()) {
    ASSERT_EQ(t.degree(leaf), 4u);
    for (PortId p = 0; p < 4; ++p) {
      NodeKind far = t.node(t.peer(leaf, p).node).kind;
      EXPECT_EQ(far, p < 2 ? NodeKind::kHost : NodeKind::kSwitch) << "port " << p;
    }
  }
}

TEST(FatTree, MinimalHopsAreAllUplinksGoingUpAndOnePortGoingDown) {
  const uint32_t k = 8;
  Topology t = fat_tree({.k = k, .levels = 3, .link = {}});
  Routing r(t);
  const SwitchGraph& g = r.graph();
  const uint32_t edge0 = g.index_of(t.find("edge0"));
  const uint32_t edge1 = g.index_of(t.find("edge1"));                            // same pod
  const uint32_t edge_far = g.index_of(t.find("edge" + std::to_string(k / 2)));  // pod 1
  const uint32_t agg0 = g.index_of(t.find("agg0"));
  const uint32_t core0 = g.index_of(t.find("core0"));
  EXPECT_EQ(r.minimal_hops(edge0, edge_far).size(), k / 2);  // any aggregation
  EXPECT_EQ(r.minimal_hops(edge0, edge1).size(), k / 2);
  EXPECT_EQ(r.minimal_hops(agg0, edge_far).size(), k / 2);  // any of its cores
  EXPECT_EQ(r.minimal_hops(agg0, edge1).size(), 1u);        // straight down
  EXPECT_EQ(r.minimal_hops(core0, edge_far).size(), 1u);    // cores never choose
  EXPECT_TRUE(r.minimal_hops(edge0, edge0).empty());
}

TEST(FatTree, RejectsOddK) {
  EXPECT_THROW(fat_tree({.k = 5, .levels = 3, .link = {}}), TopologyError);
  EXPECT_THROW(fat_tree({.k = 4, .levels = 5, .link = {}}), TopologyError);  // 2, 3 or 4
}

// Checked before building: each of these would take minutes and gigabytes, or overflow a PortId.
TEST(Generators, RejectTooLargeBeforeBuilding) {
  EXPECT_THROW(fat_tree({.k = 1000, .levels = 3, .link = {}}), TopologyError);  // 250 M hosts
  EXPECT_THROW(fat_tree({.k = 4294967294u, .levels = 3, .link = {}}), TopologyError);  // ports
  EXPECT_THROW(leaf_spine({.leaves = 70000, .spines = 1, .hosts_per_leaf = 1, .link = {}}),
               TopologyError);  // a spine of 70000 ports
  EXPECT_THROW(leaf_spine({.leaves = 65536, .spines = 1, .hosts_per_leaf = 65, .link = {}}),
               TopologyError);  // 4.26 M hosts
  EXPECT_THROW(mrls({.leaves = 4194304, .uplinks = 1, .downlinks = 2, .link = {}}), TopologyError);
  try {
    fat_tree({.k = 1000, .levels = 3, .link = {}});
    ADD_FAILURE() << "a 250 M-host fat tree was accepted";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(), "fat-tree: 250000000 hosts, more than the 4194304 supported");
  }
  // k = 256 is within the limits (its 3 levels are the largest fat tree); 2 levels build quickly.
  EXPECT_EQ(fat_tree({.k = 256, .levels = 2, .link = {}}).hosts().size(), 32768u);
}

TEST(LeafSpine, EveryLeafReachesEverySpine) {
  Topology t = leaf_spine({.leaves = 4, .spines = 3, .hosts_per_leaf = 5, .link = {}});
  Routing r(t);
  Stats s = compute_stats(r);
  EXPECT_EQ(s.hosts, 20u);
  EXPECT_EQ(s.links, 12u);
  EXPECT_EQ(s.radix, 8u);
  EXPECT_EQ(s.uplinks, 3u);
  EXPECT_EQ(s.downlinks, 5u);
  EXPECT_EQ(s.diameter, 2u);
}

}  // namespace
}  // namespace spraylab::topo

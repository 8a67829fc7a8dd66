// load_balancer.upgrade (topo/upgrade.h): which switches each strategy upgrades, read from a file
// as a user writes it.
#include <gtest/gtest.h>

#include <string>

#include "conf/loader.h"
#include "topo/build.h"
#include "topo/upgrade.h"

namespace spraylab::topo {
namespace {

struct Count {
  uint32_t edge = 0, aggregation = 0, core = 0;
  std::vector<uint32_t> per_pod;  // edge and aggregation switches upgraded per pod
};

Count upgraded(const std::string& upgrade, uint64_t seed = 1) {
  const conf::Experiment e =
      conf::load_experiment_string("seed: " + std::to_string(seed) +
                                       "\ntopology: {generator: fat-tree, k: 8, levels: 3}\n"
                                       "load_balancer: {algorithm: ar, upgrade: " +
                                       upgrade + "}\n",
                                   "upgrade.yaml");
  const Topology t = build(e.topology, e.links);
  const std::vector<bool> up = upgraded_switches(*e.balancer.upgrade, t, e.seed);
  Count c;
  c.per_pod.assign(8, 0);
  for (NodeId n : t.switches()) {
    if (!up[n]) continue;
    const Node& node = t.node(n);
    if (node.level == 0) ++c.edge;
    if (node.level == 1) ++c.aggregation;
    if (node.level == 2) ++c.core;
    if (node.level < 2) ++c.per_pod[node.pod];
  }
  return c;
}

TEST(Upgrade, EachStrategyUpgradesExactlyHalfOfTheEdgeAndAggregationSwitches) {
  // k = 8: 32 edge and 32 aggregation switches in 8 pods; 16 cores never upgraded.
  const Count edge = upgraded("{strategy: edge, algorithm: pofan, pipe: 'ports:4'}");
  EXPECT_EQ(edge.edge, 32u);
  EXPECT_EQ(edge.aggregation, 0u);
  const Count aggregation = upgraded("{strategy: aggregation, algorithm: ofan}");
  EXPECT_EQ(aggregation.edge, 0u);
  EXPECT_EQ(aggregation.aggregation, 32u);
  const Count random = upgraded("{strategy: random, algorithm: ofan}");
  EXPECT_EQ(random.edge, 16u);
  EXPECT_EQ(random.aggregation, 16u);
  const Count pods = upgraded("{strategy: pods, algorithm: ofan}");
  EXPECT_EQ(pods.edge + pods.aggregation, 32u);
  for (uint32_t pod = 0; pod < 8; ++pod) {  // pods 0-3 whole, 4-7 not at all
    EXPECT_EQ(pods.per_pod[pod], pod < 4 ? 8u : 0u) << "pod " << pod;
  }
  for (const Count* c : {&edge, &aggregation, &random, &pods}) EXPECT_EQ(c->core, 0u);
}

TEST(Upgrade, FractionAndSeed) {
  const Count quarter = upgraded("{strategy: edge, fraction: 0.25, algorithm: ofan}");
  EXPECT_EQ(quarter.edge, 16u);
  EXPECT_EQ(quarter.aggregation, 0u);
  const Count most = upgraded("{strategy: edge, fraction: 0.75, algorithm: ofan}");
  EXPECT_EQ(most.edge, 32u);
  EXPECT_EQ(most.aggregation, 16u);
  // Another seed draws another random half, of the same size.
  const Count a = upgraded("{strategy: random, algorithm: ofan}", 1);
  const Count b = upgraded("{strategy: random, algorithm: ofan}", 2);
  EXPECT_EQ(b.edge, 16u);
  EXPECT_NE(a.per_pod, b.per_pod);
}

TEST(Upgrade, BadStrategyIsAnErrorAtItsPlace) {
  EXPECT_THROW(upgraded("{strategy: core, algorithm: ofan}"), std::exception);
  EXPECT_THROW(upgraded("{algorithm: ofan}"), std::exception);  // no strategy
  EXPECT_THROW(upgraded("{strategy: edge, algorithm: ofan, bands: 2}"), std::exception);
}

}  // namespace
}  // namespace spraylab::topo

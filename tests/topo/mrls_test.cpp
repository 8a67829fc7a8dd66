#include <gtest/gtest.h>

#include <set>

#include "tests/topo/mrls_params.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

// (leaf name, spine name) pairs in link order: the wiring.
std::vector<std::pair<std::string, std::string>> wiring(const Topology& t) {
  std::vector<std::pair<std::string, std::string>> w;
  for (const Link& l : t.links()) {
    if (t.node(l.b.node).kind == NodeKind::kSwitch) {
      w.emplace_back(t.node(l.a.node).name, t.node(l.b.node).name);
    }
  }
  return w;
}

TEST(Mrls, IsRegularSimpleAndConnected) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Topology t = mrls(params(40, 6, 6, seed));  // R = 12, N2 = 20
    Routing r(t);
    ASSERT_TRUE(r.connected());
    uint32_t leaves = 0, spines = 0;
    for (NodeId s : t.switches()) {
      const Node& n = t.node(s);
      std::set<NodeId> neighbours;
      uint32_t hosts = 0;
      for (PortId p = 0; p < n.links.size(); ++p) {
        NodeId far = t.peer(s, p).node;
        if (t.node(far).kind == NodeKind::kHost) {
          ++hosts;
        } else {
          EXPECT_NE(t.node(far).level, n.level) << "leaf-leaf or spine-spine link";
          EXPECT_TRUE(neighbours.insert(far).second) << n.name << " has a repeated link";
        }
      }
      if (n.level == 0) {
        ++leaves;
        EXPECT_EQ(neighbours.size(), 6u) << n.name;
        EXPECT_EQ(hosts, 6u) << n.name;
      } else {
        ++spines;
        EXPECT_EQ(neighbours.size(), 12u) << n.name;
        EXPECT_EQ(hosts, 0u);
      }
    }
    EXPECT_EQ(leaves, 40u);
    EXPECT_EQ(spines, 20u);
  }
}

TEST(Mrls, SameSeedSameWiringOtherSeedOtherWiring) {
  EXPECT_EQ(wiring(mrls(params(40, 6, 6, 7))), wiring(mrls(params(40, 6, 6, 7))));
  EXPECT_NE(wiring(mrls(params(40, 6, 6, 7))), wiring(mrls(params(40, 6, 6, 8))));
}

TEST(Mrls, PaperFigureTwoSizeHasDiameterFour) {
  // MRLS paper Figure 2: 14 leaves with 3 uplinks (R = 6, 7 spines).
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Topology t = mrls(params(14, 3, 3, seed));
    Stats s = compute_stats(Routing(t));
    EXPECT_EQ(s.spines, 7u);
    EXPECT_EQ(s.diameter, 4u) << "seed " << seed;
    EXPECT_EQ(s.corners, 0u);
  }
}

TEST(Mrls, ReproducesTableTwoCapacityAtElevenThousandHosts) {
  // MRLS paper Table 2: MRLS(36, 11052), u = d = 18 → Θ = 0.748, one link and 0.083 switches
  // per endpoint.
  Topology t = mrls(params(614, 18, 18, 1));
  Stats s = compute_stats(Routing(t), /*count_corners=*/false);
  EXPECT_EQ(s.hosts, 11052u);
  EXPECT_EQ(s.spines, 307u);
  EXPECT_NEAR(s.capacity, 0.748, 0.748 * 0.01);
  EXPECT_DOUBLE_EQ(s.cost_links_per_host, 1.0);
  EXPECT_NEAR(s.cost_switches_per_host, 0.083, 0.0005);
}

TEST(Mrls, RejectsSizesWithNoRegularWiring) {
  EXPECT_THROW(mrls(params(13, 3, 3, 1)), TopologyError);  // 39 stubs over radix 6
  EXPECT_THROW(mrls(params(4, 6, 2, 1)), TopologyError);   // 6 uplinks, 3 spines
}

TEST(Mrls, GivesUpWithAClearErrorWhenEveryDrawFails) {
  // Eight leaves of radix 4 (two uplinks) have a Polarized corner in every one of seed 3's
  // first four draws.
  MrlsParams p = params(8, 2, 2, 3);
  p.max_tries = 4;
  try {
    mrls(p);
    FAIL() << "expected a TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("4 draws"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Polarized corner"), std::string::npos) << e.what();
  }
}

TEST(Mrls, OneUplinkWithSeveralSpinesIsRefusedBeforeAnyDraw) {
  // Two leaves, one uplink each, one spine: always fine. Four leaves with one uplink and radix 2
  // make two disconnected pairs every time: said at once, not after max_tries draws.
  EXPECT_NO_THROW(mrls(params(2, 1, 1, 3)));
  MrlsParams p = params(4, 1, 1, 3);
  p.max_tries = 1'000'000;
  try {
    mrls(p);
    FAIL() << "expected a TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(),
                 "mrls: expected at least 2 uplinks per leaf with N2 = 2 spines: with one, each "
                 "leaf reaches one spine and the leaves form 2 islands whatever the wiring");
  }
}

}  // namespace
}  // namespace spraylab::topo

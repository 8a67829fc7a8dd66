// The MRLS paper's cost per endpoint (§2.2.4, Eq. 2-3) for every generator, against Table 2.
// Table 2's costs, "Cost_links / Cost_switches": MRLS(36, 11052) u = 18: 1 / 0.083; u = 21:
// 1.4 / 0.106; MRLS(36, 11664) u = 24: 2 / 0.139; MRLS(36, 104976) u = 18, 24, 27: 1 / 0.083,
// 2 / 0.139, 3 / 0.194; MRLS(32, 16640) u = 19: 1.462 / 0.122; OFT(36, 11052) q = 17: 1 / 0.083;
// FT(36, 11664) h = 2: 2 / 0.139; FT(36, 104976) 50 % populated: 3 / 0.222; DF+(32, 16640):
// 1.5 / 0.127; DF(32, 16512): 1.5 / 0.125. OFT, DF and DF+ are checked in their own tests.
#include <gtest/gtest.h>

#include "tests/topo/mrls_params.h"
#include "tests/topo/wiring_checks.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

Stats stats_of(const Topology& t) { return compute_stats(Routing(t), /*count_corners=*/false); }

TEST(Cost, EquationsTwoAndThreeHoldForEveryGenerator) {
  MrlsParams m = params(40, 6, 6, 1);
  DragonflyParams df;
  df.hosts_per_router = 2;
  df.routers_per_group = 4;
  df.global_links_per_router = 2;
  DragonflyPlusParams dfp;
  dfp.leaves_per_group = 4;
  dfp.spines_per_group = 2;
  dfp.hosts_per_leaf = 2;
  dfp.global_links_per_spine = 2;
  OftParams o;
  o.q = 3;
  o.hosts_per_leaf = 4;
  for (const Topology& t : {fat_tree({8, 2, {}}), fat_tree({8, 3, {}}), leaf_spine({6, 3, 4, {}}),
                            mrls(m), dragonfly(df), dragonfly_plus(dfp), oft(o)}) {
    SCOPED_TRACE(std::string(to_string(t.kind)));
    const Stats s = stats_of(t);
    EXPECT_GT(s.cost_links_per_host, 0);
    EXPECT_GT(s.cost_switches_per_host, 0);
    expect_cost_equations(s);
  }
}

TEST(Cost, FatTreeOfTableTwo) {
  // FT(36, 11664), h = 2: a 3-level k = 36 fat tree, 2 links and 0.139 switches per endpoint.
  const Stats s = stats_of(fat_tree({36, 3, {}}));
  EXPECT_EQ(s.hosts, 11664u);
  EXPECT_EQ(s.radix, 36u);
  EXPECT_DOUBLE_EQ(s.cost_links_per_host, 2.0);
  EXPECT_NEAR(s.cost_switches_per_host, 0.139, 0.0005);
}

TEST(Cost, MrlsOfTableTwoAtElevenAndSixteenThousandHosts) {
  // MRLS(36, 11664), u = 24, d = 12: 2 / 0.139.
  const Stats cost2 = stats_of(mrls(params(972, 24, 12, 1)));
  EXPECT_EQ(cost2.hosts, 11664u);
  EXPECT_DOUBLE_EQ(cost2.cost_links_per_host, 2.0);
  EXPECT_NEAR(cost2.cost_switches_per_host, 0.139, 0.0005);
  // MRLS(32, 16640), u = 19, d = 13: 1.462 / 0.122. The exact switch cost is 2040 / 16640 =
  // 0.1226, which Table 2 gives as 0.122 (cut, not rounded): within 0.001. docs/topology.md says
  // so.
  const Stats df_size = stats_of(mrls(params(1280, 19, 13, 1)));
  EXPECT_EQ(df_size.hosts, 16640u);
  EXPECT_EQ(df_size.radix, 32u);
  EXPECT_NEAR(df_size.cost_links_per_host, 1.462, 0.0005);
  EXPECT_NEAR(df_size.cost_switches_per_host, 0.122, 0.001);
}

TEST(Cost, MrlsCostPerEndpointDependsOnlyOnUplinksAndDownlinks) {
  // M/S = u/d and N/S = (1 + u/R)/d whatever N1, so Table 2's rows whose S is not a multiple of
  // d (u = 21: 11052 / 15) or too large to build in a unit test (104976) are checked at a small
  // N1 with their u and d: u = 21, d = 15: 1.4 / 0.106; u = 27, d = 9: 3 / 0.194;
  // u = 18, d = 18: 1 / 0.083.
  struct Row {
    uint32_t leaves, u, d;
    double links, switches;
  };
  for (const Row& row :
       {Row{120, 21, 15, 1.4, 0.106}, Row{96, 27, 9, 3.0, 0.194}, Row{96, 18, 18, 1.0, 0.083}}) {
    SCOPED_TRACE(::testing::Message() << "u=" << row.u << " d=" << row.d);
    const Stats s = stats_of(mrls(params(row.leaves, row.u, row.d, 1)));
    EXPECT_EQ(s.radix, 36u);
    EXPECT_NEAR(s.cost_links_per_host, row.links, 1e-12);
    EXPECT_NEAR(s.cost_switches_per_host, row.switches, 0.0005);
  }
}

}  // namespace
}  // namespace spraylab::topo

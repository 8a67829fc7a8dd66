// ρmax (topo/feasible_load.h) on fabrics small enough to work out by hand: each case's comment
// gives the busiest link's load at host load 1, as a multiple of the host line rate; ρmax is 1
// over it (and at most 1).
#include "topo/feasible_load.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "topo/generators.h"
#include "topo/routing.h"

namespace spraylab::topo {
namespace {

constexpr double kHost = 100e9;  // every host link; switch links the same unless a case says

// A topology with every switch-graph edge (a link direction) up at kHost, and ways to change one.
class Fabric {
 public:
  explicit Fabric(Topology t)
      : t_(std::move(t)), r_(t_), down_(r_.graph().edges(), false), rate_(down_.size(), kHost) {}

  // The edge from switch `a` to switch `b` (names).
  uint32_t edge(const std::string& a, const std::string& b) const {
    const SwitchGraph& g = r_.graph();
    const uint32_t from = g.index_of(t_.find(a)), to = g.index_of(t_.find(b));
    for (uint32_t e = g.begin(from); e < g.end(from); ++e) {
      if (g.neighbour(e) == to) return e;
    }
    ADD_FAILURE() << "no link " << a << "-" << b;
    return 0;
  }
  void down(const std::string& a, const std::string& b) { down_[edge(a, b)] = true; }
  void cut(const std::string& a, const std::string& b) {  // both directions
    down(a, b);
    down(b, a);
  }
  void rate(const std::string& a, const std::string& b, double bps) {
    rate_[edge(a, b)] = rate_[edge(b, a)] = bps;
  }
  uint32_t leaf(const std::string& name) const {
    return r_.leaf_rank(r_.graph().index_of(t_.find(name)));
  }
  double rho(const std::vector<LeafDemand>& demand, double host_peak = 1) const {
    return feasible_load(r_, down_, rate_, kHost, demand, host_peak);
  }

 private:
  Topology t_;
  Routing r_;
  std::vector<bool> down_;
  std::vector<double> rate_;
};

Topology two_leaves(uint32_t spines, uint32_t hosts) {
  return leaf_spine({.leaves = 2, .spines = spines, .hosts_per_leaf = hosts, .link = {}});
}

TEST(FeasibleLoad, APermutationWithoutFailuresRunsAtLineRate) {
  // 2 hosts a leaf send to the other leaf: 2 over 2 uplinks, 1 on each link.
  Fabric f(two_leaves(2, 2));
  const uint32_t a = f.leaf("leaf0"), b = f.leaf("leaf1");
  EXPECT_DOUBLE_EQ(f.rho({{a, b, 2}, {b, a, 2}}), 1.0);
}

TEST(FeasibleLoad, ALeafThatLosesOneOfThreeUplinksSendsOnTwo) {
  // 3 hosts' traffic, 3, over the 2 uplinks left: 1.5 each, ρ = 2/3. The other leaf's traffic to
  // it avoids the spine that lost the link (that spine no longer reaches it): also 3 over 2.
  Fabric f(two_leaves(3, 3));
  f.cut("leaf0", "spine0");
  const uint32_t a = f.leaf("leaf0"), b = f.leaf("leaf1");
  EXPECT_DOUBLE_EQ(f.rho({{a, b, 3}}), 2.0 / 3);
  EXPECT_DOUBLE_EQ(f.rho({{b, a, 3}}), 2.0 / 3);
}

TEST(FeasibleLoad, AHopThatNoLongerReachesTheDestinationIsWithdrawn) {
  // Only spine0 -> leaf0 is down. leaf1 -> leaf0: spine0 is one hop closer but reaches leaf0 no
  // more, so leaf1 sends its 3 on its two other uplinks: 1.5, ρ = 2/3. Sent to spine0 as well,
  // 1 a link, it would look like line rate and a third of it would be lost.
  Fabric f(two_leaves(3, 3));
  f.down("spine0", "leaf0");
  const uint32_t a = f.leaf("leaf0"), b = f.leaf("leaf1");
  EXPECT_DOUBLE_EQ(f.rho({{b, a, 3}}), 2.0 / 3);
  EXPECT_DOUBLE_EQ(f.rho({{a, b, 3}}), 1.0);  // leaf0 -> spine0 is up: 1 on each uplink
}

TEST(FeasibleLoad, ALinkCarriesItsLoadRelativeToItsOwnRate) {
  // leaf0-spine0 at half the host rate carries 1, twice what it can: ρ = 1/2.
  Fabric half(two_leaves(2, 2));
  half.rate("leaf0", "spine0", kHost / 2);
  const uint32_t a = half.leaf("leaf0"), b = half.leaf("leaf1");
  EXPECT_DOUBLE_EQ(half.rho({{a, b, 2}}), 0.5);
  // Uplinks at twice the host rate absorb a failure: 2 on the one left is its rate, ρ = 1; with
  // 4 hosts a leaf it is 4, twice its rate, ρ = 1/2.
  Fabric fast(two_leaves(2, 4));
  for (const char* leaf : {"leaf0", "leaf1"}) {
    for (const char* spine : {"spine0", "spine1"}) fast.rate(leaf, spine, 2 * kHost);
  }
  fast.cut("leaf0", "spine0");
  EXPECT_DOUBLE_EQ(fast.rho({{a, b, 2}}), 1.0);
  EXPECT_DOUBLE_EQ(fast.rho({{a, b, 4}}), 0.5);
}

TEST(FeasibleLoad, AHostLinkThatReceivesMoreThanItsRateLimitsTheLoad) {
  // An incast's receiver takes twice its line rate at load 1 (host_peak 2): ρ = 1/2 whatever the
  // fabric carries.
  Fabric f(two_leaves(2, 2));
  EXPECT_DOUBLE_EQ(f.rho({{f.leaf("leaf0"), f.leaf("leaf1"), 2}}, 2), 0.5);
}

TEST(FeasibleLoad, TrafficWithinALeafOrCutOffLoadsNoFabricLink) {
  // leaf0 -> leaf0 never enters the fabric; leaf0 -> leaf1 cannot arrive once every uplink of
  // leaf1 is down, at any rate, so it is left out: nothing limits, ρ = 1.
  Fabric f(two_leaves(2, 2));
  f.cut("leaf1", "spine0");
  f.cut("leaf1", "spine1");
  const uint32_t a = f.leaf("leaf0"), b = f.leaf("leaf1");
  EXPECT_DOUBLE_EQ(f.rho({{a, a, 10}, {a, b, 10}}), 1.0);
}

TEST(FeasibleLoad, AFatTreeEdgeThatLosesOneOfTwoUplinks) {
  // k = 4, three levels: edge0 (pod 0) has uplinks to agg0 and agg1. With edge0-agg0 cut, its two
  // hosts' traffic to pod 1 (edge2) takes agg1 alone: 2, ρ = 1/2 (tests/fabric
  // ofan_conditions_test.cpp's k = 4 case). Uncut, 1 on each: ρ = 1.
  Fabric f(fat_tree({.k = 4, .levels = 3, .link = {}}));
  const uint32_t a = f.leaf("edge0"), b = f.leaf("edge2");
  EXPECT_DOUBLE_EQ(f.rho({{a, b, 2}}), 1.0);
  f.cut("edge0", "agg0");
  EXPECT_DOUBLE_EQ(f.rho({{a, b, 2}}), 0.5);
  EXPECT_DOUBLE_EQ(f.rho({{b, a, 2}}), 0.5);  // and back: agg1 -> edge0 alone
}

}  // namespace
}  // namespace spraylab::topo

// The 4-level fat tree, whole and depopulated by pods (topo/fat_tree4.cpp; the MRLS paper's
// FT(36, 104976), 50 % populated, §6.2 and Table 2), against its closed forms. With h = k/2 and
// P pods: S = P·h³ hosts, N1 = P·h² edges, N = 3·P·h² + h³ switches, M = 3·P·h³ switch links
// (3 per host, Eq. 2), diameter 6 between pods (4 inside a pod, 2 inside a sub-pod), and the
// mean leaf distance A = (2(h − 1) + 4h(h − 1) + 6(P − 1)h²) / (P·h² − 1).
#include <gtest/gtest.h>

#include <string>

#include "tests/topo/wiring_checks.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

FatTreeParams four_levels(uint32_t k, uint32_t pods) {
  FatTreeParams p;
  p.k = k;
  p.levels = 4;
  p.pods = pods;
  return p;
}

struct Case {
  uint32_t k, pods;
};
constexpr Case kCases[] = {{4, 4}, {4, 2}, {6, 3}, {6, 1}, {8, 4}};

TEST(FatTree4, StatisticsMatchTheClosedForms) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "k=" << c.k << " pods=" << c.pods);
    const uint64_t h = c.k / 2, p = c.pods;
    const Stats s = compute_stats(Routing(fat_tree(four_levels(c.k, c.pods))), false);
    EXPECT_EQ(s.hosts, p * h * h * h);
    EXPECT_EQ(s.leaves, p * h * h);
    EXPECT_EQ(s.switches, 3 * p * h * h + h * h * h);
    EXPECT_EQ(s.links, 3 * p * h * h * h);
    EXPECT_EQ(s.radix, c.k);
    EXPECT_EQ(s.uplinks, h);
    EXPECT_EQ(s.downlinks, h);
    EXPECT_EQ(s.diameter, p > 1 ? 6u : 4u);
    EXPECT_EQ(s.diameter_all, 6u);
    const double a = static_cast<double>(2 * (h - 1) + 4 * h * (h - 1) + 6 * (p - 1) * h * h) /
                     static_cast<double>(p * h * h - 1);
    EXPECT_NEAR(s.avg_distance, a, 1e-12);
    EXPECT_DOUBLE_EQ(s.cost_links_per_host, 3.0);
    EXPECT_DOUBLE_EQ(s.cost_switches_per_host,
                     static_cast<double>(3 * p + h) / static_cast<double>(p * h));
    expect_cost_equations(s);
  }
}

TEST(FatTree4, EveryPortIsWiredOnceAndSymmetric) {
  for (const Case& c : kCases) expect_wired_once_and_symmetric(fat_tree(four_levels(c.k, c.pods)));
}

TEST(FatTree4, MinimalRoutesAreTheShortestPathsBetweenEveryHostPair) {
  for (const Case& c : {Case{4, 4}, Case{6, 3}}) {
    SCOPED_TRACE(::testing::Message() << "k=" << c.k << " pods=" << c.pods);
    expect_minimal_routes(fat_tree(four_levels(c.k, c.pods)));
  }
}

TEST(FatTree4, EveryCoreReachesEveryPodOnceAndEveryOtherSwitchHasHalfItsPortsUp) {
  const Topology t = fat_tree(four_levels(6, 4));
  for (NodeId sw : t.switches()) {
    const Node& n = t.node(sw);
    std::vector<uint32_t> up_pods;
    uint32_t up = 0, down = 0;
    for (PortId port = 0; port < t.degree(sw); ++port) {
      const Node& far = t.node(t.peer(sw, port).node);
      if (far.kind == NodeKind::kSwitch && far.level > n.level) ++up;
      if (far.kind == NodeKind::kHost || far.level < n.level) {
        ++down;
        if (n.level == 3) up_pods.push_back(far.pod);
      }
    }
    if (n.level == 3) {
      EXPECT_EQ(up_pods, (std::vector<uint32_t>{0, 1, 2, 3})) << n.name;
    } else {
      EXPECT_EQ(up, 3u) << n.name;
      EXPECT_EQ(down, 3u) << n.name;
    }
  }
}

TEST(FatTree4, TableTwoSizeCostsWhatThePaperSays) {
  // MRLS paper Table 2: FT(36, 104976), 50 % populated: Cost_links 3, Cost_switches 0.222,
  // diameter 6 (checked on the small trees above: Routing's tables at 23 328 switches are too
  // large for a unit test). Counted from the links.
  const Topology t = fat_tree(four_levels(36, 18));
  uint64_t switch_links = 0;
  for (const Link& l : t.links()) {
    switch_links +=
        t.node(l.a.node).kind == NodeKind::kSwitch && t.node(l.b.node).kind == NodeKind::kSwitch;
  }
  const double hosts = static_cast<double>(t.hosts().size());
  EXPECT_EQ(t.hosts().size(), 104976u);
  EXPECT_DOUBLE_EQ(static_cast<double>(switch_links) / hosts, 3.0);
  EXPECT_NEAR(static_cast<double>(t.switches().size()) / hosts, 0.222, 0.0005);
}

void expect_error(const FatTreeParams& p, const std::string& words) {
  try {
    fat_tree(p);
    ADD_FAILURE() << "no error";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(FatTree4, PodsAreCheckedBeforeAnythingIsBuilt) {
  expect_error(four_levels(6, 7), "pods must be 1 .. k = 6, got 7");
  FatTreeParams three = four_levels(6, 3);
  three.levels = 3;
  expect_error(three, "4 levels only");
  FatTreeParams five = four_levels(6, 0);
  five.levels = 5;
  expect_error(five, "levels must be 2, 3 or 4");
}

}  // namespace
}  // namespace spraylab::topo

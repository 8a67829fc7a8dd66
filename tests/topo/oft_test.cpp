// The Orthogonal Fat Tree generator against its closed forms (MRLS paper Figure 1, Table 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "tests/topo/wiring_checks.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

OftParams of(uint32_t q, uint32_t hosts) {
  OftParams p;
  p.q = q;
  p.hosts_per_leaf = hosts;
  return p;
}

const OftParams kCases[] = {of(2, 3), of(3, 4), of(5, 6), of(7, 8), of(3, 1), of(5, 2), of(2, 9)};

TEST(Oft, CountsMatchTheClosedForms) {
  for (const OftParams& c : kCases) {
    const uint64_t q = c.q, d = c.hosts_per_leaf, points = q * q + q + 1;
    SCOPED_TRACE(::testing::Message() << "q=" << q << " hosts_per_leaf=" << d);
    const Topology t = oft(c);
    const Stats s = compute_stats(Routing(t));
    EXPECT_EQ(s.kind, "oft");
    EXPECT_EQ(s.leaves, 2 * points);
    EXPECT_EQ(s.spines, points);
    EXPECT_EQ(s.hosts, 2 * points * d);
    EXPECT_EQ(s.links, 2 * points * (q + 1));
    EXPECT_EQ(s.radix, std::max(d + q + 1, 2 * (q + 1)));
    EXPECT_EQ(s.uplinks, q + 1);
    for (NodeId n : t.switches()) {
      EXPECT_EQ(t.degree(n), t.node(n).level == 0 ? d + q + 1 : 2 * (q + 1)) << t.node(n).name;
    }
    // Any two leaves share a spine: every leaf pair at distance 2, so A = 2 and Θ = (q + 1) / d.
    // Any two spines share a leaf (two lines meet in a point); a spine off a leaf's point is 3
    // hops away, so D* = 3.
    EXPECT_EQ(s.diameter, 2u);
    EXPECT_EQ(s.diameter_all, 3u);
    EXPECT_DOUBLE_EQ(s.avg_distance, 2.0);
    EXPECT_DOUBLE_EQ(s.capacity, static_cast<double>(q + 1) / d);
    EXPECT_EQ(s.corners, 0u);
    expect_cost_equations(s);
  }
}

TEST(Oft, TwoLeavesShareOneSpineUnlessTheyAreThePointTwice) {
  // Two distinct points of a projective plane lie on exactly one line; the two leaves of one
  // point share all q + 1.
  for (uint32_t q : {2u, 3u, 5u}) {
    const Topology t = oft(of(q, 1));
    const uint32_t points = q * q + q + 1;
    std::vector<std::set<NodeId>> spines;
    for (NodeId n : t.switches()) {
      if (t.node(n).level != 0) continue;
      std::set<NodeId> up;
      for (PortId p = 1; p < t.degree(n); ++p) up.insert(t.peer(n, p).node);
      spines.push_back(up);
    }
    for (uint32_t a = 0; a < spines.size(); ++a) {
      for (uint32_t b = a + 1; b < spines.size(); ++b) {
        std::vector<NodeId> shared;
        std::set_intersection(spines[a].begin(), spines[a].end(), spines[b].begin(),
                              spines[b].end(), std::back_inserter(shared));
        EXPECT_EQ(shared.size(), a % points == b % points ? q + 1 : 1u)
            << "q=" << q << " leaves " << a << ", " << b;
      }
    }
  }
}

TEST(Oft, FigureOneHasFourteenLeavesWithThreeUplinks) {
  // MRLS paper Figure 1: "OFT with parameter q = 2. It has n = 14 leaf switches and k = 3
  // up-links at the leaf switches."
  const Stats s = compute_stats(Routing(oft(of(2, 3))));
  EXPECT_EQ(s.leaves, 14u);
  EXPECT_EQ(s.uplinks, 3u);
  EXPECT_EQ(s.spines, 7u);
}

TEST(Oft, EveryPortIsWiredOnceAndSymmetric) {
  for (const OftParams& c : kCases) expect_wired_once_and_symmetric(oft(c));
}

TEST(Oft, MinimalRoutesAreTheShortestPathsBetweenEveryHostPair) {
  for (const OftParams& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "q=" << c.q);
    expect_minimal_routes(oft(c));
  }
}

TEST(Oft, TableTwoSizeCostsWhatThePaperSays) {
  // MRLS paper Table 2: OFT(36, 11052), q = 17: Cost_links 1, Cost_switches 0.083.
  const Stats s = compute_stats(Routing(oft(of(17, 18))), false);
  EXPECT_EQ(s.hosts, 11052u);
  EXPECT_EQ(s.radix, 36u);
  EXPECT_DOUBLE_EQ(s.cost_links_per_host, 1.0);
  EXPECT_NEAR(s.cost_switches_per_host, 0.083, 0.0005);
  EXPECT_DOUBLE_EQ(s.capacity, 1.0);
}

void expect_error(const OftParams& p, const std::string& words) {
  try {
    oft(p);
    ADD_FAILURE() << "expected a TopologyError with '" << words << "'";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Oft, BadParametersGetAPreciseError) {
  expect_error(of(4, 5), "oft: q = 4 is not prime");
  expect_error(of(9, 10), "oft: q = 9 is not prime");
  expect_error(of(1, 2), "oft: q = 1 is not prime");
  expect_error(of(0, 1), "oft: q = 0 is not prime");
  expect_error(of(3, 0), "hosts_per_leaf must be at least 1, got 0");
  expect_error(of(32771, 1), "ports, more than the 65535 supported");
}

}  // namespace
}  // namespace spraylab::topo

// Routing's distances are a byte a pair, 255 meaning unreachable (topo/routing.h): a graph with
// switches 255 or more hops apart is refused, not stored with its far switches read as unvisited
// (they were queued again past the BFS queue's end: heap corruption in `topo stats`).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "topo/generators.h"
#include "topo/routing.h"

namespace spraylab::topo {
namespace {

// `switches` switches in a line, a host on each end.
Topology chain(uint32_t switches) {
  Topology t;
  std::vector<NodeId> s;
  for (uint32_t i = 0; i < switches; ++i) {
    s.push_back(t.add_switch(0, i, fmt::format("s{}", i)));
    if (i > 0) t.add_link(s[i - 1], s[i], 100e9, 0);
  }
  t.add_link(s.front(), t.add_host("h0"), 100e9, 0);
  t.add_link(s.back(), t.add_host("h1"), 100e9, 0);
  return t;
}

TEST(RoutingDistance, TheLongestStoredDistanceIs254Hops) {
  const Topology t = chain(255);
  const Routing r(t);
  EXPECT_EQ(r.distance(0, 254), 254);
  EXPECT_EQ(r.distance(254, 0), 254);
  EXPECT_TRUE(r.connected());
}

TEST(RoutingDistance, SwitchesTwoHundredFiftyFiveHopsApartAreRefused) {
  for (uint32_t n : {256u, 300u}) {
    const Topology t = chain(n);
    try {
      const Routing r(t);
      ADD_FAILURE() << n << " switches in a line were accepted";
    } catch (const TopologyError& e) {
      EXPECT_STREQ(e.what(),
                   "switch s0 has switches 255 or more hops away; hop counts of at most 254 are "
                   "supported");
    }
  }
}

}  // namespace
}  // namespace spraylab::topo

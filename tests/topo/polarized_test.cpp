#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/topo/mrls_params.h"
#include "topo/generators.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

// Longest Polarized walk from `c` to `t` over every allowed choice, by memoised DFS. The walk
// graph is acyclic (d(s,·) grows while expanding, d(·,t) shrinks after); a cycle or a dead end
// fails the test.
int longest(const Routing& r, uint32_t s, uint32_t c, uint32_t t, std::vector<int>& memo) {
  constexpr int kVisiting = -2;
  if (c == t) return 0;
  if (memo[c] == kVisiting) {
    ADD_FAILURE() << "Polarized walk revisits switch " << c;
    return 1000;
  }
  if (memo[c] >= 0) return memo[c];
  memo[c] = kVisiting;
  auto hops = r.polarized_hops(s, c, t);
  if (hops.empty()) ADD_FAILURE() << "dead end (corner) at " << c << " for " << s << "->" << t;
  int best = 0;
  for (const auto& h : hops) best = std::max(best, 1 + longest(r, s, h.next, t, memo));
  memo[c] = best;
  return best;
}

TEST(Polarized, EveryRouteHasAtMostTwiceDStarMinusTwoHops) {
  // MRLS paper Theorem 4.2, checked over every choice on several random instances.
  for (auto p : {params(14, 3, 3, 1), params(14, 3, 3, 2), params(24, 4, 4, 3), params(30, 3, 2, 4),
                 params(40, 6, 6, 5)}) {
    Topology topo = mrls(p);
    Routing r(topo);
    const uint32_t dstar = compute_stats(r).diameter_all;
    int worst = 0;
    for (uint32_t s : r.leaves()) {
      for (uint32_t t : r.leaves()) {
        if (s == t) continue;
        std::vector<int> memo(r.graph().size(), -1);
        worst = std::max(worst, longest(r, s, s, t, memo));
      }
    }
    EXPECT_LE(worst, static_cast<int>(2 * dstar - 2)) << "N1 " << p.leaves << " seed " << p.seed;
    EXPECT_GE(worst, static_cast<int>(compute_stats(r).diameter));
  }
}

TEST(Polarized, LabelsFollowTheDistanceChanges) {
  Topology topo = mrls(params(24, 4, 4, 9));
  Routing r(topo);
  const SwitchGraph& g = r.graph();
  std::set<PolarizedLabel> seen;
  for (uint32_t s : r.leaves()) {
    for (uint32_t t : r.leaves()) {
      for (uint32_t c = 0; c < g.size(); ++c) {
        for (uint32_t e = g.begin(c); e < g.end(c); ++e) {
          uint32_t n = g.neighbour(e);
          int ds = r.distance(s, n) - r.distance(s, c), dt = r.distance(n, t) - r.distance(c, t);
          ASSERT_EQ(std::abs(ds), 1);
          ASSERT_EQ(std::abs(dt), 1);
          PolarizedLabel want =
              ds > 0 ? (dt < 0 ? PolarizedLabel::kForward : PolarizedLabel::kExpansion)
                     : (dt < 0 ? PolarizedLabel::kContraction : PolarizedLabel::kBacktrack);
          EXPECT_EQ(r.label(s, c, n, t), want);
          seen.insert(want);
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), 4u);  // the instance exercises every class
}

TEST(Polarized, CornerScanFindsExactlyTheSwitchesWithNoAllowedHop) {
  // Small sparse instances have corners; compare the fast scan with the definition.
  uint32_t instances_with_corners = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    MrlsParams p = params(10, 2, 2, seed);
    p.check_corners = false;
    Topology topo = mrls(p);
    Routing r(topo);
    std::set<std::pair<uint32_t, uint32_t>> brute, fast;
    for (uint32_t s : r.leaves()) {
      for (uint32_t t : r.leaves()) {
        for (uint32_t c = 0; c < r.graph().size(); ++c) {
          if (c != t && c != s && r.polarized_hops(s, c, t).empty()) brute.insert({s, c});
        }
      }
    }
    for (const Corner& c : r.corners()) fast.insert({c.src_leaf, c.sw});
    EXPECT_EQ(fast, brute) << "seed " << seed;
    instances_with_corners += !brute.empty();
  }
  EXPECT_GT(instances_with_corners, 0u) << "no instance exercised the corner case";
}

TEST(Polarized, GeneratorRerollsDrawsWithCorners) {
  uint32_t tries = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    uint32_t t = 0;
    Topology topo = mrls(params(10, 2, 2, seed), &t);
    EXPECT_TRUE(Routing(topo).corners().empty());
    tries = std::max(tries, t);
  }
  EXPECT_GT(tries, 1u) << "every first draw was corner-free: the re-roll path went untested";
}

}  // namespace
}  // namespace spraylab::topo

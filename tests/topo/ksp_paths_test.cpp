#include "topo/ksp_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "tests/topo/mrls_params.h"
#include "topo/generators.h"
#include "topo/routing.h"

namespace spraylab::topo {
namespace {

using Path = std::vector<uint32_t>;

// Every simple path from s to t of at most `max_len` hops, by plain depth-first search over the
// graph's links (no distance pruning: the oracle shares nothing with the search it checks).
void all_simple(const SwitchGraph& g, uint32_t t, uint32_t max_len, Path& path,
                std::vector<bool>& on, std::set<Path>& out) {
  const uint32_t v = path.back();
  if (v == t) {
    out.insert(path);
    return;
  }
  if (path.size() - 1 == max_len) return;
  for (uint32_t e = g.begin(v); e < g.end(v); ++e) {
    const uint32_t n = g.neighbour(e);
    if (on[n]) continue;
    on[n] = true;
    path.push_back(n);
    all_simple(g, t, max_len, path, on, out);
    path.pop_back();
    on[n] = false;
  }
}

std::set<Path> brute_force(const Routing& r, uint32_t s, uint32_t t, uint32_t max_len) {
  std::set<Path> out;
  Path path{s};
  std::vector<bool> on(r.graph().size(), false);
  on[s] = true;
  all_simple(r.graph(), t, max_len, path, on, out);
  return out;
}

bool linked(const SwitchGraph& g, uint32_t a, uint32_t b) {
  for (uint32_t e = g.begin(a); e < g.end(a); ++e) {
    if (g.neighbour(e) == b) return true;
  }
  return false;
}

// The set of every ordered leaf pair against the brute-force enumeration: valid paths, the
// stated lengths, every path shorter than the set's longest, and at the longest length only real
// paths, as many as K leaves room for (all of them when fewer exist).
void check_against_brute_force(const Routing& r, uint32_t k) {
  const KspPaths ksp(r, k, 11);
  const SwitchGraph& g = r.graph();
  const auto& leaves = r.leaves();
  for (uint32_t s = 0; s < leaves.size(); ++s) {
    for (uint32_t t = 0; t < leaves.size(); ++t) {
      const KspPaths::Set& set = ksp.set(s, t);
      if (s == t) {
        EXPECT_EQ(set.count, 0u);
        continue;
      }
      ASSERT_GT(set.count, 0u) << s << "->" << t;
      ASSERT_LE(set.count, k);
      const uint32_t longest = set.len[set.lengths - 1];
      EXPECT_EQ(set.len[0], r.distance(leaves[s], leaves[t])) << "the shortest comes first";
      const std::set<Path> brute = brute_force(r, leaves[s], leaves[t], longest);
      std::set<Path> got;
      for (uint32_t i = 0; i < set.count; ++i) {
        const Path p = ksp.path(s, t, i);
        ASSERT_EQ(p.size() - 1, KspPaths::length(set, i));
        EXPECT_EQ(p.front(), leaves[s]);
        EXPECT_EQ(p.back(), leaves[t]);
        for (size_t j = 0; j + 1 < p.size(); ++j) EXPECT_TRUE(linked(g, p[j], p[j + 1]));
        EXPECT_EQ(std::set<uint32_t>(p.begin(), p.end()).size(), p.size()) << "a loop";
        EXPECT_TRUE(got.insert(p).second) << "a path twice";
        if (i > 0) {
          EXPECT_LE(KspPaths::length(set, i - 1), KspPaths::length(set, i));
        }
      }
      std::map<uint32_t, uint32_t> brute_at, got_at;  // paths per length
      for (const Path& p : brute) ++brute_at[static_cast<uint32_t>(p.size() - 1)];
      for (const Path& p : got) {
        ++got_at[static_cast<uint32_t>(p.size() - 1)];
        EXPECT_TRUE(brute.count(p)) << "not a simple path of the graph";
      }
      for (const auto& [len, n] : brute_at) {
        if (len < longest) {
          EXPECT_EQ(got_at[len], n) << s << "->" << t << ": every path of " << len << " hops";
        }
      }
      // At the longest length: as many as fit, or all of them.
      EXPECT_EQ(got_at[longest], std::min(brute_at[longest], k - (set.count - got_at[longest])));
      if (set.count < k && set.lengths < KspPaths::kMaxLengths) {
        // Fewer than K: there is no longer simple path at all.
        EXPECT_EQ(brute_force(r, leaves[s], leaves[t], g.size()).size(), set.count);
      }
    }
  }
}

TEST(KspPaths, MatchBruteForceOnSmallMrls) {
  for (auto p :
       {params(8, 2, 2, 1), params(10, 3, 3, 2), params(14, 3, 3, 3), params(12, 4, 4, 4)}) {
    p.check_corners = false;  // KSP needs no Polarized corner freedom
    const Topology topo = mrls(p);
    const Routing r(topo);
    for (uint32_t k : {1u, 4u, 16u, 60u}) {
      SCOPED_TRACE("leaves " + std::to_string(p.leaves) + " seed " + std::to_string(p.seed) +
                   " k " + std::to_string(k));
      check_against_brute_force(r, k);
    }
  }
}

TEST(KspPaths, TakeEverySimplePathWhenKExceedsThem) {
  MrlsParams p = params(6, 2, 2, 5);
  p.check_corners = false;
  const Topology topo = mrls(p);
  const Routing r(topo);
  check_against_brute_force(r, 5000);
}

TEST(KspPaths, AreSharedPerKAndDeterministic) {
  MrlsParams p = params(14, 3, 3, 7);
  p.check_corners = false;
  const Topology topo = mrls(p);
  const Routing r(topo);
  EXPECT_EQ(r.ksp_paths(8).get(), r.ksp_paths(8).get());
  EXPECT_NE(r.ksp_paths(8).get(), r.ksp_paths(9).get());
  const KspPaths again(r, 8, 0x6b7370);
  const KspPaths& shared = *r.ksp_paths(8);
  for (uint32_t s = 0; s < shared.leaves(); ++s) {
    for (uint32_t t = 0; t < shared.leaves(); ++t) {
      for (uint32_t i = 0; i < shared.set(s, t).count; ++i)
        EXPECT_EQ(shared.path(s, t, i), again.path(s, t, i));
    }
  }
}

TEST(KspPaths, RejectKOutOfRange) {
  MrlsParams p = params(8, 2, 2, 1);
  p.check_corners = false;
  const Topology topo = mrls(p);
  const Routing r(topo);
  EXPECT_THROW(KspPaths(r, 0, 1), std::invalid_argument);
  EXPECT_THROW(KspPaths(r, KspPaths::kMaxK + 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace spraylab::topo

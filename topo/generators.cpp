#include "topo/generators.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topo/generator_steps.h"
#include "topo/mrls_rules.h"
#include "topo/routing.h"

namespace spraylab::topo {
namespace {

using generator_steps::add_hosts;
using generator_steps::check_size;
using generator_steps::name;

// Unbiased integer in [0, n) from a 64-bit engine (Lemire). Our own, so a seed gives the same
// topology with every standard library.
uint32_t uniform(std::mt19937_64& rng, uint32_t n) {
  uint64_t x = rng() >> 32;
  uint64_t m = x * n;
  uint32_t low = static_cast<uint32_t>(m);
  if (low < n) {
    uint32_t threshold = static_cast<uint32_t>(-n) % n;
    while (low < threshold) {
      x = rng() >> 32;
      m = x * n;
      low = static_cast<uint32_t>(m);
    }
  }
  return static_cast<uint32_t>(m >> 32);
}

// One random simple bipartite draw: leaf stubs (u each) matched to spine stubs (R each) by a
// shuffle, then repeated pairs removed by swapping with random edges (the usual edge-switch
// repair of the configuration model). Returns false if the repair does not converge.
bool draw_bipartite(uint32_t n1, uint32_t u, uint32_t n2, uint32_t r, std::mt19937_64& rng,
                    std::vector<uint32_t>& spine_of) {
  const uint32_t m = n1 * u;
  spine_of.resize(m);
  for (uint32_t s = 0; s < n2; ++s) {
    for (uint32_t j = 0; j < r; ++j) spine_of[s * r + j] = s;
  }
  for (uint32_t i = m; i > 1; --i) std::swap(spine_of[i - 1], spine_of[uniform(rng, i)]);
  // Edge e belongs to leaf e / u.
  auto has_edge = [&](uint32_t leaf, uint32_t spine, uint32_t except) {
    for (uint32_t e = leaf * u; e < (leaf + 1) * u; ++e) {
      if (e != except && spine_of[e] == spine) return true;
    }
    return false;
  };
  const uint64_t budget = 100ull * m + 1000;
  for (uint32_t e = 0; e < m; ++e) {
    uint64_t tries = 0;
    while (has_edge(e / u, spine_of[e], e)) {
      if (++tries > budget) return false;
      uint32_t f = uniform(rng, m);
      uint32_t le = e / u, lf = f / u;
      if (le == lf) continue;
      // Swap the spines of e and f if that makes neither leaf repeat a spine.
      if (has_edge(le, spine_of[f], e) || has_edge(lf, spine_of[e], f)) continue;
      std::swap(spine_of[e], spine_of[f]);
    }
  }
  return true;
}

}  // namespace

Topology fat_tree(const FatTreeParams& p) {
  if (p.k < 2 || p.k % 2 != 0) {
    throw TopologyError("fat-tree: k must be even and at least 2, got " + std::to_string(p.k));
  }
  if (p.levels < 2 || p.levels > 4) {
    throw TopologyError("fat-tree: levels must be 2, 3 or 4, got " + std::to_string(p.levels));
  }
  if (p.pods != 0 && (p.levels != 4 || p.pods > p.k)) {
    throw TopologyError(
        p.levels != 4 ? "fat-tree: pods (depopulation) is built for 4 levels only"
                      : fmt::format("fat-tree: pods must be 1 .. k = {}, got {}", p.k, p.pods));
  }
  check_size("fat-tree", fat_tree_size(p.k, p.levels, p.pods));
  if (p.levels == 4) return fat_tree4(p);
  const uint32_t h = p.k / 2;
  Topology t;
  t.kind = Kind::kFatTree;
  if (p.levels == 2) {
    std::vector<NodeId> leaves, spines;
    for (uint32_t i = 0; i < p.k; ++i) leaves.push_back(t.add_switch(0, i, name("leaf", i)));
    for (uint32_t i = 0; i < h; ++i) spines.push_back(t.add_switch(1, i, name("spine", i)));
    for (NodeId l : leaves) add_hosts(t, l, h, 0, p.link);
    for (NodeId l : leaves) {
      for (NodeId s : spines) t.add_link(l, s, p.link.rate_bps, p.link.delay_ns);
    }
    return t;
  }
  // 3 levels: pod q has edges q·h .. q·h+h−1 and aggregations likewise; aggregation j of every
  // pod links to cores j·h .. j·h+h−1.
  std::vector<NodeId> edges, aggs, cores;
  for (uint32_t q = 0; q < p.k; ++q) {
    for (uint32_t i = 0; i < h; ++i)
      edges.push_back(t.add_switch(0, q * h + i, name("edge", q * h + i), q));
  }
  for (uint32_t q = 0; q < p.k; ++q) {
    for (uint32_t i = 0; i < h; ++i)
      aggs.push_back(t.add_switch(1, q * h + i, name("agg", q * h + i), q));
  }
  for (uint32_t i = 0; i < h * h; ++i) cores.push_back(t.add_switch(2, i, name("core", i)));
  for (uint32_t e = 0; e < edges.size(); ++e) add_hosts(t, edges[e], h, e / h, p.link);
  for (uint32_t e = 0; e < edges.size(); ++e) {
    uint32_t q = e / h;
    for (uint32_t j = 0; j < h; ++j)
      t.add_link(edges[e], aggs[q * h + j], p.link.rate_bps, p.link.delay_ns);
  }
  for (uint32_t a = 0; a < aggs.size(); ++a) {
    uint32_t j = a % h;
    for (uint32_t c = 0; c < h; ++c)
      t.add_link(aggs[a], cores[j * h + c], p.link.rate_bps, p.link.delay_ns);
  }
  return t;
}

Topology leaf_spine(const LeafSpineParams& p) {
  if (p.leaves == 0 || p.spines == 0 || p.hosts_per_leaf == 0) {
    throw TopologyError("leaf-spine: leaves, spines and hosts_per_leaf must all be at least 1");
  }
  check_size("leaf-spine", leaf_spine_size(p.leaves, p.spines, p.hosts_per_leaf));
  Topology t;
  t.kind = Kind::kLeafSpine;
  std::vector<NodeId> leaves, spines;
  for (uint32_t i = 0; i < p.leaves; ++i) leaves.push_back(t.add_switch(0, i, name("leaf", i)));
  for (uint32_t i = 0; i < p.spines; ++i) spines.push_back(t.add_switch(1, i, name("spine", i)));
  for (NodeId l : leaves) add_hosts(t, l, p.hosts_per_leaf, 0, p.link);
  for (NodeId l : leaves) {
    for (NodeId s : spines) t.add_link(l, s, p.link.rate_bps, p.link.delay_ns);
  }
  return t;
}

Topology mrls(const MrlsParams& p, uint32_t* tries) {
  const uint32_t n1 = p.leaves, u = p.uplinks, d = p.downlinks, r = u + d;
  if (n1 < 2 || u == 0 || d == 0) {
    throw TopologyError("mrls: need at least 2 leaves, 1 uplink and 1 downlink per leaf");
  }
  check_size("mrls", mrls_size(n1, u, d));
  if ((static_cast<uint64_t>(u) * n1) % r != 0) {
    throw TopologyError("mrls: u·N1 = " + std::to_string(uint64_t{u} * n1) +
                        " is not a multiple of the radix R = u + d = " + std::to_string(r) +
                        ", so N2 = u·N1/R spines cannot all have R leaf links");
  }
  const uint32_t n2 = static_cast<uint32_t>(uint64_t{u} * n1 / r);
  if (u == 1 && n2 > 1) throw TopologyError("mrls: " + mrls_one_uplink_problem(n2));
  if (u > n2) {
    throw TopologyError("mrls: " + std::to_string(u) + " uplinks per leaf but only " +
                        std::to_string(n2) + " spines: a simple graph is impossible");
  }
  std::mt19937_64 rng(p.seed);
  std::vector<uint32_t> spine_of;
  std::string last_failure = "none";
  for (uint32_t attempt = 1; attempt <= p.max_tries; ++attempt) {
    if (!draw_bipartite(n1, u, n2, r, rng, spine_of)) {
      last_failure = "could not make the wiring simple";
      continue;
    }
    Topology t;
    t.kind = Kind::kMrls;
    std::vector<NodeId> leaves, spines;
    for (uint32_t i = 0; i < n1; ++i) leaves.push_back(t.add_switch(0, i, name("leaf", i)));
    for (uint32_t i = 0; i < n2; ++i) spines.push_back(t.add_switch(1, i, name("spine", i)));
    for (NodeId l : leaves) add_hosts(t, l, d, 0, p.link);
    for (uint32_t e = 0; e < spine_of.size(); ++e) {
      t.add_link(leaves[e / u], spines[spine_of[e]], p.link.rate_bps, p.link.delay_ns);
    }
    Routing routing(t);
    if (!routing.connected()) {
      last_failure = "disconnected";
      continue;
    }
    if (p.check_corners && !routing.corners(1).empty()) {
      last_failure = "Polarized corner";
      continue;
    }
    if (tries) *tries = attempt;
    return t;
  }
  throw TopologyError("mrls: no valid wiring in " + std::to_string(p.max_tries) +
                      " draws from seed " + std::to_string(p.seed) + " (last draw: " +
                      last_failure + "); try another seed, more tries, or more uplinks");
}

}  // namespace spraylab::topo

// Topology statistics as defined in the MRLS paper §2.2.
#pragma once

#include <cstdint>
#include <string>

#include "topo/routing.h"

namespace spraylab::topo {

struct Stats {
  std::string kind;
  uint64_t hosts = 0;         // S, endpoints
  uint64_t leaves = 0;        // N1, switches with hosts
  uint64_t spines = 0;        // N2, every other switch
  uint64_t switches = 0;      // N = N1 + N2
  uint64_t links = 0;         // M, switch-to-switch links
  uint32_t radix = 0;         // R, the largest switch degree (host ports included)
  uint32_t uplinks = 0;       // u, the most fabric ports on a leaf
  uint32_t downlinks = 0;     // d, the most host ports on a leaf
  uint32_t diameter = 0;      // D, max leaf-to-leaf distance
  uint32_t diameter_all = 0;  // D*, max switch-to-switch distance
  double avg_distance = 0;    // A, mean leaf-to-leaf distance over ordered pairs of distinct leaves
  double capacity = 0;        // Θ = 2M / (S·A), eq. (1)
  // The paper's cost (§2.2.4): Eq. 2, Cost_links = M / S = Θ·A / 2; Eq. 3, Cost_switches =
  // N / S = Θ·A / k with k = 2M / N the switch graph's average degree.
  double cost_links_per_host = 0;     // M / S
  double cost_switches_per_host = 0;  // N / S
  double avg_switch_degree = 0;       // k = 2M / N
  uint64_t corners = 0;               // Polarized (source leaf, switch) corner pairs
  // Whether `corners` was counted: only on a connected graph of two switch levels
  // (is_leaf_spine), and not when compute_stats was asked to skip it; else it is 0 and means
  // nothing.
  bool corners_scanned = false;
  bool connected = true;
  // The distances (diameter, diameter_all, avg_distance) and the capacity are defined only on a
  // connected graph; avg_distance, capacity and diameter also need two leaves.
  bool distances_defined() const { return connected; }
  bool leaf_distances_defined() const { return connected && leaves >= 2; }
};

// Two switch levels and every switch link between them (leaf-spine, MRLS, 2-level fat tree, OFT):
// a bipartite switch graph, where Polarized routing applies. Not Dragonfly (router-router links
// in one level) nor Dragonfly+ (spine-spine global links).
bool is_leaf_spine(const Topology& t);

// `count_corners` = false skips the corner scan (it is the slowest part on large fabrics).
Stats compute_stats(const Routing& r, bool count_corners = true);

}  // namespace spraylab::topo

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
  double cost_links_per_host = 0;     // M / S
  double cost_switches_per_host = 0;  // N / S
  uint64_t corners = 0;               // Polarized (source leaf, switch) corner pairs
  bool connected = true;
};

// Two switch levels (leaf-spine, MRLS, 2-level fat tree): where Polarized routing applies.
bool is_leaf_spine(const Topology& t);

// `count_corners` = false skips the corner scan (it is the slowest part on large fabrics).
Stats compute_stats(const Routing& r, bool count_corners = true);

}  // namespace spraylab::topo

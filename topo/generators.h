// Topology generators: 2-level leaf-spine / fat tree, 3-level k-ary fat tree, MRLS random
// leaf-spine. Each returns a Topology whose ports follow the rule in topology.h (host ports first).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "topo/topology.h"

namespace spraylab::topo {

// Thrown for parameters no topology can have, and for MRLS draws that never satisfy the checks.
class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// k-ary fat tree. levels = 2: k leaves with k/2 hosts and k/2 uplinks, k/2 spines of radix k
// (k²/2 hosts). levels = 3: k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores
// (k³/4 hosts, 5k²/4 switches). k must be even and ≥ 2.
struct FatTreeParams {
  uint32_t k = 4;
  uint32_t levels = 2;
  LinkDefaults link;
};
Topology fat_tree(const FatTreeParams& p);

// Full bipartite leaf-spine: every leaf links to every spine once.
struct LeafSpineParams {
  uint32_t leaves = 4;
  uint32_t spines = 2;
  uint32_t hosts_per_leaf = 2;
  LinkDefaults link;
};
Topology leaf_spine(const LeafSpineParams& p);

// MRLS (Multipass Random Leaf-Spine, MRLS paper §4): N1 leaves with u uplinks and d host ports,
// radix R = u + d, N2 = u·N1/R spines of radix R, wired as a uniformly random simple bipartite
// graph drawn from `seed`. A draw that is disconnected or (with check_corners) has a Polarized
// corner is re-rolled; after max_tries draws the generator gives up with a TopologyError.
struct MrlsParams {
  uint32_t leaves = 14;
  uint32_t uplinks = 3;
  uint32_t downlinks = 3;
  uint64_t seed = 1;
  uint32_t max_tries = 100;
  bool check_corners = true;
  LinkDefaults link;
};
// `tries`, when given, receives the number of draws it took.
Topology mrls(const MrlsParams& p, uint32_t* tries = nullptr);

}  // namespace spraylab::topo

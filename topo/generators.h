// Topology generators: 2-level leaf-spine / fat tree, 3-level k-ary fat tree, MRLS random
// leaf-spine, and the MRLS paper's other compared topologies (§5, Table 2): Dragonfly,
// Dragonfly+ and the Orthogonal Fat Tree, one file each. Each returns a Topology whose ports
// follow the rule in topology.h (host ports first).
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
// (k³/4 hosts, 5k²/4 switches). levels = 4 (fat_tree4.cpp): `pods` pods (0: all k) of (k/2)²
// switches on each of 3 levels with (k/2)³ hosts, and (k/2)³ cores of radix k, each linked once
// to every pod: pods·(k/2)³ hosts, 3 switch links per host, (3·pods + k/2)·(k/2)² switches; the
// MRLS paper's FT(36, 104976) is k = 36 with 18 pods (50 % populated). k must be even and ≥ 2;
// only the 4-level tree takes `pods` (1 .. k).
struct FatTreeParams {
  uint32_t k = 4;
  uint32_t levels = 2;
  LinkDefaults link;
  uint32_t pods = 0;
};
Topology fat_tree(const FatTreeParams& p);
// The 4-level tree, called by fat_tree once the parameters are checked.
Topology fat_tree4(const FatTreeParams& p);

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

// Dragonfly (Kim et al. 2008; MRLS paper §5: DF(32, 16512), 129 groups): g groups of a routers,
// each router with p hosts, a − 1 local links (all-to-all within its group) and h global links.
// groups = 0 means the balanced maximum g = a·h + 1 (one global link per pair of groups);
// otherwise 2 ≤ g ≤ a·h + 1 and g − 1 must divide a·h (a·h / (g − 1) links per pair of groups).
// Global links follow the palm-tree arrangement (palm_tree.h). Routers are `router<i>`, group
// i / a; ports: p hosts, then the a − 1 local links by peer, then the h global links.
struct DragonflyParams {
  uint32_t hosts_per_router = 1;         // p
  uint32_t routers_per_group = 2;        // a
  uint32_t global_links_per_router = 1;  // h
  uint32_t groups = 0;                   // g; 0 = a·h + 1
  LinkDefaults link;
};
Topology dragonfly(const DragonflyParams& p);

// Dragonfly+ (Shpiner et al. 2017; MRLS paper §5: DF+(32, 16640), 65 groups, global trunking 4):
// g groups, each a 2-level leaf-spine (every leaf linked once to every spine of its group);
// leaves carry the hosts, each spine has h global links to spines of other groups, palm-tree
// arranged so every pair of groups gets the same number of links (the trunking,
// spines·h / (g − 1)). groups = 0 means spines·h + 1 (trunking 1). Leaves `leaf<i>` and spines
// `spine<i>`, group i / leaves (resp. spines) per group.
struct DragonflyPlusParams {
  uint32_t leaves_per_group = 2;
  uint32_t spines_per_group = 2;
  uint32_t hosts_per_leaf = 2;
  uint32_t global_links_per_spine = 1;  // h
  uint32_t groups = 0;                  // g; 0 = spines·h + 1
  LinkDefaults link;
};
Topology dragonfly_plus(const DragonflyPlusParams& p);

// Orthogonal Fat Tree, 2 levels (Valerio et al.; MRLS paper Figure 1 and OFT(36, 11052), q = 17),
// built as CAMINOS builds it from the projective plane PG(2, q): q² + q + 1 spines (the lines),
// 2(q² + q + 1) leaves (every point twice), each leaf linked to the q + 1 spines of the lines
// through its point, so spines have radix 2(q + 1) and any two leaves share a spine (diameter 2).
// q must be prime: the plane is built over the integers mod q (prime powers need a field
// extension, not implemented). The paper uses only the 2-level OFT; 3 levels are not built.
struct OftParams {
  uint32_t q = 2;
  uint32_t hosts_per_leaf = 3;
  LinkDefaults link;
};
Topology oft(const OftParams& p);

}  // namespace spraylab::topo

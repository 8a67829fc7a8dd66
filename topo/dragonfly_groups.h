// The group structure the Dragonfly routings read (switch/lb/dragonfly_min.h, ugal.h, fpar.h):
// each switch's group, each leaf's group, which links are global, and the minimal routes as the
// MRLS paper's runs define them. Its CAMINOS configurations (alexcano98/MRLS-topology-
// reproducibility, 16k-servers-Dragonflies) route "shortest" with link class weights [1, 100]: a
// route is minimal when it crosses the fewest global links, then the fewest local ones. On a
// balanced Dragonfly that is not the hop-shortest route: two global hops through a third group
// can be shorter than local - global - local, and Kim et al.'s minimal route never takes them.
//
// The groups are recovered from the topology itself: its kind says which generator made it, and
// the one set of generator parameters that rebuilds exactly its links gives the group sizes (the
// topology keeps no parameters). A minimal route crosses at most one global link (two cost 200,
// more than any detour inside two groups), so a distance is min over the global links (u, v)
// from the switch's group to the leaf's of local(x, u) + 100 + local(v, t), with local distances
// by BFS inside each group: no all-pairs table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "topo/routing.h"

namespace spraylab::topo {

class DragonflyGroups {
 public:
  // Weights of a local and a global hop in the weighted distance (CAMINOS `class_weight`).
  static constexpr uint32_t kLocalWeight = 1;
  static constexpr uint32_t kGlobalWeight = 100;

  // Throws std::invalid_argument unless the topology was made by the dragonfly or dragonfly-plus
  // generator.
  explicit DragonflyGroups(const Routing& routing);

  uint32_t groups() const { return groups_; }
  uint32_t group_of_switch(uint32_t sw) const { return group_[sw]; }
  uint32_t group_of_leaf(uint32_t leaf_rank) const { return group_[leaf_switch_[leaf_rank]]; }
  // The leaf ranks of group `g`, ascending.
  std::span<const uint32_t> leaves_of(uint32_t g) const {
    return {group_leaves_.data() + group_first_[g], group_leaves_.data() + group_first_[g + 1]};
  }
  // Graph edge e (SwitchGraph numbering) joins two groups.
  bool global(uint32_t e) const { return group_[from_[e]] != group_[to_[e]]; }
  // Weighted distance from switch `sw` to the leaf of rank `leaf_rank`.
  uint32_t distance(uint32_t sw, uint32_t leaf_rank) const;
  // Whether graph edge e of switch `sw` starts a minimal route to the leaf.
  bool minimal(uint32_t sw, uint32_t e, uint32_t leaf_rank) const;

 private:
  // Switches per group: the generator's parameters recovered (see above).
  void find_groups(const Topology& t);
  uint32_t local(uint32_t a, uint32_t b) const;  // same group, BFS over local links

  const Routing& routing_;
  uint32_t groups_ = 0;
  std::vector<uint32_t> group_;        // per switch index
  std::vector<uint32_t> member_;       // position within its group's member list
  std::vector<uint32_t> group_size_;   // members per group
  std::vector<size_t> local_first_;    // group g's size² local distances at local_[first[g]]
  std::vector<uint8_t> local_;
  std::vector<uint32_t> leaf_switch_;
  std::vector<uint32_t> group_first_;  // group g's leaves: group_leaves_[first[g], first[g+1])
  std::vector<uint32_t> group_leaves_;
  std::vector<uint32_t> from_, to_;    // per graph edge: its two switches
  // Global links from group A to group B as (switch in A, switch in B): pair_links_[first[A·G +
  // B], first[A·G + B + 1]).
  std::vector<size_t> pair_first_;
  std::vector<std::pair<uint32_t, uint32_t>> pair_links_;
};

}  // namespace spraylab::topo

// Which switches still reach each leaf over minimal paths when some links are down: the routing a
// fabric converges to after a failure. The Ofan paper's failure runs route over "valid shortest
// paths" (§2.2); a fat tree's BGP with one AS per tier converges to the same next hops (up-down
// paths only, no valleys). A switch reaches leaf l if it is l, or one of its minimal next hops
// towards l is up (this direction) and reaches l. Next hops that do not are withdrawn.
#pragma once

#include <cstdint>
#include <vector>

#include "topo/routing.h"

namespace spraylab::topo {

class MinimalReach {
 public:
  // `edge_down[e]`: the direction of graph edge e (SwitchGraph::begin/end) is down.
  MinimalReach(const Routing& routing, const std::vector<bool>& edge_down);

  // Switch `sw` reaches the leaf of rank `leaf_rank` over minimal paths of up links.
  bool reaches(uint32_t sw, uint32_t leaf_rank) const {
    return reach_[static_cast<size_t>(leaf_rank) * switches_ + sw];
  }

 private:
  uint32_t switches_;
  std::vector<bool> reach_;  // [leaf rank][switch]
};

// The graph edge of switch `sw`'s port `port`, or UINT32_MAX (a host port).
uint32_t edge_of_port(const SwitchGraph& g, uint32_t sw, PortId port);

}  // namespace spraylab::topo

#include "topo/minimal_reach.h"

#include <algorithm>

namespace spraylab::topo {

MinimalReach::MinimalReach(const Routing& routing, const std::vector<bool>& edge_down)
    : switches_(routing.graph().size()) {
  const SwitchGraph& g = routing.graph();
  const std::vector<uint32_t>& leaves = routing.leaves();
  reach_.assign(static_cast<size_t>(leaves.size()) * switches_, false);
  // Per leaf, switches in order of their distance to it: a switch's next hops (one hop closer)
  // are decided before it. One counting sort per leaf.
  std::vector<uint32_t> order(switches_), count;
  for (uint32_t r = 0; r < leaves.size(); ++r) {
    const uint32_t leaf = leaves[r];
    count.assign(kUnreachable + 2u, 0);
    for (uint32_t s = 0; s < switches_; ++s) ++count[routing.distance(s, leaf) + 1u];
    for (size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (uint32_t s = 0; s < switches_; ++s) order[count[routing.distance(s, leaf)]++] = s;
    const size_t row = static_cast<size_t>(r) * switches_;
    for (uint32_t s : order) {
      const uint8_t d = routing.distance(s, leaf);
      if (d == kUnreachable) break;  // sorted last
      if (d == 0) {
        reach_[row + s] = true;
        continue;
      }
      for (uint32_t e = g.begin(s); e < g.end(s); ++e) {
        const uint32_t n = g.neighbour(e);
        if (!edge_down[e] && routing.distance(n, leaf) == d - 1 && reach_[row + n]) {
          reach_[row + s] = true;
          break;
        }
      }
    }
  }
}

uint32_t edge_of_port(const SwitchGraph& g, uint32_t sw, PortId port) {
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
    if (g.port(e) == port) return e;
  }
  return UINT32_MAX;
}

}  // namespace spraylab::topo

#include "topo/feasible_load.h"

#include <algorithm>
#include <numeric>

#include "topo/minimal_reach.h"

namespace spraylab::topo {

double feasible_load(const Routing& routing, const std::vector<bool>& edge_down,
                     const std::vector<double>& edge_rate, double host_rate_bps,
                     const std::vector<LeafDemand>& demand, double host_peak) {
  const SwitchGraph& g = routing.graph();
  const MinimalReach reach(routing, edge_down);
  const uint32_t switches = g.size();
  std::vector<double> load(g.edges(), 0.0);  // at load 1, in multiples of the host rate
  std::vector<double> inflow(switches);
  std::vector<uint32_t> order(switches), live;
  std::iota(order.begin(), order.end(), 0u);
  for (uint32_t d = 0; d < routing.leaves().size(); ++d) {
    const uint32_t dst = routing.leaves()[d];
    std::fill(inflow.begin(), inflow.end(), 0.0);
    bool any = false;
    for (const LeafDemand& x : demand) {
      if (x.dst_leaf != d || x.src_leaf == d) continue;
      inflow[routing.leaves()[x.src_leaf]] += x.rate;
      any = true;
    }
    if (!any) continue;
    // Farthest first: a switch has all its inflow before it splits it.
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return routing.distance(a, dst) > routing.distance(b, dst);
    });
    for (uint32_t s : order) {
      const uint8_t dist = routing.distance(s, dst);
      if (inflow[s] == 0 || dist == 0 || dist == kUnreachable) continue;
      live.clear();
      for (uint32_t e = g.begin(s); e < g.end(s); ++e) {
        const uint32_t n = g.neighbour(e);
        if (!edge_down[e] && routing.distance(n, dst) == dist - 1 && reach.reaches(n, d)) {
          live.push_back(e);
        }
      }
      if (live.empty()) continue;  // cut off: that traffic cannot arrive at any rate
      const double share = inflow[s] / static_cast<double>(live.size());
      for (uint32_t e : live) {
        load[e] += share;
        inflow[g.neighbour(e)] += share;
      }
    }
  }
  double peak = host_peak;  // the busiest link, relative to its rate, at load 1
  for (uint32_t e = 0; e < g.edges(); ++e) {
    if (load[e] > 0 && edge_rate[e] > 0)
      peak = std::max(peak, load[e] * host_rate_bps / edge_rate[e]);
  }
  // The shares are sums of fractions: a balanced link comes to 1 within rounding, not over it.
  return peak > 1 + 1e-9 ? 1 / peak : 1.0;
}

}  // namespace spraylab::topo

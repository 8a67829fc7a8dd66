// The feasible load under link failures (`workload.load: feasible`): the Ofan paper paces hosts at
// ρmax, "the highest rate achievable with perfectly balanced valid shortest paths" (§2.2). Here
// that is a fluid model of the traffic matrix: every switch splits each destination leaf's traffic
// equally over its live minimal next hops that still reach the leaf (topo/minimal_reach.h, the
// routes the fabric converges to), and ρmax is the largest fraction of the host line rate at which
// no link carries more than its rate. Without failures it is 1 on a fat tree.
#pragma once

#include <vector>

#include "topo/routing.h"

namespace spraylab::topo {

struct LeafDemand {
  uint32_t src_leaf;  // leaf ranks (Routing::leaves)
  uint32_t dst_leaf;
  double rate;  // as a multiple of the host line rate at load 1
};

// `edge_down[e]`, `edge_rate[e]`: per switch-graph edge (a link direction), whether it is down and
// its rate in bits/s. `host_rate_bps`: the host line rate. `host_peak`: the largest rate, as a
// multiple of the host line rate, that any host link carries at load 1 (a permutation: 1).
// Returns ρmax in (0, 1]; traffic whose destination a switch no longer reaches is left out.
double feasible_load(const Routing& routing, const std::vector<bool>& edge_down,
                     const std::vector<double>& edge_rate, double host_rate_bps,
                     const std::vector<LeafDemand>& demand, double host_peak);

}  // namespace spraylab::topo

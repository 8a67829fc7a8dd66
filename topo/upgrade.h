// Incremental deployment (`load_balancer.upgrade`, the Ofan paper's §6.4): which edge and
// aggregation switches (levels 0 and 1) run the upgraded balancer. The paper upgrades exactly half
// of them with four selection strategies it does not name in our summary; ours are
// (docs/configuration.md):
//   edge         edge switches first (at 0.5 of a 3-level fat tree: every edge switch)
//   aggregation  aggregation switches first (at 0.5: every aggregation switch)
//   random       the same share of each level, drawn with the experiment seed
//   pods         whole pods, in pod order (at 0.5: the first k/2 pods; levels 0 and 1 of the
//                lowest-numbered pods; a topology without pods is one pod)
// n = round(fraction x (edge + aggregation switches)) switches are upgraded in every strategy.
#pragma once

#include <cstdint>
#include <vector>

#include "conf/experiment.h"
#include "topo/topology.h"

namespace spraylab::topo {

// Per node id: true for an upgraded switch.
std::vector<bool> upgraded_switches(const conf::UpgradeSpec& u, const Topology& t, uint64_t seed);

}  // namespace spraylab::topo

// Readers of the experiment file's sections whose checks go beyond one key at a time
// (internal to conf/; loader.cpp puts them together).
#pragma once

#include "conf/experiment.h"
#include "conf/yaml_value.h"

namespace spraylab::conf {

// The generator and its keys (or explicit switches, hosts and links), cross-checked.
void read_topology(const Map& map, TopologySpec& topology);

// The default balancer and its per-layer and per-switch overrides. Overrides inherit the
// top-level parameters their algorithm takes; `topology` bounds the levels and switch names.
void read_balancer_plan(const Map& map, const TopologySpec& topology, BalancerPlan& plan);

// One balancer map on its own (a run-time change: spraylab-switch's telemetry `lb_set`), with
// the same checks as `load_balancer:` in a file and the algorithm's defaults for what it omits.
BalancerSpec read_single_balancer(const Map& map);

// Number of switch levels: overrides in load_balancer.layers must name one of them.
uint32_t level_count(const TopologySpec& topology);

}  // namespace spraylab::conf

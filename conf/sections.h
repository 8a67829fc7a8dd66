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

// The entries of events.links, each checked alone and against the one before (time order).
// Link names are checked against the topology when the fabric is built (fabric/link_events.h).
std::vector<LinkEventSpec> read_link_events(const Value& list);

// The events section; `duration_ns` (measurement.duration, 0 = none) bounds the times.
void read_events(const Map& map, uint64_t duration_ns, EventsSpec& events);

// Number of switch levels: overrides in load_balancer.layers must name one of them.
uint32_t level_count(const TopologySpec& topology);

}  // namespace spraylab::conf

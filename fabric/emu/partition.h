// How the partitioned virtual clock (virtual_run.cpp) splits a fabric: which partition each
// switch belongs to. A host node goes with its leaf. The units are a 3-level fat tree's pods (the
// edge and aggregation switches of a pod talk to the rest only over their core links; the cores
// are dealt to the pods, k/4 each when every pod is a partition) and otherwise the leaves (a
// 2-level fat tree, an MRLS, an explicit topology: contiguous groups of leaves, the other
// switches dealt out in turn). Results do not depend on the partitioning (event_queue.h says
// why); a good one only keeps most frames inside their partition.
#pragma once

#include <cstdint>
#include <vector>

#include "topo/routing.h"
#include "topo/topology.h"

namespace spraylab::fabric {

struct Partitions {
  uint32_t count = 1;
  std::vector<uint32_t> of_switch;  // by switch index (SwitchGraph order)
};

// The most partitions the fabric splits into: its pods, or its leaves.
uint32_t partition_units(const topo::Topology& t, const topo::Routing& r);

// `parts` partitions (clamped to [1, partition_units()]).
Partitions partition_switches(const topo::Topology& t, const topo::Routing& r, uint32_t parts);

}  // namespace spraylab::fabric

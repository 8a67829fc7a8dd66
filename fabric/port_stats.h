// What the fabric reports about its switch ports: the queue-depth time series and, after the
// run, one summary per egress port from the switches' own counters and exact maxima.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric/fabric.h"
#include "fabric/fabric_build.h"

namespace spraylab::fabric {

// Appends the depth of every switch egress port (in FabricResult::ports order) at `t_ns`.
void sample_queues(const Fabric& f, uint64_t t_ns, std::vector<QueueSample>* out);

// Every switch egress port. `run_ns`: the run's length on the fabric clock (utilisation's
// denominator). Takes the data path's maxima (SwitchRuntime::take_max_depth).
std::vector<PortSummary> port_summaries(const Fabric& f, const std::vector<QueueSample>& samples,
                                        uint64_t run_ns);

}  // namespace spraylab::fabric

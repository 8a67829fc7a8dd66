// What the fabric reports about its switch ports: the queue-depth time series and, after the
// run, one summary per egress port from the switches' own counters and exact maxima.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/emu/fabric.h"
#include "fabric/run/result.h"

namespace spraylab::fabric {

// Appends the depth of every switch egress port (in FabricResult::ports order) at `t_ns`.
void sample_queues(const Fabric& f, uint64_t t_ns, std::vector<QueueSample>* out);

// Appends the wire bytes switches have sent to hosts by `t_ns` (FabricResult::delivered).
void sample_delivered(const Fabric& f, uint64_t t_ns, std::vector<DeliverySample>* out);
// The summed line rate of every switch port that faces a host (FabricResult::host_capacity_bps).
double host_capacity_bps(const Fabric& f);

// Every switch egress port. `run_ns`: the run's length on the fabric clock (utilisation's
// denominator). Takes the data path's maxima (SwitchRuntime::take_max_depth).
std::vector<PortSummary> port_summaries(const Fabric& f, const std::vector<QueueSample>& samples,
                                        uint64_t run_ns);

// buffer.flow_control: pfc: what the hosts' NICs received of their leaves' pauses, summed.
HostPfc host_pfc(const Fabric& f, uint64_t run_ns);
// buffer.flow_control: credit: the hosts' NICs' credits, summed.
HostCredit host_credit(const Fabric& f, uint64_t run_ns);

}  // namespace spraylab::fabric

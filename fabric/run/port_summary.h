// What every mode computes alike about a switch egress port (PortSummary): its layer, its
// utilisation and its p99 queue depth. The emulated fabric reads its switches' counters
// (emu/port_stats.h), the namespaced one their telemetry (namespaced/run_namespaced.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/run/result.h"

namespace spraylab::fabric {

// The layer of a port of a switch at `level` in a fabric whose top level is `top`, sending to a
// host (`to_host`) or to a switch at `peer_level` (PortSummary::layer).
std::string layer_name(uint32_t level, uint32_t top, bool to_host, uint32_t peer_level);

// Wire bytes sent (frames with their overhead) over what the link could carry in `run_ns`
// (PortSummary::utilisation); 0 for a run of no length.
double port_utilisation(uint64_t tx_bytes, uint64_t tx_packets, double rate_bps, uint64_t run_ns);

// Each port's p99_bytes from `samples` (their port_index into `ports`).
void set_p99_bytes(const std::vector<QueueSample>& samples, std::vector<PortSummary>* ports);

}  // namespace spraylab::fabric

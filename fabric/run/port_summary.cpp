#include "fabric/run/port_summary.h"

#include <algorithm>
#include <cstddef>

#include "net/wire.h"

namespace spraylab::fabric {

std::string layer_name(uint32_t level, uint32_t top, bool to_host, uint32_t peer_level) {
  // A leaf-spine (or MRLS) fabric has leaves and spines; a 3-level fat tree edge, aggregation and
  // core switches; deeper trees number their middle levels.
  std::string role;
  if (top <= 1) {
    role = level == 0 ? "leaf" : "spine";
  } else if (level == 0) {
    role = "edge";
  } else if (level == top) {
    role = "core";
  } else {
    role = top == 2 ? "agg" : "agg" + std::to_string(level);
  }
  if (to_host || peer_level < level) return role + "_down";
  return role + (peer_level > level ? "_up" : "_across");
}

double port_utilisation(uint64_t tx_bytes, uint64_t tx_packets, double rate_bps, uint64_t run_ns) {
  // Wire bits: every frame with its preamble, FCS and inter-frame gap (net/wire.h).
  const double wire_bits = 8.0 * static_cast<double>(tx_bytes + tx_packets * net::kWireOverhead);
  const double capacity = rate_bps * static_cast<double>(run_ns) * 1e-9;
  return capacity > 0 ? wire_bits / capacity : 0;
}

void set_p99_bytes(const std::vector<QueueSample>& samples, std::vector<PortSummary>* ports) {
  std::vector<std::vector<uint32_t>> series(ports->size());
  for (const QueueSample& q : samples) series[q.port_index].push_back(q.bytes);
  for (size_t i = 0; i < ports->size(); ++i) {
    auto& v = series[i];
    if (v.empty()) continue;
    // Nearest rank: the smallest value with at least 99% of the samples at or below it.
    const size_t k = (v.size() * 99 + 99) / 100 - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    (*ports)[i].p99_bytes = v[k];
  }
}

}  // namespace spraylab::fabric

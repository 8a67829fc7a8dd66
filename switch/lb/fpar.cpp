#include "switch/lb/fpar.h"

#include <algorithm>
#include <utility>

namespace spraylab::lb {

Fpar::Fpar(std::shared_ptr<const DragonflyTable> table, uint32_t packet, size_t ports,
           BurstQueues queues)
    : table_(std::move(table)), packet_(packet), live_(ports), queues_(std::move(queues)) {}

PortId Fpar::progressive(std::span<const PortId> ports, uint32_t dst_leaf, uint64_t weight,
                         Rng& rng) {
  const DragonflyTable& t = *table_;
  const std::span<const PortId> minimal = t.toward(dst_leaf);
  uint64_t sum = 0;
  uint32_t count = 0;
  for (PortId port : ports) {
    if (!live_.live(port)) continue;
    sum += queues_.depth(port);
    ++count;
  }
  if (count == 0) return kNoPort;
  // Scores carry 8 fractional bits, so the mean is not rounded away.
  const uint64_t deroute = (weight * (sum << 8)) / count + (packet_ << 8);
  LowestScore best;
  for (PortId port : ports) {
    if (!live_.live(port)) continue;
    const bool is_minimal = std::find(minimal.begin(), minimal.end(), port) != minimal.end();
    best.offer(port, is_minimal ? uint64_t{queues_.depth(port)} << 8 : deroute, rng);
  }
  return best.port();
}

void Fpar::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const DragonflyTable& t = *table_;
  const topo::DragonflyGroups& g = t.groups();
  queues_.begin(ctx);
  Rng rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    PortId port = kNoPort;
    if (p.src_leaf < t.leaves() && p.dst_leaf < t.leaves() && p.dst_leaf != t.leaf_rank()) {
      live_.mark(p);
      const uint32_t src_group = g.group_of_leaf(p.src_leaf);
      const bool deroutable = t.group() == src_group && src_group != g.group_of_leaf(p.dst_leaf);
      if (deroutable && t.host_port(p.ingress_port)) {
        port = progressive(t.fabric_ports(), p.dst_leaf, kLeafWeight, rng);
      } else if (deroutable && t.leaf_rank() == UINT32_MAX) {
        port = progressive(t.global_ports(), p.dst_leaf, kSpineWeight, rng);
      } else {
        port = least_deep_live(t.toward(p.dst_leaf), live_, queues_, rng);
      }
    }
    out[i] = port;
    queues_.add(port, p);
  }
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

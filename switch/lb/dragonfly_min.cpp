#include "switch/lb/dragonfly_min.h"

#include <utility>

namespace spraylab::lb {

DragonflyMin::DragonflyMin(std::shared_ptr<const DragonflyTable> table, size_t ports)
    : table_(std::move(table)), live_(ports) {}

void DragonflyMin::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const DragonflyTable& t = *table_;
  Rng rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    out[i] = kNoPort;
    if (p.dst_leaf >= t.leaves()) continue;
    live_.mark(p);
    out[i] = random_live(t.toward(p.dst_leaf), live_, rng);
  }
  *ctx.rng = rng;
}

}  // namespace spraylab::lb

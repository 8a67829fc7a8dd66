#include "switch/lb/jsq.h"

namespace spraylab::lb {

uint32_t Jsq::key(uint32_t i) const {
  if (bands_ == 0) return set_.depth[i];
  const uint64_t th = threshold_.at(set_.ports[i], queues_.capacity(set_.ports[i]));
  const uint32_t f = band_floor(set_.depth[i], bands_, th);
  return f < bands_ ? f : bands_ - 1;  // PSP: band = min(n, floor(q·n/Th) + 1), here 0-based
}

void Jsq::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  choose_lowest_key(burst, ctx, out, queues_, set_, key_, low_,
                    [this](uint32_t j) { return key(j); });
}

}  // namespace spraylab::lb

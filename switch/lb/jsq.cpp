#include "switch/lb/jsq.h"

namespace spraylab::lb {

uint32_t Jsq::key(uint32_t i) const {
  if (bands_ == 0) return set_.depth[i];
  const uint64_t th = threshold_ != 0 ? threshold_ : queues_.capacity(set_.ports[i]);
  const uint32_t f = band_floor(set_.depth[i], bands_, th);
  return f < bands_ ? f : bands_ - 1;  // PSP: band = min(n, floor(q·n/Th) + 1), here 0-based
}

void Jsq::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.reset();
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set_.load(p, queues_)) {
      for (uint32_t j = 0; j < set_.w; ++j) key_[j] = key(j);
    }
    const uint32_t c = pick_lowest(key_, set_.w, *ctx.rng);
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      set_.depth[c] += grew;
      key_[c] = key(c);
    }
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

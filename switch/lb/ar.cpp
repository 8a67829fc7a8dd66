#include "switch/lb/ar.h"

namespace spraylab::lb {

void Ar::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.reset();
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set_.load(p, queues_)) {
      for (uint32_t j = 0; j < set_.w; ++j) {
        band_[j] = ar_band(set_.depth[j], queues_.capacity(set_.ports[j]));
      }
    }
    const uint32_t c = pick_lowest(band_, set_.w, *ctx.rng);
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      set_.depth[c] += grew;
      band_[c] = ar_band(set_.depth[c], queues_.capacity(out[i]));
    }
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

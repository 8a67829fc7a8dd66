#include "switch/lb/psp.h"

namespace spraylab::lb {

uint32_t Psp::weight(uint32_t i) const {
  const uint64_t th = threshold_ != 0 ? threshold_ : queues_.capacity(set_.ports[i]);
  return psp_weight(set_.depth[i], n_, th, saturated_);
}

void Psp::prefix_from(uint32_t i) {
  uint32_t sum = i == 0 ? 0 : prefix_[i - 1];
  for (; i < set_.w; ++i) prefix_[i] = sum += weight_[i];
}

void Psp::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.reset();
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set_.load(p, queues_)) {
      for (uint32_t j = 0; j < set_.w; ++j) weight_[j] = weight(j);
      prefix_from(0);
    }
    const uint32_t total = prefix_[set_.w - 1];
    uint32_t c;
    if (total == 0) {
      c = ctx.rng->below(set_.w);
    } else {
      // The first port whose prefix sum exceeds r = the number of prefix sums at or below r (the
      // paper's parallel compare and priority encoder; the count vectorises).
      const uint32_t r = ctx.rng->below(total);
      c = 0;
      for (uint32_t j = 0; j < set_.w; ++j) c += prefix_[j] <= r;
    }
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      set_.depth[c] += grew;
      const uint32_t w = weight(c);
      if (w != weight_[c]) {
        weight_[c] = w;
        prefix_from(c);
      }
    }
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

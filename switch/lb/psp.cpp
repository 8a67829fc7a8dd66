#include "switch/lb/psp.h"

#include <algorithm>

namespace spraylab::lb {

void Psp::classify() {
  std::fill(count_.begin(), count_.end(), 0);
  total_ = 0;
  for (uint32_t j = 0; j < set_.w; ++j) {
    const uint32_t w = weight_[j] = weight(j);
    pos_[j] = static_cast<uint16_t>(count_[w]);
    members(w)[count_[w]++] = static_cast<uint16_t>(j);
    total_ += w;
  }
}

void Psp::move(uint32_t i, uint32_t w) {
  const uint32_t old = weight_[i];
  // Swap-remove from the old class, append to the new one.
  uint16_t* from = members(old);
  const uint16_t last = from[--count_[old]];
  from[pos_[i]] = last;
  pos_[last] = pos_[i];
  pos_[i] = static_cast<uint16_t>(count_[w]);
  members(w)[count_[w]++] = static_cast<uint16_t>(i);
  weight_[i] = w;
  total_ = total_ - old + w;
}

uint32_t Psp::draw(Rng& rng) const {
  // One draw r in [0, total): class w owns a span of w × members(w) values, and within it each
  // member owns w consecutive values. Branch-free over the few classes: a random class would
  // mispredict a branchy search almost every packet.
  const uint32_t r = rng.below(total_);
  uint32_t base = 0, cls = 0, offset = 0;
  for (uint32_t w = top_; w >= 1; --w) {
    const uint32_t span = w * count_[w];
    const bool inside = r - base < span;  // unsigned: false below base
    cls = inside ? w : cls;
    offset = inside ? r - base : offset;
    base += span;
  }
  // offset / cls by a reciprocal (offset < 2^16, so the 32-bit fixed point is exact).
  return members(cls)[(offset * reciprocal_[cls]) >> 32];
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
    if (set_.load(p, queues_)) classify();
    const uint32_t c = total_ == 0 ? ctx.rng->below(set_.w) : draw(*ctx.rng);
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      set_.depth[c] += grew;
      if (weight_[c] != 0 && weight_[c] != saturated_) {  // else it can only stay
        const uint32_t w = weight(c);
        if (w != weight_[c]) move(c, w);
      }
    }
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

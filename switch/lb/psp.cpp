#include "switch/lb/psp.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace spraylab::lb {

// Every candidate into its weight class. The weights come from one pass the compiler vectorises
// (floor(q·n / Th) in double is exact here: q·n < 2^42 and the quotient's integer part is at most
// n ≤ 1024 where it matters, far above double's rounding), then each class's members are read
// off a compare mask in candidate order, the order the per-candidate loop gave.
void Psp::classify() {
  const uint32_t w = set_.w;
  for (uint32_t j = 0; j < w; ++j) {
    th_[j] = static_cast<double>(threshold_.at(set_.ports[j], queues_.capacity(set_.ports[j])));
  }
  const double n = n_;
  for (uint32_t j = 0; j < w; ++j) {
    const double f = std::floor(static_cast<double>(set_.depth[j]) * n / th_[j]);
    weight_[j] = f < n ? n_ - static_cast<uint32_t>(f) : saturated_;
  }
  total_ = 0;
  for (uint32_t c = 0; c <= top_; ++c) {
    CandidateMask m;
    m.build<Cmp::kEqual>(weight_, w, c);
    uint16_t* mem = members(c);
    uint32_t k = 0;
    for (uint32_t j = 0; j * 64 < w; ++j) {
      for (uint64_t bits = m.word[j]; bits != 0; bits &= bits - 1) {
        const uint32_t i = 64 * j + static_cast<uint32_t>(std::countr_zero(bits));
        mem[k] = static_cast<uint16_t>(i);
        pos_[i] = static_cast<uint16_t>(k++);
      }
    }
    count_[c] = k;
    total_ += c * k;
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
  set_.begin(queues_);
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

#include "switch/lb/rr.h"

#include <utility>

namespace spraylab::lb {

void SimpleRr::reset(uint32_t w) {
  w_ = w;
  pos_ = 0;
  wraps_ = 0;
  for (uint32_t i = 0; i < w; ++i) order_[i] = static_cast<uint16_t>(i);
}

void SimpleRr::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    const uint32_t w = p.num_candidates < kMaxCandidates ? p.num_candidates : kMaxCandidates;
    if (w == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (w != w_) reset(w);  // the set changed size (a port went down): start a fresh cycle
    out[i] = p.candidates[order_[pos_]];
    if (++pos_ < w_) continue;
    pos_ = 0;
    if (reshuffle_every_ != 0 && ++wraps_ == reshuffle_every_) {
      wraps_ = 0;
      for (uint32_t j = w_ - 1; j > 0; --j) std::swap(order_[j], order_[ctx.rng->below(j + 1)]);
    }
  }
}

}  // namespace spraylab::lb

#include "switch/lb/topk.h"

#include <bit>

namespace spraylab::lb {

// v = the largest x with fewer than k depths below x (that is, the k-th smallest depth), found bit
// by bit from the top: at most 32 rounds of vector compares, fewer for shallow queues.
void TopK::find_kth() {
  const uint32_t w = set_.w;
  uint32_t top = 0;
  for (uint32_t i = 0; i < w; ++i) top = set_.depth[i] > top ? set_.depth[i] : top;
  uint32_t x = 0;
  CandidateMask m;
  for (int b = std::bit_width(top); b >= 0; --b) {
    const uint64_t next = x | (uint64_t{1} << b);
    if (next > top) continue;  // v <= top
    m.build<Cmp::kLess>(set_.depth, w, static_cast<uint32_t>(next));
    if (m.count < k_now_) x = static_cast<uint32_t>(next);
  }
  v_ = x;
  below_.build<Cmp::kLess>(set_.depth, w, x);
  at_.build<Cmp::kEqual>(set_.depth, w, x);
}

void TopK::raised(uint32_t c, uint32_t d) {
  const uint32_t now = set_.depth[c];
  if (d < v_) {
    below_.clear(c);
    if (now < v_) {
      below_.set(c);
    } else if (now == v_) {
      at_.set(c);
    }
  } else {  // d == v_: a chosen candidate is at or below v
    at_.clear(c);
  }
  if (below_.count + at_.count < k_now_) find_kth();
}

void TopK::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.begin(queues_);
  Rng& rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set_.load(p, queues_)) {
      uint32_t k = k_ != 0 ? k_ : set_.w / 2;
      if (k == 0) k = 1;
      if (k > set_.w) k = set_.w;
      k_now_ = k;
      find_kth();
    }
    // Uniform over a uniformly random k-subset: a sure member with probability lo/k, else any
    // member of the tie group, all equally likely (members in candidate order).
    const uint32_t r = rng.below(k_now_);
    const uint32_t c = r < below_.count ? below_.select(r) : at_.select(rng.below(at_.count));
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      const uint32_t d = set_.depth[c];
      set_.depth[c] += grew;
      raised(c, d);
    }
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

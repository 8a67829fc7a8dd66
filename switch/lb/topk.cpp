#include "switch/lb/topk.h"

#include <utility>

namespace spraylab::lb {

// Insertion sort: w is at most a switch radix and the sort is paid once per candidate set per
// burst, not per packet.
void TopK::sort_set() {
  for (uint32_t i = 0; i < set_.w; ++i) {
    uint32_t j = i;
    const uint32_t d = set_.depth[i];
    while (j > 0 && set_.depth[order_[j - 1]] > d) {
      order_[j] = order_[j - 1];
      --j;
    }
    order_[j] = static_cast<uint8_t>(i);
  }
}

// Candidate c's depth grew: move it right until the order is sorted again.
void TopK::moved_up(uint32_t c) {
  uint32_t j = 0;
  while (order_[j] != c) ++j;
  while (j + 1 < set_.w && set_.depth[order_[j + 1]] < set_.depth[c]) {
    std::swap(order_[j], order_[j + 1]);
    ++j;
  }
}

// The r-th candidate (in candidate order) whose depth is below v, or equals v.
uint32_t TopK::nth_below(uint32_t v, uint32_t r) const {
  for (uint32_t i = 0;; ++i) {
    if (set_.depth[i] < v && r-- == 0) return i;
  }
}
uint32_t TopK::nth_equal(uint32_t v, uint32_t r) const {
  for (uint32_t i = 0;; ++i) {
    if (set_.depth[i] == v && r-- == 0) return i;
  }
}

void TopK::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.reset();
  Rng& rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set_.load(p, queues_)) sort_set();
    const uint32_t w = set_.w;
    uint32_t k = k_ != 0 ? k_ : w / 2;
    if (k == 0) k = 1;
    if (k > w) k = w;
    // order_[0, lo) are strictly below the k-th smallest depth v; order_[lo, hi] all equal v.
    const uint32_t v = set_.depth[order_[k - 1]];
    uint32_t lo = k - 1;
    while (lo > 0 && set_.depth[order_[lo - 1]] == v) --lo;
    uint32_t hi = k - 1;
    while (hi + 1 < w && set_.depth[order_[hi + 1]] == v) ++hi;
    // Uniform over a uniformly random k-subset: a sure member with probability lo/k, else any
    // member of the tie group, all equally likely. Members are counted in candidate order, not in
    // sorted order, so the choice depends on the depths alone (not on how the sort met ties):
    // what a per-burst structure can reproduce without keeping a sorted order.
    const uint32_t r = rng.below(k);
    const uint32_t c = r < lo ? nth_below(v, r) : nth_equal(v, rng.below(hi - lo + 1));
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      set_.depth[c] += grew;
      moved_up(c);
    }
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

// Top-k (PSP §II; ALGORITHMS.md, Baselines): the k candidates with the smallest (possibly stale)
// queues, k = w/2 by default; (choice) uniform among them. Ports tied with the k-th smallest depth
// are admitted at random, so every port of the tie is equally likely to be among the k. The r-th
// member is counted in candidate order (the distribution is the same for any order).
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

class TopK final : public Balancer {
 public:
  // k = 0: w/2 (at least 1).
  TopK(uint32_t k, BurstQueues queues) : k_(k), queues_(std::move(queues)) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  void sort_set();
  void moved_up(uint32_t c);
  uint32_t nth_below(uint32_t v, uint32_t r) const;
  uint32_t nth_equal(uint32_t v, uint32_t r) const;

  uint32_t k_;
  BurstQueues queues_;
  CandidateDepths set_;
  uint8_t order_[kMaxCandidates];  // candidate indices by ascending depth
};

}  // namespace spraylab::lb

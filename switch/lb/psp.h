// PSP, probabilistic state-proportional selection (PSP §III): each candidate's queue is mapped to
// a band with thresholds Th/n, 2Th/n, …, Th (band = min(n, floor(q·n/Th) + 1)); band b has weight
// n − b + 1 (the paper's (n − b + 1)/Sum, the 1/Sum cancels); a port is drawn with probability
// proportional to its weight through prefix sums and one uniform draw (PSP §III-A, stage 3).
// (choice) A queue at or beyond Th weighs `saturated_weight` (default 1, the paper's last band;
// 0 excludes the port). If every candidate weighs 0 the choice is uniform.
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

inline constexpr uint32_t kPspDefaultBands = 4;

// The weight of a queue of depth q: n − floor(q·n/Th) below Th, `saturated` at or beyond it.
inline uint32_t psp_weight(uint64_t q, uint32_t n, uint64_t th, uint32_t saturated) {
  const uint32_t f = band_floor(q, n, th);
  return f < n ? n - f : saturated;
}

class Psp final : public Balancer {
 public:
  // threshold = 0: Th is each port's buffer.
  Psp(uint32_t bands, uint64_t threshold, uint32_t saturated_weight, BurstQueues queues)
      : n_(bands),
        threshold_(threshold),
        saturated_(saturated_weight),
        queues_(std::move(queues)) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  uint32_t weight(uint32_t i) const;
  void prefix_from(uint32_t i);

  uint32_t n_;
  uint64_t threshold_;
  uint32_t saturated_;
  BurstQueues queues_;
  CandidateDepths set_;
  uint32_t weight_[kMaxCandidates];
  uint32_t prefix_[kMaxCandidates];  // prefix_[i] = weight_[0] + … + weight_[i]
};

}  // namespace spraylab::lb

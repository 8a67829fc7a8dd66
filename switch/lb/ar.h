// AR, adaptive routing as htsim models Spectrum-X (ALGORITHMS.md, Baselines; htsim
// `FatTreeSwitch::adaptive_route` with `compare_queuesize`): each queue is quantised into bands
// <5%, <10%, <20%, ≥20% of its port's buffer, and the choice is uniform among the candidates in
// the lowest band. The quantised state is refreshed every `state_update_ns` (htsim's update
// period, default 100 ns).
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

// htsim's quantised queue size: 0..3 for <5%, <10%, <20%, ≥20% of `buffer`.
inline uint32_t ar_band(uint64_t depth, uint64_t buffer) {
  const uint64_t pct = depth * 100;
  if (pct < 5 * buffer) return 0;
  if (pct < 10 * buffer) return 1;
  if (pct < 20 * buffer) return 2;
  return 3;
}

class Ar final : public Balancer {
 public:
  explicit Ar(BurstQueues queues) : queues_(std::move(queues)) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  struct Bands;  // choose_lowest_key's keys

  BurstQueues queues_;
  CandidateDepths set_;
  LowestKey low_;
  alignas(64) uint32_t band_[kMaxCandidates];
  alignas(64) uint32_t buffer_[kMaxCandidates];  // each candidate's port buffer
  SetPorts buffer_of_;                           // the ports buffer_ was loaded for
};

}  // namespace spraylab::lb

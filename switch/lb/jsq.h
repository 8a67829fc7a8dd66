// JSQ (Ofan §3.1; ALGORITHMS.md, Baselines): the candidate with the smallest queue, ties uniformly
// at random. With `bands: n` it is the PSP paper's banded JSQ (PSP §III-B): depths are quantised
// with PSP's thresholds Th/n, …, Th and the choice is uniform among the lowest non-empty band.
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"
#include "switch/lb/band_thresholds.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

class Jsq final : public Balancer {
 public:
  // bands = 0: exact. `threshold`: Th per port for bands > 0 (band_thresholds.h).
  Jsq(uint32_t bands, BandThresholds threshold, BurstQueues queues)
      : bands_(bands), threshold_(std::move(threshold)), queues_(std::move(queues)) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  // choose_lowest_key's keys: the depths themselves (exact), or their bands.
  struct Exact;
  struct Banded;

  uint32_t bands_;
  BandThresholds threshold_;
  BurstQueues queues_;
  CandidateDepths set_;
  LowestKey low_;
  alignas(64) uint32_t key_[kMaxCandidates];
  alignas(64) double th_[kMaxCandidates];      // Th of each candidate's port (banded)
  SetPorts th_of_;                             // the ports th_ was loaded for
  BandEdges edges_;                            // the bands' edges 1..n−1 from th_ (banded)
  alignas(64) uint32_t next_[kMaxCandidates];  // with edges_: the depth of each one's next band
};

}  // namespace spraylab::lb

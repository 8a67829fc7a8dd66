// AR, adaptive routing as htsim models Spectrum-X (ALGORITHMS.md, Baselines; htsim
// `FatTreeSwitch::adaptive_route` with `compare_queuesize`): each queue is quantised into bands
// <5%, <10%, <20%, ≥20% of its port's buffer, and the choice is uniform among the candidates in
// the lowest band. The quantised state is refreshed every `state_update_ns` (htsim's update
// period, default 100 ns). The buffer is the port's buffer (`buffer.bytes`) in the queue unit, as
// htsim's `maxsize()`; frames under kArHashedBelow bytes (ACKs, NACKs, trimmed headers) take
// ECMP's hash instead, as htsim's getNextHop does, so they do not "pollute the tables".
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"
#include "switch/lb/band_thresholds.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

// htsim's quantised queue size: 0..3 for <5%, <10%, <20%, ≥20% of `buffer`.
inline uint32_t ar_band(uint64_t depth, double buffer) {
  const double pct = static_cast<double>(depth) * 100;
  if (pct < 5 * buffer) return 0;
  if (pct < 10 * buffer) return 1;
  if (pct < 20 * buffer) return 2;
  return 3;
}

// htsim's getNextHop: `if (pkt.size() < 100)` a packet is hashed, not adaptively routed.
inline constexpr uint32_t kArHashedBelow = 100;

class Ar final : public Balancer {
 public:
  // `buffers`: each port's buffer in the queue unit (BandThresholds as a per-port table: AR's
  // bands are thresholds at 5, 10 and 20 % of it); uniform 0: the queue view's capacities, for
  // tests and benchmarks built by hand.
  explicit Ar(BurstQueues queues, BandThresholds buffers = {}, uint32_t salt = 0)
      : queues_(std::move(queues)), buffers_(std::move(buffers)), salt_(salt) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  struct Bands;  // choose_lowest_key's keys

  // Up to kPart packets of a burst: small frames by hash (htsim's ECMP for pkt.size() < 100),
  // the rest adaptively. (A part is what one view of the queues decides: bursts were cut into
  // parts when the data frames were gathered into an array of this size; kept so that a larger
  // burst is decided as before.)
  static constexpr size_t kPart = 64;
  void choose_part(std::span<const Packet> part, const BurstContext& ctx, PortId* out);

  BurstQueues queues_;
  BandThresholds buffers_;
  uint32_t salt_;
  CandidateDepths set_;
  LowestKey low_;
  alignas(64) uint32_t band_[kMaxCandidates];
  alignas(64) double buffer_[kMaxCandidates];  // each candidate's port buffer, in the queue unit
  SetPorts buffer_of_;                         // the ports buffer_ was loaded for
  // The bands' edges as depths, from buffer_: band >= j + 1 exactly when depth >= edge_[j][i] =
  // ceil(p·buffer / 100) for p = 5, 10, 20 (100·depth >= p·buffer in integers, which is what
  // ar_band compares in doubles: both products are exact there). Three integer compares per
  // sixteen candidates where ar_band converted and multiplied eight at a time, per loaded set.
  // false: a buffer beyond 32 bits, ar_band instead.
  bool edges_usable_ = false;
  alignas(64) uint32_t edge_[3][kMaxCandidates];
};

}  // namespace spraylab::lb

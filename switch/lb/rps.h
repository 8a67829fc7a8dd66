// RPS / RSQ (ALGORITHMS.md, Baselines; Ofan §3.1): a uniformly random candidate per packet, drawn
// by the switch from the lcore's generator.
#pragma once

#include "switch/lb/balancer.h"

namespace spraylab::lb {

class Rps final : public Balancer {
 public:
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override {
    for (size_t i = 0; i < burst.size(); ++i) {
      const Packet& p = burst[i];
      out[i] = p.num_candidates == 0 ? kNoPort : p.candidates[ctx.rng->below(p.num_candidates)];
    }
  }
};

}  // namespace spraylab::lb

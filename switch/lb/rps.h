// RPS / RSQ (ALGORITHMS.md, Baselines; Ofan §3.1): a uniformly random candidate per packet, drawn
// by the switch from the lcore's generator.
#pragma once

#include "switch/lb/balancer.h"

namespace spraylab::lb {

class Rps final : public Balancer {
 public:
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override {
    // A local copy keeps the generator's state in registers; through the pointer every draw
    // would be a load and a store, since `out` might alias it as far as the compiler knows.
    Rng rng = *ctx.rng;
    for (size_t i = 0; i < burst.size(); ++i) {
      const Packet& p = burst[i];
      out[i] = p.num_candidates == 0 ? kNoPort : p.candidates[rng.below(p.num_candidates)];
    }
    *ctx.rng = rng;
  }
};

}  // namespace spraylab::lb

// SimpleRR (Ofan §3.1): one round-robin counter, destination-oblivious: the i-th packet goes to
// candidate i mod w. `reshuffle_every: N` reproduces htsim's RR variant, which reshuffles the
// candidate order every N wraps (N = 5 there); 0, the default and the paper's model, never does.
// (choice) The counter is per lcore: a switch-wide counter would need the shared atomics that only
// Ofan is meant to pay for.
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"

namespace spraylab::lb {

class SimpleRr final : public Balancer {
 public:
  explicit SimpleRr(uint32_t reshuffle_every) : reshuffle_every_(reshuffle_every) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  void reset(uint32_t w);

  uint32_t reshuffle_every_;
  uint32_t w_ = 0;      // size of the set the order below covers
  uint32_t pos_ = 0;    // next position in order_
  uint32_t wraps_ = 0;  // wraps since the last reshuffle
  uint16_t order_[kMaxCandidates];
};

}  // namespace spraylab::lb

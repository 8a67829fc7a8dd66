// ECMP (ALGORITHMS.md, Baselines): a hash of the flow's entropy modulo w, so a flow keeps one port.
// The hash is salted per switch so that consecutive switches do not polarise onto one path (htsim's
// `_hash_salt`).
#pragma once

#include <cstdint>

#include "net/mix32.h"
#include "switch/lb/balancer.h"

namespace spraylab::lb {

// Maps a uniform 32-bit value onto [0, n) without a division (Lemire's multiply-shift).
inline uint32_t fast_range(uint32_t x, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(x) * n) >> 32);
}

class Ecmp final : public Balancer {
 public:
  explicit Ecmp(uint32_t salt) : salt_(salt) {}
  void choose(std::span<const Packet> burst, const BurstContext&, PortId* out) override {
    for (size_t i = 0; i < burst.size(); ++i) {
      const Packet& p = burst[i];
      out[i] = p.num_candidates == 0
                   ? kNoPort
                   : p.candidates[fast_range(net::mix32(p.hash ^ salt_), p.num_candidates)];
    }
  }

 private:
  uint32_t salt_;
};

// ECMP `hash: digit`: the host names the path. The entropy e (UDP source port - kEntropyBase, the
// generator's gen::kEntropyMin) is read as a number in base w (the candidates): a switch at level
// L takes digit L, (e / w^L) mod w. In a fat tree, whose switches all have w = k/2 up-ports, the
// w^levels values 0 .. w^levels - 1 name the up-paths one each, so a host rotating over them
// (`workload.entropy: drb`, entropy_range = w^levels) sends one packet on each path per turn.
class EcmpDigit final : public Balancer {
 public:
  static constexpr uint16_t kEntropyBase = 0xC000;
  explicit EcmpDigit(uint32_t level) : level_(level) {}
  void choose(std::span<const Packet> burst, const BurstContext&, PortId* out) override {
    for (size_t i = 0; i < burst.size(); ++i) {
      const Packet& p = burst[i];
      if (p.num_candidates == 0) {
        out[i] = kNoPort;
        continue;
      }
      uint32_t e = static_cast<uint16_t>(p.entropy - kEntropyBase);
      for (uint32_t l = 0; l < level_ && e > 0; ++l) e /= p.num_candidates;
      out[i] = p.candidates[e % p.num_candidates];
    }
  }

 private:
  uint32_t level_;
};

}  // namespace spraylab::lb

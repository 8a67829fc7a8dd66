// The data path's random generator: xoshiro128++ (Blackman & Vigna), one per lcore, seeded from
// the experiment seed and the lcore id so that runs are reproducible. 16 bytes of state, a few
// cycles per draw.
#pragma once

#include <cstdint>

namespace spraylab::lb {

// The one place a switch's randomness comes from: its seed is derived from the experiment seed and
// the switch's index in the routing graph, so every switch of a fabric draws its own stream (RPS
// draws, tie-breaks, the ECMP hash salt, Ofan/pOfan orders and first pointers), while a standalone
// spraylab-switch, which builds the same tables, derives the same values as that switch in the
// fabric. A murmur3 finaliser of each part: nearby seeds and indices give unrelated switch seeds.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
inline uint64_t switch_seed(uint64_t experiment_seed, uint32_t switch_index) {
  return mix64(experiment_seed ^ mix64(switch_index + 1ULL));
}

class Rng {
 public:
  // Expands (seed, stream) with splitmix64, as the xoshiro authors recommend for seeding.
  explicit Rng(uint64_t seed, uint64_t stream = 0) {
    uint64_t x = seed ^ (stream * 0xda942042e4dd58b5ULL);
    for (uint32_t& s : s_) {
      x += 0x9e3779b97f4a7c15ULL;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = static_cast<uint32_t>((z ^ (z >> 31)) >> 16);
    }
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;  // the all-zero state is a fixed point
  }
  // The generator of lcore `lcore` of a switch seeded with `seed` (switch_seed()).
  static Rng for_lcore(uint64_t seed, uint32_t lcore) { return Rng(seed, lcore + 1); }

  uint32_t next() {
    const uint32_t result = rotl(s_[0] + s_[3], 7) + s_[0];
    const uint32_t t = s_[1] << 9;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 11);
    return result;
  }

  // Uniform in [0, n), n > 0, without bias (Lemire's multiply-and-reject; the rejection branch is
  // taken with probability < n / 2^32).
  uint32_t below(uint32_t n) {
    uint64_t m = static_cast<uint64_t>(next()) * n;
    auto low = static_cast<uint32_t>(m);
    if (low < n) {
      const uint32_t threshold = (0u - n) % n;
      while (low < threshold) {
        m = static_cast<uint64_t>(next()) * n;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

 private:
  static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
  uint32_t s_[4];
};

}  // namespace spraylab::lb

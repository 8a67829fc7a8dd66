// A small, fast, seeded random number generator, one per object that needs randomness.
//
// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014): one
// 64-bit word of state, passes BigCrush, and — unlike std::uniform_int_distribution — gives the
// same sequence on every compiler, so a seed names a workload everywhere.
#pragma once

#include <cstdint>

namespace spraylab::gen {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, bound), bound > 0. Lemire's multiply-shift with rejection: exact, no modulo.
  uint64_t below(uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t threshold = -bound % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace spraylab::gen

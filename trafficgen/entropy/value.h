// An entropy value is a UDP source port from the IANA ephemeral range: kEntropyMin + [0, range),
// range at most kMaxEntropyRange (14 bits). Switches ECMP-hash it, so it names a path. Shared by
// every selector (trafficgen/entropy/*.h) and the modes in trafficgen/entropy.h.
#pragma once

#include <cstdint>

#include "trafficgen/entropy_mode.h"
#include "trafficgen/rng.h"

namespace spraylab::gen {

inline constexpr uint16_t kEntropyMin = 0xC000;
static_assert((kEntropyMin & (kMaxEntropyRange - 1)) == 0,
              "the low 14 bits of a port are its entropy index: masking a port gives the index");

inline uint16_t random_entropy(Rng& rng, uint32_t range) {
  return static_cast<uint16_t>(kEntropyMin + rng.below(range));
}

}  // namespace spraylab::gen

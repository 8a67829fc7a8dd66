// MRLS generator parameters for tests: N1 leaves, u uplinks, d hosts per leaf, a seed.
#pragma once

#include "topo/generators.h"

namespace spraylab::topo {

inline MrlsParams params(uint32_t n1, uint32_t u, uint32_t d, uint64_t seed) {
  MrlsParams p;
  p.leaves = n1;
  p.uplinks = u;
  p.downlinks = d;
  p.seed = seed;
  return p;
}

}  // namespace spraylab::topo

// murmur3's 32-bit finaliser: every input bit flips each output bit with probability about 1/2.
// The frame's flow hash (net/frame.h) and ECMP's salted hash (switch/lb/ecmp.h) both mix with it.
#pragma once

#include <cstdint>

namespace spraylab::net {

inline uint32_t mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace spraylab::net

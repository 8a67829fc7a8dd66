#include "trafficgen/entropy/oblivious.h"

#include <stdexcept>

namespace spraylab::gen {

namespace {
uint16_t checked_mask(uint32_t range) {
  if (!is_power_of_two(range) || range > kMaxEntropyRange) {
    throw std::invalid_argument(
        "oblivious and bitmap entropy: the range must be a power of two "
        "in [1, 16384]");
  }
  return static_cast<uint16_t>(range - 1);
}
}  // namespace

// uec_mp.cpp UecMpOblivious: the upper bits first (_path_random), then the first cycle's XOR.
// The reference draws 16 upper bits; a port keeps 14 of its own above 0xC000.
ObliviousEntropy::ObliviousEntropy(uint64_t seed, const EntropyParams& params)
    : rng_(seed), mask_(checked_mask(params.range)) {
  upper_ = static_cast<uint16_t>(rng_.below(kMaxEntropyRange) & ~static_cast<uint32_t>(mask_));
  xor_ = static_cast<uint16_t>(rng_.below(range()));
}

}  // namespace spraylab::gen

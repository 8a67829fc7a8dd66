#include "trafficgen/entropy/bitmap.h"

#include <algorithm>

namespace spraylab::gen {

BitmapEntropy::BitmapEntropy(uint64_t seed, const EntropyParams& params)
    : cycle_(seed, params),
      penalty_(cycle_.range(), 0),
      ecn_penalty_(params.bitmap_ecn_penalty),
      nack_penalty_(params.bitmap_nack_penalty),
      max_penalty_(params.bitmap_max_penalty) {}

// uec_mp.cpp UecMpBitmap::processEv: add, then cap at the maximum.
void BitmapEntropy::penalise(uint16_t entropy, uint32_t amount) {
  uint8_t& p = penalty_[cycle_.index_of(entropy)];
  p = static_cast<uint8_t>(std::min<uint32_t>(p + amount, max_penalty_));
}

// uec_mp.cpp UecMpBitmap::nextEntropy, step for step.
uint16_t BitmapEntropy::next() {
  uint16_t index = cycle_.peek();
  uint32_t steps = 0;
  while (penalty_[index] > 0) {
    if (steps == 0) --penalty_[index];    // the decay: only the first penalised EV met
    if (++steps > cycle_.range()) break;  // all penalised: send this one anyway
    cycle_.advance();
    index = cycle_.peek();
  }
  cycle_.advance();
  return cycle_.port(index);
}

}  // namespace spraylab::gen

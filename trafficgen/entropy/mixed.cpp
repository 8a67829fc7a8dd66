#include "trafficgen/entropy/mixed.h"

namespace spraylab::gen {

MixedEntropy::MixedEntropy(uint64_t seed, const EntropyParams& params)
    : bitmap_(seed, params), recycle_(kRecycleCapacity, 0) {}

// uec_mp.cpp UecMpMixed::nextEntropy: nextEntropyRecycle() (pop the front), else the bitmap.
uint16_t MixedEntropy::next() {
  if (queued_ == 0) return bitmap_.next();
  const uint16_t entropy = recycle_[front_];
  front_ = (front_ + 1) % kRecycleCapacity;
  --queued_;
  return entropy;
}

// uec_mp.cpp UecMpMixed::processEv: both parts see the feedback; UecMpRepsLegacy keeps PATH_GOOD.
void MixedEntropy::on_ack(uint16_t entropy, bool ecn_echo) {
  bitmap_.on_ack(entropy, ecn_echo);
  if (ecn_echo) return;
  if (queued_ == kRecycleCapacity) {  // full: the oldest entry goes
    front_ = (front_ + 1) % kRecycleCapacity;
    --queued_;
    ++dropped_;
  }
  recycle_[(front_ + queued_) % kRecycleCapacity] = entropy;
  ++queued_;
}

}  // namespace spraylab::gen

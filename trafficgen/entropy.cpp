#include "trafficgen/entropy.h"

#include <stdexcept>

namespace spraylab::gen {

uint16_t random_entropy(Rng& rng) {
  return static_cast<uint16_t>(kEntropyMin + rng.below(0x10000 - kEntropyMin));
}

uint64_t flow_seed(uint64_t seed, uint32_t src, uint32_t dst) {
  Rng mix(seed ^ (static_cast<uint64_t>(src) << 32 | dst));
  return mix.next();
}

uint32_t RepsEntropy::unused() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < stored_; ++i) n += fresh_[(oldest() + i) % kRingSize] ? 1 : 0;
  return n;
}

void RepsEntropy::thaw_if_due(uint64_t now_ns) {
  if (!freezing_ || now_ns < frozen_until_) return;
  freezing_ = false;
  stored_ = 0;
  fresh_.fill(false);
  explore_left_ = kExplorePackets;
}

uint16_t RepsEntropy::next(uint64_t now_ns) {
  thaw_if_due(now_ns);
  if (freezing_) {
    if (stored_ == 0) return random_entropy(rng_);
    const uint16_t v = value_[(oldest() + cycle_ % stored_) % kRingSize];
    cycle_ = (cycle_ + 1) % stored_;
    return v;
  }
  if (explore_left_ > 0) {
    --explore_left_;
    return random_entropy(rng_);
  }
  // The oldest value not yet reused: it has waited longest, and each good ACK buys one reuse.
  for (uint32_t i = 0; i < stored_; ++i) {
    const uint32_t at = (oldest() + i) % kRingSize;
    if (fresh_[at]) {
      fresh_[at] = false;
      return value_[at];
    }
  }
  return random_entropy(rng_);
}

void RepsEntropy::on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns) {
  thaw_if_due(now_ns);
  if (ecn_echo || freezing_) return;
  value_[head_] = entropy;
  fresh_[head_] = true;
  head_ = (head_ + 1) % kRingSize;
  if (stored_ < kRingSize) ++stored_;
}

void RepsEntropy::on_timeout(uint64_t now_ns) {
  thaw_if_due(now_ns);
  if (!freezing_) cycle_ = 0;
  freezing_ = true;
  frozen_until_ = now_ns + kFreezeNs;
  explore_left_ = 0;
}

PathEntropy::PathEntropy(EntropyMode mode, uint64_t seed)
    : mode_(mode), rng_(seed), fixed_(random_entropy(rng_)), reps_(rng_.next()) {}

uint16_t PathEntropy::next_varying(uint64_t now_ns) {
  return mode_ == EntropyMode::kPacket ? random_entropy(rng_) : reps_.next(now_ns);
}

void PathEntropy::on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns) {
  if (mode_ == EntropyMode::kReps) reps_.on_ack(entropy, ecn_echo, now_ns);
}

void PathEntropy::on_timeout(uint64_t now_ns) {
  if (mode_ == EntropyMode::kReps) reps_.on_timeout(now_ns);
}

}  // namespace spraylab::gen

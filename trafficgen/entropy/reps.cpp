#include "trafficgen/entropy/reps.h"

#include <stdexcept>

namespace spraylab::gen {

RepsEntropy::RepsEntropy(uint64_t seed, const EntropyParams& params)
    : rng_(seed), range_(params.range), freezing_(params.reps_freezing), ring_(params.reps_buffer) {
  if (range_ == 0 || range_ > kMaxEntropyRange || ring_.empty()) {
    throw std::invalid_argument("REPS: entropy range must be in [1, 16384], buffer at least 1");
  }
}

uint32_t RepsEntropy::unused() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < stored_; ++i) n += ring_[(oldest() + i) % size()].fresh ? 1 : 0;
  return n;
}

// uec_mp.cpp: a freeze ends on the first feedback strictly after its end (now > can_exit): the
// ring is reset (buffer_reps.cpp resetBuffer) and the next 16 packets explore.
void RepsEntropy::thaw_if_due(uint64_t now_ns) {
  if (!frozen_ || now_ns <= frozen_until_) return;
  frozen_ = false;
  ring_.assign(ring_.size(), Slot{});
  head_ = 0;
  stored_ = 0;
  cycle_ = 0;
  explore_left_ = kExplorePackets;
}

uint16_t RepsEntropy::next() {
  if (explore_left_ > 0) {
    --explore_left_;
    return random_entropy(rng_, range_);
  }
  if (frozen_) {
    if (stored_ == 0) return random_entropy(rng_, range_);
    // Slots 0..stored_-1 hold values (the ring fills from slot 0 after a reset): cycle through
    // them, as remove_frozen does, whether or not a value was reused before.
    Slot& s = ring_[cycle_];
    s.fresh = false;
    cycle_ = (cycle_ + 1) % stored_;
    return s.value;
  }
  // The oldest value not yet reused: it has waited longest, and each good ACK buys one reuse.
  for (uint32_t i = 0; i < stored_; ++i) {
    Slot& s = ring_[(oldest() + i) % size()];
    if (s.fresh) {
      s.fresh = false;
      return s.value;
    }
  }
  return random_entropy(rng_, range_);
}

void RepsEntropy::on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns) {
  thaw_if_due(now_ns);
  if (ecn_echo) return;
  // Kept whether or not frozen (uec_mp.cpp adds PATH_GOOD values in both states): a freeze that
  // began with an empty ring recycles the first good paths it learns of.
  ring_[head_] = Slot{entropy, true};
  head_ = (head_ + 1) % size();
  if (stored_ < size()) ++stored_;
}

void RepsEntropy::on_timeout(uint64_t now_ns) {
  // uec_mp.cpp processEv: freeze only when not frozen and not exploring; then the thaw check, so a
  // timeout after a freeze's end thaws it instead of freezing again.
  if (freezing_ && !frozen_ && explore_left_ == 0) {
    frozen_ = true;
    frozen_until_ = now_ns + kFreezeNs;
  }
  thaw_if_due(now_ns);
}

}  // namespace spraylab::gen

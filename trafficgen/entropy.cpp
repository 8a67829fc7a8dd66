#include "trafficgen/entropy.h"

#include <stdexcept>

namespace spraylab::gen {

uint64_t flow_seed(uint64_t seed, uint32_t src, uint32_t dst) {
  Rng mix(seed ^ (static_cast<uint64_t>(src) << 32 | dst));
  return mix.next();
}

PathEntropy::PathEntropy(EntropyMode mode, uint64_t seed, const EntropyParams& params)
    : mode_(mode), range_(params.range), rng_(seed), fixed_(random_entropy(rng_, range_)) {
  if (range_ == 0 || range_ > kMaxEntropyRange) {
    throw std::invalid_argument("path entropy: the range must be in [1, 16384]");
  }
  // One seed for whichever selector, drawn in every mode (it was REPS's alone before the UEC
  // selectors), so flow, packet, reps and drb keep their sequences.
  const uint64_t selector_seed = rng_.next();
  switch (mode_) {
    case EntropyMode::kReps:
      selector_.emplace<RepsEntropy>(selector_seed, params);
      break;
    case EntropyMode::kOblivious:
      selector_.emplace<ObliviousEntropy>(selector_seed, params);
      break;
    case EntropyMode::kBitmap:
      selector_.emplace<BitmapEntropy>(selector_seed, params);
      break;
    case EntropyMode::kMixed:
      selector_.emplace<MixedEntropy>(selector_seed, params);
      break;
    case EntropyMode::kFlow:
    case EntropyMode::kPacket:
    case EntropyMode::kDrb:
      break;
  }
  // Drawn after the other modes' values, so their sequences are unchanged by DRB.
  if (mode_ == EntropyMode::kDrb) rotation_ = rng_.below(range_);
}

uint16_t PathEntropy::next_varying() {
  switch (mode_) {
    case EntropyMode::kDrb: {
      const auto value = static_cast<uint16_t>(kEntropyMin + rotation_);
      rotation_ = rotation_ + 1 == range_ ? 0 : rotation_ + 1;
      return value;
    }
    case EntropyMode::kReps:
      return std::get_if<RepsEntropy>(&selector_)->next();
    case EntropyMode::kOblivious:
      return std::get_if<ObliviousEntropy>(&selector_)->next();
    case EntropyMode::kBitmap:
      return std::get_if<BitmapEntropy>(&selector_)->next();
    case EntropyMode::kMixed:
      return std::get_if<MixedEntropy>(&selector_)->next();
    case EntropyMode::kFlow:
      return fixed_;
    case EntropyMode::kPacket:
      break;
  }
  return random_entropy(rng_, range_);
}

// The feedback each selector takes (uec.cpp: processAck, processNack, rtxTimerExpired call
// UecMultipath::processEv with PATH_GOOD/PATH_ECN, PATH_NACK and PATH_TIMEOUT). Oblivious, flow,
// packet and drb take none.
void PathEntropy::on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns) {
  if (auto* reps = std::get_if<RepsEntropy>(&selector_)) reps->on_ack(entropy, ecn_echo, now_ns);
  if (auto* bitmap = std::get_if<BitmapEntropy>(&selector_)) bitmap->on_ack(entropy, ecn_echo);
  if (auto* mixed = std::get_if<MixedEntropy>(&selector_)) mixed->on_ack(entropy, ecn_echo);
}

void PathEntropy::on_nack(uint16_t entropy, uint64_t now_ns) {
  if (auto* reps = std::get_if<RepsEntropy>(&selector_)) reps->on_nack(now_ns);
  if (auto* bitmap = std::get_if<BitmapEntropy>(&selector_)) bitmap->on_nack(entropy);
  if (auto* mixed = std::get_if<MixedEntropy>(&selector_)) mixed->on_nack(entropy);
}

void PathEntropy::on_timeout(uint64_t now_ns) {
  if (auto* reps = std::get_if<RepsEntropy>(&selector_)) reps->on_timeout(now_ns);
  if (auto* bitmap = std::get_if<BitmapEntropy>(&selector_)) bitmap->on_timeout();
  if (auto* mixed = std::get_if<MixedEntropy>(&selector_)) mixed->on_timeout();
}

}  // namespace spraylab::gen

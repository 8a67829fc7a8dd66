#include "trafficgen/reorder.h"

#include <bit>

namespace spraylab::gen {

uint32_t ReorderTracker::bucket_of(uint64_t distance) {
  const auto b = static_cast<uint32_t>(std::bit_width(distance) - 1);  // floor(log2), d >= 1
  return b < kBuckets ? b : kBuckets - 1;
}

void ReorderTracker::on_packet(uint32_t sequence) {
  ++counters_[static_cast<std::size_t>(ReorderCounter::kReceived)];
  if (sequence >= seen_.size()) seen_.resize(static_cast<std::size_t>(sequence) + 1, false);
  if (seen_[sequence]) {
    ++counters_[static_cast<std::size_t>(ReorderCounter::kDuplicate)];
    return;
  }
  seen_[sequence] = true;
  ++counters_[static_cast<std::size_t>(ReorderCounter::kUnique)];
  if (any_ && sequence < highest_) {
    const uint64_t distance = highest_ - sequence;
    ++counters_[static_cast<std::size_t>(ReorderCounter::kOutOfOrder)];
    ++histogram_[bucket_of(distance)];
    if (distance > max_distance_) max_distance_ = distance;
    return;
  }
  highest_ = sequence;
  any_ = true;
}

std::vector<uint32_t> ReorderTracker::missing(uint32_t expected) const {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < expected; ++s) {
    if (s >= seen_.size() || !seen_[s]) out.push_back(s);
  }
  return out;
}

uint64_t ReorderTracker::missing_count(uint32_t expected) const {
  uint64_t n = 0;
  for (uint32_t s = 0; s < expected; ++s) n += (s >= seen_.size() || !seen_[s]) ? 1 : 0;
  return n;
}

}  // namespace spraylab::gen

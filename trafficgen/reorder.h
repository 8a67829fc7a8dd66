// Loss and reordering seen by a receiver, per flow (one message's packets, by sequence number).
//
// Definitions (after RFC 4737 §3–4):
//   out of order — a new packet whose sequence is below the highest sequence received before it.
//   reorder distance — for such a packet, highest sequence so far minus its sequence (>= 1): how
//     many places late it is. Histogram buckets are powers of two: [1], [2,3], [4,7], … .
//   duplicate — a sequence received before (not counted as out of order again).
//   missing — a sequence below the expected packet count never received.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spraylab::gen {

// Counter names, declared once for the exporter, the JSON results and the docs.
enum class ReorderCounter : uint8_t { kReceived, kUnique, kOutOfOrder, kDuplicate, kCount };
inline constexpr std::array<const char*, static_cast<std::size_t>(ReorderCounter::kCount)>
    kReorderCounterNames = {"received", "unique", "out_of_order", "duplicate"};

class ReorderTracker {
 public:
  static constexpr uint32_t kBuckets = 16;  // the last bucket holds distances >= 2^15

  // Sizes the seen-set for sequences below `expected` up front, so on_packet() allocates
  // nothing for them (the generator's data path).
  void reserve(uint32_t expected) {
    if (seen_.size() < expected) seen_.resize(expected, false);
  }
  // A packet of this flow arrived.
  void on_packet(uint32_t sequence);
  bool seen(uint32_t sequence) const { return sequence < seen_.size() && seen_[sequence]; }

  uint64_t count(ReorderCounter c) const { return counters_[static_cast<std::size_t>(c)]; }
  uint64_t received() const { return count(ReorderCounter::kReceived); }
  uint64_t unique() const { return count(ReorderCounter::kUnique); }
  uint64_t out_of_order() const { return count(ReorderCounter::kOutOfOrder); }
  uint64_t duplicates() const { return count(ReorderCounter::kDuplicate); }
  // Bucket b counts reorder distances d with floor(log2 d) = b (the last: all larger).
  const std::array<uint64_t, kBuckets>& distance_histogram() const { return histogram_; }
  static uint32_t bucket_of(uint64_t distance);
  uint64_t max_distance() const { return max_distance_; }

  // Sequences in [0, expected) never received, in order; and how many.
  std::vector<uint32_t> missing(uint32_t expected) const;
  uint64_t missing_count(uint32_t expected) const;

 private:
  std::array<uint64_t, static_cast<std::size_t>(ReorderCounter::kCount)> counters_{};
  std::array<uint64_t, kBuckets> histogram_{};
  std::vector<bool> seen_;
  bool any_ = false;
  uint32_t highest_ = 0;
  uint64_t max_distance_ = 0;
};

}  // namespace spraylab::gen

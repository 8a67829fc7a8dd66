// A fixed-size log-linear histogram of latencies in ns (HDR-style: 16 sub-buckets per power of
// two, so a percentile is within 1/16 = 6.25% of the true value). Recording is one bit scan and
// one increment, with no allocation: it runs on the data path.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace spraylab::gen {

class LatencyHistogram {
 public:
  static constexpr uint32_t kSubBits = 4;
  static constexpr uint32_t kSub = 1u << kSubBits;
  static constexpr uint32_t kBuckets = (64 - kSubBits + 1) * kSub;

  void record(uint64_t ns) {
    ++counts_[bucket_of(ns)];
    ++total_;
    sum_ += ns;
    if (ns > max_) max_ = ns;
    if (ns < min_) min_ = ns;
  }
  void merge(const LatencyHistogram& o) {
    for (uint32_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    sum_ += o.sum_;
    if (o.max_ > max_) max_ = o.max_;
    if (o.min_ < min_) min_ = o.min_;
  }

  uint64_t count() const { return total_; }
  // The bins (bin b holds [lower_bound_of(b), + width_of(b))) and the sum of the samples, for a
  // reader on another thread while the owner records (trafficgen/gen_metrics.h).
  const std::array<uint64_t, kBuckets>& counts() const { return counts_; }
  const uint64_t& sum() const { return sum_; }
  uint64_t max() const { return max_; }
  uint64_t min() const { return total_ ? min_ : 0; }
  double mean() const { return total_ ? static_cast<double>(sum_) / total_ : 0; }
  // The value below which a fraction q of the samples lie: the midpoint of the bucket holding
  // the ⌈q·n⌉-th sample, clamped to [min, max]. 0 when empty.
  uint64_t percentile(double q) const {
    if (total_ == 0) return 0;
    uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(total_) + 0.999999);
    if (rank == 0) rank = 1;
    uint64_t seen = 0;
    for (uint32_t b = 0; b < kBuckets; ++b) {
      seen += counts_[b];
      if (seen >= rank) {
        const uint64_t mid = lower_bound_of(b) + (width_of(b) - 1) / 2;
        return mid < min_ ? min_ : (mid > max_ ? max_ : mid);
      }
    }
    return max_;
  }

  static uint32_t bucket_of(uint64_t v) {
    if (v < kSub) return static_cast<uint32_t>(v);
    const uint32_t exp = static_cast<uint32_t>(std::bit_width(v)) - kSubBits;  // >= 1
    return exp * kSub + static_cast<uint32_t>((v >> (exp - 1)) & (kSub - 1));
  }
  static uint64_t lower_bound_of(uint32_t b) {
    const uint32_t exp = b / kSub, sub = b % kSub;
    if (exp == 0) return sub;
    return (static_cast<uint64_t>(kSub) | sub) << (exp - 1);
  }
  static uint64_t width_of(uint32_t b) { return b < kSub ? 1 : uint64_t{1} << (b / kSub - 1); }

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;
};

}  // namespace spraylab::gen

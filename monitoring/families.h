// Building blocks of a scrape: metric declarations, MetricFamily builders, cumulative histograms
// from per-bucket counts, and the racy read of a value a data-path lcore writes.
//
// Collectors (switch_metrics.h, gen_metrics.h) build their families at scrape time from the data
// path's own counters: nothing is copied periodically and the data path never waits for a scrape.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace spraylab::monitoring {

// One metric as the docs and the exposition name it: declared once per metric in a collector's
// list (SPRAYLAB_SWITCH_METRICS, SPRAYLAB_GEN_METRICS).
struct MetricSpec {
  std::string_view name;
  prometheus::MetricType type;
  std::string_view labels;  // comma-separated label names, "" for none
  std::string_view help;
};

std::string_view type_name(prometheus::MetricType t);  // "counter", "gauge", "histogram", ...

using Labels = std::vector<prometheus::ClientMetric::Label>;

prometheus::MetricFamily make_family(const MetricSpec& spec);
// Appends a sample with these labels and returns it for the caller to fill in.
prometheus::ClientMetric& add_metric(prometheus::MetricFamily& f, Labels labels);
void add_value(prometheus::MetricFamily& f, Labels labels, double value);  // counter or gauge

// A histogram from per-bucket (not cumulative) counts: counts[i] holds the samples in
// (bounds[i-1], bounds[i]]; counts[bounds.size()] the samples above the last bound (+Inf).
prometheus::ClientMetric::Histogram make_histogram(std::span<const double> bounds,
                                                   std::span<const uint64_t> counts, double sum);

// Reads a value that a data-path lcore writes with plain (non-atomic) stores, without making the
// writer pay for atomics. Formally a data race: the C++ model has no such read. It is safe on the
// targets DPDK runs on (x86-64, arm64), where an aligned load of up to 8 bytes is single-copy
// atomic, so a reader sees an old or a new value, never a torn one; the relaxed atomic_ref load
// compiles to that plain load and stops the compiler from caching or splitting it. Counters read
// this way are monotonic, so a stale value is only a late one. We never write through it.
// dataplane::racy_load (switch/dataplane/counter.h) is the same read for the switch's data path:
// monitoring/ may include no other part and switch/dataplane/ not monitoring/ (tests/layering),
// and the only header both may include is a name list, so each keeps its own.
template <typename T>
T racy_load(const T& v) {
  static_assert(sizeof(T) <= 8 && std::atomic_ref<T>::is_always_lock_free);
  return std::atomic_ref<T>(const_cast<T&>(v)).load(std::memory_order_relaxed);
}

// Power-of-two buckets for integer samples: bounds 0, 2^min_exp, 2^(min_exp+1), ..., 2^max_exp.
// Bucket i of index() counts samples <= bounds[i]; index() == bounds().size() is +Inf.
class Log2Buckets {
 public:
  constexpr Log2Buckets(uint32_t min_exp, uint32_t max_exp)
      : min_exp_(min_exp), max_exp_(max_exp) {}
  constexpr uint32_t size() const { return max_exp_ - min_exp_ + 2; }  // bounds, +Inf excluded
  constexpr uint32_t index(uint64_t v) const {
    if (v == 0) return 0;
    // v <= 2^e  <=>  bit_width(v - 1) <= e
    const uint32_t e = static_cast<uint32_t>(std::bit_width(v - 1));
    if (e <= min_exp_) return 1;
    return e > max_exp_ ? size() : e - min_exp_ + 1;
  }
  std::vector<double> bounds(double scale = 1) const;  // each bound times `scale`

 private:
  uint32_t min_exp_, max_exp_;
};

}  // namespace spraylab::monitoring

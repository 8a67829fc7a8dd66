#include "trafficgen/gen_metrics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

namespace spraylab::gen {
namespace {

using monitoring::add_metric;
using monitoring::add_value;
using monitoring::make_family;
using monitoring::make_histogram;
using monitoring::racy_load;
using prometheus::MetricFamily;

MetricFamily family(GenMetric m) { return make_family(spec(m)); }

// Per-bucket counts of samples, for make_histogram.
class Observations {
 public:
  explicit Observations(std::vector<double> bounds)
      : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}
  void observe(double v) {
    const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);  // first bound >= v
    ++counts_[it - bounds_.begin()];
    sum_ += v;
  }
  prometheus::ClientMetric::Histogram histogram() const {
    return make_histogram(bounds_, counts_, sum_);
  }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
};

struct CollectiveSpan {
  uint64_t first_ns = UINT64_MAX, last_ns = 0;
  uint32_t messages = 0, done = 0;
};

}  // namespace

GenCollector::GenCollector(GenSource source) : src_(std::move(source)) {}

std::vector<double> GenCollector::completion_bounds() {
  return {1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2,
          2e-2, 5e-2, 0.1,  0.2,  0.5,  1,    2,    5,    10,   20,   50,   100};
}

std::vector<double> GenCollector::inflation_bounds() {
  return {0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100};
}

prometheus::ClientMetric::Histogram latency_histogram(
    const std::vector<const LatencyHistogram*>& parts) {
  using H = LatencyHistogram;
  constexpr uint32_t kMin = GenCollector::kLatencyMinExp, kMax = GenCollector::kLatencyMaxExp;
  std::vector<double> bounds;
  for (uint32_t k = kMin; k <= kMax; ++k) bounds.push_back(std::ldexp(1.0, k) * 1e-9);
  std::vector<uint64_t> counts(bounds.size() + 1, 0);
  double sum_ns = 0;
  for (const H* h : parts) {
    for (uint32_t b = 0; b < H::kBuckets; ++b) {
      const uint64_t n = racy_load(h->counts()[b]);
      if (n == 0) continue;
      // Every value of a recorder bin lies in one power-of-two octave (bins never straddle 2^k,
      // k >= kSubBits), so the bin's lower edge says which bucket holds all of it.
      const uint64_t lo = H::lower_bound_of(b);
      const uint32_t width = static_cast<uint32_t>(std::bit_width(lo));  // lo < 2^width
      const uint32_t i = width <= kMin ? 0 : std::min(width - kMin, kMax - kMin + 1);
      counts[i] += n;
    }
    sum_ns += static_cast<double>(racy_load(h->sum()));
  }
  return make_histogram(bounds, counts, sum_ns * 1e-9);
}

std::vector<MetricFamily> GenCollector::Collect() const {
  std::vector<MetricFamily> out;
  uint64_t done = 0, goodput = 0, reordered = 0;
  Observations msg_time(completion_bounds()), msg_infl(inflation_bounds());
  Observations coll_time(completion_bounds()), coll_infl(inflation_bounds());
  std::vector<CollectiveSpan> spans(src_.schedule ? src_.schedule->collectives.size() : 0);
  std::vector<const LatencyHistogram*> one_way, rtt;
  for (const EngineView& e : src_.engines) {
    if (e.messages_done) done += e.messages_done();
    if (e.acked_bytes) goodput += e.acked_bytes();
    if (e.one_way) one_way.push_back(e.one_way);
    if (e.rtt) rtt.push_back(e.rtt);
    if (e.recvs) {
      for (const RecvState& r : *e.recvs) {
        // Every out-of-order packet lands in exactly one distance bucket (trafficgen/reorder.h).
        for (const uint64_t& n : r.reorder.distance_histogram()) reordered += racy_load(n);
      }
    }
    if (!e.sends || !src_.schedule) continue;
    for (const SendState& s : *e.sends) {
      const uint32_t c = src_.schedule->messages[s.id].collective;
      ++spans[c].messages;
      // The lcore sets done before done_tsc: a message counts once both are in, and stays so.
      const uint64_t first = racy_load(s.first_tx_tsc), last = racy_load(s.done_tsc);
      if (!racy_load(s.done) || first == 0 || last < first) continue;
      const uint64_t first_ns = e.ns_of(first), last_ns = e.ns_of(last);
      const double seconds = static_cast<double>(last_ns - first_ns) * 1e-9;
      msg_time.observe(seconds);
      if (s.id < src_.message_bound_ns.size() && src_.message_bound_ns[s.id] > 0) {
        msg_infl.observe(seconds * 1e9 / src_.message_bound_ns[s.id] - 1);
      }
      CollectiveSpan& span = spans[c];
      ++span.done;
      span.first_ns = std::min(span.first_ns, first_ns);
      span.last_ns = std::max(span.last_ns, last_ns);
    }
  }
  for (size_t c = 0; c < spans.size(); ++c) {
    const CollectiveSpan& s = spans[c];
    if (s.messages == 0 || s.done != s.messages) continue;
    const double seconds = static_cast<double>(s.last_ns - s.first_ns) * 1e-9;
    coll_time.observe(seconds);
    if (c < src_.collective_bound_ns.size() && src_.collective_bound_ns[c] > 0) {
      coll_infl.observe(seconds * 1e9 / src_.collective_bound_ns[c] - 1);
    }
  }

  auto value = [&out](GenMetric m, double v) {
    MetricFamily f = family(m);
    add_value(f, {}, v);
    out.push_back(std::move(f));
  };
  auto histogram = [&out](GenMetric m, prometheus::ClientMetric::Histogram h) {
    MetricFamily f = family(m);
    add_metric(f, {}).histogram = std::move(h);
    out.push_back(std::move(f));
  };
  value(GenMetric::kMessages, static_cast<double>(src_.messages));
  value(GenMetric::kMessagesCompleted, static_cast<double>(done));
  value(GenMetric::kGoodputBytes, static_cast<double>(goodput));
  value(GenMetric::kReorderedPackets, static_cast<double>(reordered));
  histogram(GenMetric::kMessageCompletion, msg_time.histogram());
  histogram(GenMetric::kMessageInflation, msg_infl.histogram());
  histogram(GenMetric::kCollectiveCompletion, coll_time.histogram());
  histogram(GenMetric::kCollectiveInflation, coll_infl.histogram());
  histogram(GenMetric::kOneWayLatency, latency_histogram(one_way));
  histogram(GenMetric::kRtt, latency_histogram(rtt));

  for (size_t c = 0; c < kGenCounters; ++c) {
    MetricFamily f = make_family(kGenCounterMetrics[c]);
    for (const EngineView& e : src_.engines) {
      double v = e.counters ? static_cast<double>(racy_load((*e.counters)[c])) : 0;
      if (c >= kGenFirstNsCounter) v *= 1e-9;  // ns -> s
      add_value(f, {{"lcore", std::to_string(e.lcore)}}, v);
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace spraylab::gen

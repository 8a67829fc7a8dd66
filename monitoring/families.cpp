#include "monitoring/families.h"

#include <cmath>

namespace spraylab::monitoring {

std::string_view type_name(prometheus::MetricType t) {
  switch (t) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Summary:
      return "summary";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Untyped:
      break;
  }
  return "untyped";
}

prometheus::MetricFamily make_family(const MetricSpec& spec) {
  prometheus::MetricFamily f;
  f.name = spec.name;
  f.help = spec.help;
  f.type = spec.type;
  return f;
}

prometheus::ClientMetric& add_metric(prometheus::MetricFamily& f, Labels labels) {
  prometheus::ClientMetric& m = f.metric.emplace_back();
  m.label = std::move(labels);
  return m;
}

void add_value(prometheus::MetricFamily& f, Labels labels, double value) {
  prometheus::ClientMetric& m = add_metric(f, std::move(labels));
  if (f.type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
}

prometheus::ClientMetric::Histogram make_histogram(std::span<const double> bounds,
                                                   std::span<const uint64_t> counts, double sum) {
  prometheus::ClientMetric::Histogram h;
  h.bucket.reserve(bounds.size() + 1);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    h.bucket.push_back({cumulative, bounds[i]});
  }
  for (size_t i = bounds.size(); i < counts.size(); ++i) cumulative += counts[i];
  h.bucket.push_back({cumulative, INFINITY});
  h.sample_count = cumulative;
  h.sample_sum = sum;
  return h;
}

std::vector<double> Log2Buckets::bounds(double scale) const {
  std::vector<double> b{0};
  for (uint32_t e = min_exp_; e <= max_exp_; ++e) b.push_back(std::ldexp(1.0, e) * scale);
  return b;
}

}  // namespace spraylab::monitoring

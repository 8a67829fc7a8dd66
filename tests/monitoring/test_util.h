// Lookups into a scrape (a vector of MetricFamily) for the monitoring tests.
#pragma once

#include <gtest/gtest.h>
#include <prometheus/metric_family.h>

#include <map>
#include <string>
#include <vector>

namespace spraylab::monitoring {

inline const prometheus::MetricFamily* find_family(const std::vector<prometheus::MetricFamily>& fs,
                                                   const std::string& name) {
  for (const auto& f : fs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

inline std::map<std::string, std::string> labels_of(const prometheus::ClientMetric& m) {
  std::map<std::string, std::string> out;
  for (const auto& l : m.label) out[l.name] = l.value;
  return out;
}

// The one sample of `f` whose labels include every pair of `want`; fails the test if there is not
// exactly one.
inline const prometheus::ClientMetric& sample(const prometheus::MetricFamily& f,
                                              const std::map<std::string, std::string>& want) {
  const prometheus::ClientMetric* found = nullptr;
  int matches = 0;
  for (const auto& m : f.metric) {
    const auto have = labels_of(m);
    bool ok = true;
    for (const auto& [k, v] : want) ok = ok && have.count(k) && have.at(k) == v;
    if (ok) {
      found = &m;
      ++matches;
    }
  }
  EXPECT_EQ(matches, 1) << f.name;
  static const prometheus::ClientMetric kEmpty;
  return found ? *found : kEmpty;
}

// Per-bucket (not cumulative) counts of a histogram sample, +Inf last.
inline std::vector<uint64_t> bucket_counts(const prometheus::ClientMetric::Histogram& h) {
  std::vector<uint64_t> out;
  uint64_t prev = 0;
  for (const auto& b : h.bucket) {
    out.push_back(b.cumulative_count - prev);
    prev = b.cumulative_count;
  }
  return out;
}

}  // namespace spraylab::monitoring

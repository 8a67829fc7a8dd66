// Shared fixtures for the load-balancer tests: queue arrays, bursts, a chi-square check.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "switch/lb/balancer.h"

namespace spraylab::lb::testing {

// Egress queues of one switch: depths (atomics, as the data path keeps them) and buffers.
struct Queues {
  explicit Queues(size_t ports, uint32_t capacity = 1000)
      : depth(ports), capacity(ports, capacity) {}
  QueueView view() const { return QueueView(depth.data(), capacity.data(), depth.size()); }
  void set(std::initializer_list<uint32_t> d) {
    size_t p = 0;
    for (uint32_t v : d) depth[p++].store(v);
  }
  std::vector<std::atomic<uint32_t>> depth;
  std::vector<uint32_t> capacity;
};

inline std::vector<PortId> ports(uint32_t w, PortId first = 0) {
  std::vector<PortId> v(w);
  std::iota(v.begin(), v.end(), first);
  return v;
}

inline Packet packet(const std::vector<PortId>& cand, uint32_t hash = 0, uint32_t bytes = 1000) {
  Packet p;
  p.candidates = cand.data();
  p.num_candidates = static_cast<uint16_t>(cand.size());
  p.hash = hash;
  p.bytes = bytes;
  return p;
}

// Chooses for one packet at a time (so a live view's in-burst accounting plays no part).
inline PortId choose_one(Balancer& b, const Packet& p, const QueueView& q, Rng& rng,
                         uint64_t now = 0) {
  PortId out = kNoPort;
  b.choose({&p, 1}, BurstContext{q, &rng, now}, &out);
  return out;
}

// Pearson's statistic of observed counts against expected probabilities.
inline double chi_square(const std::vector<uint64_t>& observed, const std::vector<double>& prob) {
  const double n = std::accumulate(observed.begin(), observed.end(), 0.0);
  double x = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double e = n * prob[i];
    x += (observed[i] - e) * (observed[i] - e) / e;
  }
  return x;
}
// The chi-square critical value at significance 0.001 (Wilson–Hilferty approximation).
inline double chi_square_critical(uint32_t dof) {
  const double z = 3.090;  // one-sided normal quantile of 0.999
  const double k = dof;
  const double t = 1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k));
  return k * t * t * t;
}
inline bool uniform_fit(const std::vector<uint64_t>& observed) {
  return chi_square(observed, std::vector<double>(observed.size(), 1.0 / observed.size())) <
         chi_square_critical(static_cast<uint32_t>(observed.size() - 1));
}

}  // namespace spraylab::lb::testing

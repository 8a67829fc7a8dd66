#include "trafficgen/workloads/all_to_all_v.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "trafficgen/rng.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

std::vector<uint64_t> apportion(const std::vector<double>& weights, uint64_t total) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (!(sum > 0)) throw WorkloadError("all-to-all-v: weights sum to zero");
  std::vector<uint64_t> share(weights.size());
  std::vector<double> rest(weights.size());
  uint64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double quota = weights[i] / sum * static_cast<double>(total);
    share[i] = static_cast<uint64_t>(std::floor(quota));
    rest[i] = quota - std::floor(quota);
    given += share[i];
  }
  // Largest remainders first; ties to the lower index, so the result is deterministic.
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rest[a] > rest[b]; });
  for (size_t k = 0; given < total; k = (k + 1) % order.size()) {
    if (weights[order[k]] > 0) {
      ++share[order[k]];
      ++given;
    }
  }
  // Floating point can overshoot by a unit or so: take it back from the smallest remainders.
  for (size_t k = order.size(); given > total && k-- > 0;) {
    if (share[order[k]] > 0) {
      --share[order[k]];
      --given;
    }
  }
  return share;
}

ByteMatrix zipf_matrix(uint32_t ranks, uint64_t bytes, double s, uint64_t seed) {
  if (ranks < 2) throw WorkloadError("all-to-all-v: needs at least 2 ranks");
  if (!(s >= 0)) throw WorkloadError("all-to-all-v: zipf_s must be >= 0");
  // A random order of destinations (any permutation will do; reuse the seeded shuffle).
  Rng rng(seed);
  std::vector<Rank> place(ranks);
  std::iota(place.begin(), place.end(), 0);
  for (Rank i = ranks - 1; i > 0; --i) std::swap(place[i], place[rng.below(i + 1)]);
  std::vector<double> popularity(ranks);
  for (Rank d = 0; d < ranks; ++d) popularity[d] = std::pow(place[d] + 1.0, -s);

  ByteMatrix m(ranks, std::vector<uint64_t>(ranks, 0));
  for (Rank src = 0; src < ranks; ++src) {
    std::vector<double> w = popularity;
    w[src] = 0;  // a rank's own tokens stay local
    m[src] = apportion(w, static_cast<uint64_t>(ranks - 1) * bytes);
  }
  return m;
}

ByteMatrix scaled_matrix(const std::vector<std::vector<double>>& weights, uint64_t bytes) {
  const size_t n = weights.size();
  if (n < 2) throw WorkloadError("all-to-all-v: matrix needs at least 2 rows");
  std::vector<double> flat;
  for (size_t i = 0; i < n; ++i) {
    if (weights[i].size() != n) {
      throw WorkloadError("all-to-all-v: matrix row " + std::to_string(i) + " has " +
                          std::to_string(weights[i].size()) + " entries, expected " +
                          std::to_string(n));
    }
    for (size_t j = 0; j < n; ++j) {
      const double w = weights[i][j];
      if (!(w >= 0) || std::isinf(w)) {
        throw WorkloadError("all-to-all-v: matrix[" + std::to_string(i) + "][" + std::to_string(j) +
                            "] must be a finite number >= 0");
      }
      if (i == j && w != 0) {
        throw WorkloadError("all-to-all-v: matrix[" + std::to_string(i) + "][" + std::to_string(i) +
                            "] must be 0 (a rank does not send to itself)");
      }
      flat.push_back(w);
    }
  }
  const std::vector<uint64_t> cells = apportion(flat, n * (n - 1) * bytes);
  ByteMatrix m(n, std::vector<uint64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) m[i][j] = cells[i * n + j];
  }
  return m;
}

Schedule all_to_all_v(const ByteMatrix& bytes) {
  Schedule s;
  s.ranks = static_cast<uint32_t>(bytes.size());
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kAllToAllV)));
  for (Rank src = 0; src < s.ranks; ++src) {
    for (Rank dst = 0; dst < s.ranks; ++dst) {
      const uint64_t b = bytes[src][dst];
      if (src != dst && b > 0) s.add_message(src, dst, b, c);
    }
  }
  return s;
}

}  // namespace spraylab::gen

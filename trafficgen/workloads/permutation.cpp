#include "trafficgen/workloads/permutation.h"

#include <utility>

#include "trafficgen/rng.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

std::vector<Rank> random_derangement(uint32_t ranks, uint64_t seed) {
  if (ranks < 2) throw WorkloadError("permutation: needs at least 2 ranks");
  Rng rng(seed);
  std::vector<Rank> p(ranks);
  // Rejection sampling over Fisher-Yates shuffles is exactly uniform over derangements and takes
  // e ≈ 2.72 shuffles on average.
  for (;;) {
    for (Rank i = 0; i < ranks; ++i) p[i] = i;
    for (Rank i = ranks - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
    bool fixed_point = false;
    for (Rank i = 0; i < ranks; ++i) fixed_point = fixed_point || p[i] == i;
    if (!fixed_point) return p;
  }
}

Schedule permutation(uint32_t ranks, uint64_t bytes, uint64_t seed) {
  if (bytes == 0) throw WorkloadError("permutation: message_bytes must be > 0");
  const std::vector<Rank> dst = random_derangement(ranks, seed);
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kPermutation)));
  for (Rank r = 0; r < ranks; ++r) s.add_message(r, dst[r], bytes, c);
  return s;
}

}  // namespace spraylab::gen

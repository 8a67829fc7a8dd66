#include "trafficgen/workloads/placement.h"

#include <string>
#include <utility>

#include "trafficgen/rng.h"

namespace spraylab::gen {

namespace {
// "placemnt" in ASCII: the placement's stream of the run's seed.
constexpr uint64_t kPlacementStream = 0x706c6163656d6e74ULL;
}  // namespace

std::vector<Rank> random_placement(uint32_t ranks, uint64_t seed) {
  Rng rng(seed ^ kPlacementStream);
  std::vector<Rank> host(ranks);
  for (Rank r = 0; r < ranks; ++r) host[r] = r;
  for (Rank i = ranks; i > 1; --i) std::swap(host[i - 1], host[rng.below(i)]);
  return host;
}

void place(Schedule& s, const std::vector<Rank>& host_of_rank) {
  if (host_of_rank.size() != s.ranks) {
    throw WorkloadError("placement: " + std::to_string(host_of_rank.size()) + " hosts for " +
                        std::to_string(s.ranks) + " ranks");
  }
  std::vector<bool> taken(s.ranks, false);
  for (Rank h : host_of_rank) {
    if (h >= s.ranks || taken[h]) {
      throw WorkloadError("placement: host " + std::to_string(h) +
                          " is out of range or placed twice");
    }
    taken[h] = true;
  }
  for (Message& m : s.messages) {
    m.src = host_of_rank[m.src];
    m.dst = host_of_rank[m.dst];
  }
}

}  // namespace spraylab::gen

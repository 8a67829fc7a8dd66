#include "trafficgen/workloads/all_to_all.h"

#include <utility>
#include <vector>

#include "trafficgen/rng.h"

namespace spraylab::gen {

Schedule all_to_all(uint32_t ranks, uint64_t bytes, AllToAllOrder order, uint64_t seed) {
  if (ranks < 2) throw WorkloadError("all-to-all: needs at least 2 ranks");
  if (bytes == 0) throw WorkloadError("all-to-all: message_bytes must be > 0");
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kAllToAll)));
  s.messages.reserve(size_t{ranks} * (ranks - 1));  // as uniform's: no moves while it grows
  if (order == AllToAllOrder::kRank) {
    for (Rank src = 0; src < ranks; ++src) {
      for (Rank dst = 0; dst < ranks; ++dst) {
        if (src != dst) s.add_message(src, dst, bytes, c);
      }
    }
    return s;
  }
  // The ring: a Fisher-Yates shuffle of the ranks, as htsim's generator shuffles its nodes.
  Rng rng(seed);
  std::vector<Rank> ring(ranks);
  for (Rank i = 0; i < ranks; ++i) ring[i] = i;
  for (Rank i = ranks - 1; i > 0; --i) std::swap(ring[i], ring[rng.below(i + 1)]);
  std::vector<Rank> position(ranks);
  for (Rank i = 0; i < ranks; ++i) position[ring[i]] = i;
  for (Rank src = 0; src < ranks; ++src) {
    for (Rank d = 1; d < ranks; ++d)
      s.add_message(src, ring[(position[src] + d) % ranks], bytes, c);
  }
  return s;
}

}  // namespace spraylab::gen

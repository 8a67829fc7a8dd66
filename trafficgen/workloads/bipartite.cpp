#include "trafficgen/workloads/bipartite.h"

#include <numeric>
#include <string>
#include <utility>

#include "trafficgen/rng.h"
#include "trafficgen/workloads/leaf_groups.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

Schedule bipartite(const std::vector<uint32_t>& leaf_of_rank, uint32_t messages, uint64_t bytes,
                   uint64_t seed) {
  const auto ranks = static_cast<uint32_t>(leaf_of_rank.size());
  const std::vector<std::vector<Rank>> leaves = leaf_groups(leaf_of_rank, ranks, "bipartite");
  if (leaves.size() < 2) throw WorkloadError("bipartite: needs at least 2 leaves");
  if (bytes == 0) throw WorkloadError("bipartite: message_bytes must be > 0");
  if (messages == 0) throw WorkloadError("bipartite: messages must be > 0");
  Rng rng(seed);
  std::vector<size_t> order(leaves.size());
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  // half[0]: the hosts of the first ⌊L/2⌋ leaves of the shuffled order; half[1]: the others.
  std::vector<Rank> half[2];
  std::vector<uint8_t> side(ranks, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    const uint8_t h = i < order.size() / 2 ? 0 : 1;
    for (Rank r : leaves[order[i]]) {
      half[h].push_back(r);
      side[r] = h;
    }
  }
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kBipartite)));
  s.messages.reserve(size_t{ranks} * messages);  // as uniform's: no moves while it grows
  for (Rank r = 0; r < ranks; ++r) {
    const std::vector<Rank>& other = half[1 - side[r]];
    for (uint32_t i = 0; i < messages; ++i)
      s.add_message(r, other[rng.below(other.size())], bytes, c);
  }
  return s;
}

}  // namespace spraylab::gen

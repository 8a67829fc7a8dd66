#include "trafficgen/workloads/switch_permutation.h"

#include <string>

#include "trafficgen/workloads/leaf_groups.h"
#include "trafficgen/workloads/permutation.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

Schedule switch_permutation(const std::vector<uint32_t>& leaf_of_rank, uint32_t messages,
                            uint64_t bytes, uint64_t seed) {
  const auto ranks = static_cast<uint32_t>(leaf_of_rank.size());
  const std::vector<std::vector<Rank>> leaves =
      leaf_groups(leaf_of_rank, ranks, "switch-permutation");
  if (leaves.size() < 2) throw WorkloadError("switch-permutation: needs at least 2 leaves");
  if (bytes == 0) throw WorkloadError("switch-permutation: message_bytes must be > 0");
  if (messages == 0) throw WorkloadError("switch-permutation: messages must be > 0");
  const std::vector<Rank> pi = random_derangement(static_cast<uint32_t>(leaves.size()), seed);
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kSwitchPermutation)));
  for (size_t i = 0; i < leaves.size(); ++i) {
    const std::vector<Rank>& to = leaves[pi[i]];
    for (size_t j = 0; j < leaves[i].size(); ++j) {
      for (uint32_t k = 0; k < messages; ++k)
        s.add_message(leaves[i][j], to[j % to.size()], bytes, c);
    }
  }
  return s;
}

}  // namespace spraylab::gen

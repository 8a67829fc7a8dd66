#include "trafficgen/workloads/leaf_groups.h"

#include <map>
#include <string>

namespace spraylab::gen {

std::vector<std::vector<Rank>> leaf_groups(const std::vector<uint32_t>& leaf_of_rank,
                                           uint32_t ranks, const char* workload) {
  if (leaf_of_rank.size() != ranks) {
    throw WorkloadError(std::string(workload) + ": needs the leaf of every rank (" +
                        std::to_string(leaf_of_rank.size()) + " given for " +
                        std::to_string(ranks) + " ranks)");
  }
  std::map<uint32_t, size_t> group_of_leaf;
  std::vector<std::vector<Rank>> groups;
  for (Rank r = 0; r < ranks; ++r) {
    const auto [it, added] = group_of_leaf.try_emplace(leaf_of_rank[r], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(r);
  }
  return groups;
}

}  // namespace spraylab::gen

// Ranks grouped by their leaf switch, for the workloads that are defined over leaves
// (switch-permutation, bipartite; the MRLS paper §5.2).
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// leaf_of_rank[r] is an id of rank r's leaf (any numbering). Returns the groups in order of
// each leaf's lowest rank, each group's ranks ascending. Throws WorkloadError naming `workload`
// when leaf_of_rank does not have one entry per rank.
std::vector<std::vector<Rank>> leaf_groups(const std::vector<uint32_t>& leaf_of_rank,
                                           uint32_t ranks, const char* workload);

}  // namespace spraylab::gen

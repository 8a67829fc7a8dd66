// Rank placement (`workload.placement: random`): the builders write schedules in ranks; this
// moves rank r's traffic to host host_of_rank[r], so a ring's neighbours land wherever a job
// scheduler would have put them instead of under the same edge switch.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// A uniformly random bijection ranks -> hosts drawn from `seed` (Fisher-Yates on its own stream,
// so the workload's own draws from the same seed are not correlated with it).
std::vector<Rank> random_placement(uint32_t ranks, uint64_t seed);

// Renames every message's src and dst through host_of_rank (a bijection of 0..ranks-1; throws
// WorkloadError otherwise). Ids, sizes, dependencies and steps are unchanged.
void place(Schedule& s, const std::vector<Rank>& host_of_rank);

}  // namespace spraylab::gen

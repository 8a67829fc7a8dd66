// All-to-all: every rank sends the same number of bytes to every other rank (uniform MoE token
// exchange; the non-permutation workload of Ofan §6).
#pragma once

#include <cstdint>

#include "trafficgen/schedule.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

// ranks·(ranks-1) messages of `bytes`, no dependencies, one collective. Each host's messages are
// listed in the order it starts them (the host engine sends its ready messages round robin):
// kRank, to ranks 0, 1, ..., n-1, the same order at every host, so in lock step every host sends
// to the same destination at once (a rolling incast at the last hops); kShifted, htsim's
// connection_matrices/gen_serial_alltoall.py: the ranks placed on a ring in a random order drawn
// from `seed`, the host at ring position i sends to positions i+1, i+2, ..., i+n-1, so the j-th
// messages of all hosts form a permutation.
Schedule all_to_all(uint32_t ranks, uint64_t bytes, AllToAllOrder order = AllToAllOrder::kRank,
                    uint64_t seed = 0);

}  // namespace spraylab::gen

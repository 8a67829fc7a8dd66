// The workload factory: from the experiment file's `workload:` section to a Schedule.
#pragma once

#include <cstdint>
#include <vector>

#include "conf/experiment.h"
#include "trafficgen/schedule.h"

namespace spraylab::gen {

// Builds spec.type over `ranks` ranks, repeated spec.iterations times; random choices (the
// permutation, the hot experts, the incast receiver) come from `seed`. Types and the fields each
// reads are listed in docs/workloads.md. Throws WorkloadError (TraceError for trace files).
// `leaf_of_rank` (an id of each rank's leaf switch) is needed by the types defined over leaves
// (switch-permutation, bipartite), which throw without it.
Schedule make_workload(const conf::WorkloadSpec& spec, uint32_t ranks, uint64_t seed,
                       const std::vector<uint32_t>& leaf_of_rank = {});

}  // namespace spraylab::gen

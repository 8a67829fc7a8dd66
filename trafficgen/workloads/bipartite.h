// Bipartite uniform traffic (the MRLS paper's BU, §5.2: a data centre in two halves, one
// accessing data held uniformly in the other): the leaves are split at random into two halves and
// every message goes to a uniformly random host of the other half.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// A random ⌊L/2⌋ of the L leaves form one half, the rest the other (from `seed`); each rank sends
// `messages` messages of `bytes`, each to a rank drawn uniformly from the hosts of the other
// half. Both halves send. Needs 2 leaves.
Schedule bipartite(const std::vector<uint32_t>& leaf_of_rank, uint32_t messages, uint64_t bytes,
                   uint64_t seed);

}  // namespace spraylab::gen

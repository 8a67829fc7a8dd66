// Random switch permutation (the MRLS paper's RSP, §5.2, "a highly adverse pattern"): the leaves
// are permuted at random and every host of leaf i sends to a host of leaf π(i), so each leaf's
// whole traffic crosses the fabric towards one other leaf.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// π is a uniformly random derangement of the leaves (from `seed`); the j-th host of leaf i
// (ranks ascending) sends `messages` messages of `bytes` to the (j mod n)-th host of leaf π(i),
// n that leaf's hosts: with equal leaves every host receives from exactly one. Needs 2 leaves.
Schedule switch_permutation(const std::vector<uint32_t>& leaf_of_rank, uint32_t messages,
                            uint64_t bytes, uint64_t seed);

}  // namespace spraylab::gen

// All-to-all: every rank sends the same number of bytes to every other rank (uniform MoE token
// exchange; the non-permutation workload of Ofan §6).
#pragma once

#include <cstdint>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// ranks·(ranks-1) messages of `bytes`, no dependencies, one collective.
Schedule all_to_all(uint32_t ranks, uint64_t bytes);

}  // namespace spraylab::gen

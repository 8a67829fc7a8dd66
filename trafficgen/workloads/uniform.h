// Uniform random traffic (the MRLS paper's UN, §5.2): every message goes to a uniformly random
// other rank, drawn per message.
#pragma once

#include <cstdint>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// Each rank sends `messages` messages of `bytes`, each to a rank drawn uniformly from the others
// (from `seed`); one collective, no dependencies: a host interleaves its messages round robin.
Schedule uniform(uint32_t ranks, uint32_t messages, uint64_t bytes, uint64_t seed);

}  // namespace spraylab::gen

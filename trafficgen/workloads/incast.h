// Incast: fan_in senders each send one message to the same receiver at once — the many-to-one
// pattern no load balancer can spread, since the receiver's link is the bottleneck.
#pragma once

#include <cstdint>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// The receiver and its fan_in distinct senders are drawn from `seed`; 1 <= fan_in < ranks.
Schedule incast(uint32_t ranks, uint32_t fan_in, uint64_t bytes, uint64_t seed);

}  // namespace spraylab::gen

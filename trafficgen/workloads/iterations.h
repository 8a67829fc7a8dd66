// Iterations: a workload repeated back to back, as training repeats its collectives every step.
#pragma once

#include <cstdint>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// `iterations` copies of `one` (>= 1). Copy i's collectives are new collectives with iteration = i;
// its messages keep their dependencies inside the copy, and each message with none waits, per
// rank, for its sender's traffic in copy i-1 (terminal_messages()): rank r begins iteration i
// once everything it sent and received in iteration i-1 is complete.
Schedule repeat(const Schedule& one, uint32_t iterations);

}  // namespace spraylab::gen

// Random permutation: every rank sends one message to a distinct other rank (Ofan §6, "(a)
// Permutation": the workload the CCT lower bound of appendix A is derived for).
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// A uniformly random derangement of 0..ranks-1 (no rank maps to itself), ranks >= 2.
std::vector<Rank> random_derangement(uint32_t ranks, uint64_t seed);

// Rank r sends `bytes` to random_derangement(ranks, seed)[r]; one collective, no dependencies.
Schedule permutation(uint32_t ranks, uint64_t bytes, uint64_t seed);

}  // namespace spraylab::gen

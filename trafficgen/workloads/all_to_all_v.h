// All-to-all-v: an all-to-all whose per-pair sizes are skewed, as when a mixture-of-experts layer
// routes more tokens to popular experts (Ofan §6, MoE traffic). Either a Zipf popularity over
// destination ranks or an explicit matrix; either way the total equals the uniform all-to-all's,
// ranks·(ranks-1)·bytes, so skewed and uniform runs move the same data.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

using ByteMatrix = std::vector<std::vector<uint64_t>>;  // [src][dst]

// Splits `total` into integers proportional to `weights` (largest remainder: the sum is exact and
// each share is within one of its quota). Weights are >= 0 with a positive sum.
std::vector<uint64_t> apportion(const std::vector<double>& weights, uint64_t total);

// Destination d's popularity is 1/k^s, k = 1..ranks its place in a random order drawn from `seed`
// (which expert is hot is random; how hot is s). Every source sends (ranks-1)·bytes, split over
// the other ranks in proportion to their popularity.
ByteMatrix zipf_matrix(uint32_t ranks, uint64_t bytes, double s, uint64_t seed);

// Scales a matrix of relative weights (square, >= 0, zero diagonal) to ranks·(ranks-1)·bytes.
ByteMatrix scaled_matrix(const std::vector<std::vector<double>>& weights, uint64_t bytes);

// One message per non-zero cell; cells of 0 bytes send nothing.
Schedule all_to_all_v(const ByteMatrix& bytes);

}  // namespace spraylab::gen

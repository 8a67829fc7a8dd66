// Ring collectives (the NCCL ring algorithm): ranks 0 → 1 → … → n-1 → 0. A buffer of B bytes is cut
// into n chunks; in each of n-1 steps every rank sends one chunk to its successor.
//   reduce-scatter: step k, rank i sends chunk (i-k-1) mod n; afterwards rank i holds reduced chunk
//   i. all-gather:     step k, rank i sends chunk (i-k) mod n;   afterwards every rank holds every
//   chunk.
// All-reduce is reduce-scatter then all-gather: 2(n-1) steps moving 2(n-1)/n·B per rank.
// A rank's step k waits for the chunk it received at step k-1, which it must forward or reduce.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

enum class RingPhase : uint8_t { kReduceScatter, kAllGather };

// Appends the n-1 steps of one ring phase over `buffer_bytes` to collective `collective`, numbered
// first_step, first_step+1, …. Rank r's first step waits for after[r] (empty: nothing). Returns,
// per rank, the message it received in the last step.
Frontier append_ring_phase(Schedule& s, RingPhase phase, uint64_t buffer_bytes, uint32_t collective,
                           uint32_t first_step, const Frontier& after);
// The same over the ring `members` (ranks in ring order: members[i] sends to members[i+1]), and
// only its first `steps` steps (0: all members − 1; each step moves the same chunk size, so a
// prefix is a slice of the phase's shape). The result is indexed by rank, empty for non-members.
Frontier append_ring_phase(Schedule& s, RingPhase phase, uint64_t buffer_bytes, uint32_t collective,
                           uint32_t first_step, const Frontier& after,
                           const std::vector<Rank>& members, uint32_t steps = 0);

// One ring all-reduce of `buffer_bytes` per rank: reduce-scatter (steps 0..n-2) then all-gather
// (steps n-1..2n-3), one collective.
Schedule ring_all_reduce(uint32_t ranks, uint64_t buffer_bytes);

}  // namespace spraylab::gen

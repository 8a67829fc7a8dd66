// Per-burst working set shared by the queue-aware algorithms: the current packet's candidate set
// with one depth per candidate, read once and reused while consecutive packets share the set (on a
// fat tree every upward packet of a burst does), plus the "lowest key, ties uniformly at random"
// pick that JSQ, banded JSQ and AR share (ALGORITHMS.md, Baselines).
#pragma once

#include <cstdint>
#include <span>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/rng.h"

namespace spraylab::lb {

struct CandidateDepths {
  const PortId* ports = nullptr;
  uint32_t w = 0;
  uint32_t depth[kMaxCandidates];

  void reset() { ports = nullptr; }
  // Loads the set of `p` unless it is already loaded; returns true when it (re)loaded.
  bool load(const Packet& p, const BurstQueues& q) {
    if (p.candidates == ports && p.num_candidates == w) return false;
    ports = p.candidates;
    w = p.num_candidates < kMaxCandidates ? p.num_candidates : kMaxCandidates;
    for (uint32_t i = 0; i < w; ++i) depth[i] = q.depth(ports[i]);
    return true;
  }
};

// Index of a smallest key among key[0..w), uniform among ties. w > 0. Three passes (minimum, tie
// count, the r-th tie) instead of one branchy pass: the first two vectorise.
inline uint32_t pick_lowest(const uint32_t* key, uint32_t w, Rng& rng) {
  uint32_t best = UINT32_MAX;
  for (uint32_t i = 0; i < w; ++i) best = key[i] < best ? key[i] : best;
  uint32_t ties = 0;
  for (uint32_t i = 0; i < w; ++i) ties += key[i] == best;
  uint32_t r = ties == 1 ? 0 : rng.below(ties);
  for (uint32_t i = 0;; ++i) {
    if (key[i] == best && r-- == 0) return i;
  }
}

// The per-burst loop JSQ (exact or banded) and AR share: for each packet, the key of every
// candidate (`key_of(i)` from set.depth[i]), a lowest key uniformly among ties, and the chosen
// port's key updated with the burst's own choice. `key` has room for kMaxCandidates.
template <typename KeyOf>
void choose_lowest_key(std::span<const Packet> burst, const BurstContext& ctx, PortId* out,
                       BurstQueues& queues, CandidateDepths& set, uint32_t* key, KeyOf key_of) {
  queues.begin(ctx);
  set.reset();
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set.load(p, queues)) {
      for (uint32_t j = 0; j < set.w; ++j) key[j] = key_of(j);
    }
    const uint32_t c = pick_lowest(key, set.w, *ctx.rng);
    out[i] = set.ports[c];
    if (const uint32_t grew = queues.add(out[i], p)) {
      set.depth[c] += grew;
      key[c] = key_of(c);
    }
  }
  queues.end({out, burst.size()});
}

// PSP §III-C band thresholds Th/n, 2Th/n, …, Th: returns floor(q·n/Th) capped at n (n = the queue
// is at or beyond Th), by comparisons because a division per port would dominate at 64 ports.
inline uint32_t band_floor(uint64_t q, uint32_t n, uint64_t th) {
  // Branch-free: depths are random from packet to packet, so an early exit would mispredict.
  const uint64_t x = q * n;
  uint32_t f = 0;
  uint64_t edge = th;
  for (uint32_t k = 0; k < n; ++k, edge += th) f += x >= edge;
  return f;
}

}  // namespace spraylab::lb

// Per-burst working set shared by the queue-aware algorithms: the current packet's candidate set
// with one depth per candidate, read once and reused while consecutive packets share the set (on a
// fat tree every upward packet of a burst does), plus the "lowest key, ties uniformly at random"
// pick that JSQ, banded JSQ and AR share (ALGORITHMS.md, Baselines).
//
// Speed (issue 18): what a packet needs is kept as bit masks over the candidates, built once per
// loaded set with vector compares and updated where a choice changes a depth, so a pick is a
// popcount, at most one draw and a select of the r-th set bit, not a pass over every candidate.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>

#if defined(__AVX512F__) || defined(__BMI2__)
#include <immintrin.h>
#endif

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/rng.h"

namespace spraylab::lb {

// Words of a mask over kMaxCandidates candidates; bit i % 64 of word i / 64 is candidate i.
inline constexpr uint32_t kMaskWords = kMaxCandidates / 64;

inline uint64_t low_bits(uint32_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// Bits i < n where key[i] == v (kEqual) or key[i] < v (kLess). n ≤ 64; key has room for a
// multiple of 16 entries past key (the arrays are kMaxCandidates long), whatever they hold.
enum class Cmp { kEqual, kLess };
template <Cmp kCmp>
inline uint64_t compare_mask(const uint32_t* key, uint32_t v, uint32_t n) {
#if defined(__AVX512F__)
  const __m512i vv = _mm512_set1_epi32(static_cast<int>(v));
  uint64_t m = 0;
  for (uint32_t i = 0; i < n; i += 16) {
    const __m512i k = _mm512_loadu_si512(key + i);
    const uint64_t bits =
        kCmp == Cmp::kEqual ? _mm512_cmpeq_epu32_mask(k, vv) : _mm512_cmplt_epu32_mask(k, vv);
    m |= bits << i;
  }
  return m & low_bits(n);
#else
  uint64_t m = 0;
  for (uint32_t i = 0; i < n; ++i)
    m |= static_cast<uint64_t>(kCmp == Cmp::kEqual ? key[i] == v : key[i] < v) << i;
  return m;
#endif
}

// Index of the r-th set bit of m (r < popcount(m)).
inline uint32_t select_bit(uint64_t m, uint32_t r) {
#if defined(__BMI2__)
  return static_cast<uint32_t>(std::countr_zero(_pdep_u64(uint64_t{1} << r, m)));
#else
  for (; r > 0; --r) m &= m - 1;
  return static_cast<uint32_t>(std::countr_zero(m));
#endif
}

// A mask over up to kMaxCandidates candidates with its population.
struct CandidateMask {
  uint64_t word[kMaskWords];
  uint32_t count = 0;

  template <Cmp kCmp>
  void build(const uint32_t* key, uint32_t w, uint32_t v) {
    count = 0;
    for (uint32_t j = 0; j * 64 < w; ++j) {
      word[j] = compare_mask<kCmp>(key + 64 * j, v, w - 64 * j < 64 ? w - 64 * j : 64);
      count += static_cast<uint32_t>(std::popcount(word[j]));
    }
  }
  // The r-th member in candidate order (r < count).
  uint32_t select(uint32_t r) const {
    for (uint32_t j = 0;; ++j) {
      const auto c = static_cast<uint32_t>(std::popcount(word[j]));
      if (r < c) return 64 * j + select_bit(word[j], r);
      r -= c;
    }
  }
  bool has(uint32_t i) const { return (word[i / 64] >> (i % 64)) & 1; }
  void set(uint32_t i) {
    word[i / 64] |= uint64_t{1} << (i % 64);
    ++count;
  }
  void clear(uint32_t i) {
    word[i / 64] &= ~(uint64_t{1} << (i % 64));
    --count;
  }
};

// The candidate set being decided on, one depth per candidate. A set is loaded once per burst
// with a live view; with a stale view it stays loaded while the snapshot does (its depths cannot
// change within a state-update period: PSP §IV's scheduler, and the algorithms' structures built
// from the set, stay valid for the whole period).
struct CandidateDepths {
  const PortId* ports = nullptr;
  uint32_t w = 0;
  uint32_t depth[kMaxCandidates];

  // At a burst's start, after BurstQueues::begin.
  void begin(const BurstQueues& q) {
    if (!q.stale() || q.snapshot() != snapshot_) ports = nullptr;
    snapshot_ = q.snapshot();
    checked_ = false;
  }
  void reset() { ports = nullptr; }
  // Loads the set of `p` unless it is already loaded; returns true when it (re)loaded.
  bool load(const Packet& p, const BurstQueues& q) {
    if (p.candidates == ports && p.num_candidates == w) {
      if (checked_) return false;
      // Kept from an earlier burst: the route group's array may have been replaced by one at
      // the same address (a port went down), so compare what it holds once per burst.
      if (std::memcmp(copy_, ports, w * sizeof(PortId)) == 0) {
        checked_ = true;
        return false;
      }
    }
    ports = p.candidates;
    w = p.num_candidates < kMaxCandidates ? p.num_candidates : kMaxCandidates;
    for (uint32_t i = 0; i < w; ++i) depth[i] = q.depth(ports[i]);
    std::memcpy(copy_, ports, w * sizeof(PortId));
    checked_ = true;
    return true;
  }

 private:
  PortId copy_[kMaxCandidates];  // the ports `depth` was loaded for
  uint64_t snapshot_ = 0;
  bool checked_ = false;
};

// The candidates with the smallest key and the pick among them: the r-th in candidate order,
// r uniform (no draw when there is one). Keys only rise while a set is loaded (a depth grows), so a
// candidate leaves the set when its key rises and the minimum is searched again only when the set
// is empty.
struct LowestKey {
  uint32_t best = 0;
  CandidateMask ties;

  void build(const uint32_t* key, uint32_t w) {
    uint32_t b = UINT32_MAX;
    for (uint32_t i = 0; i < w; ++i) b = key[i] < b ? key[i] : b;
    best = b;
    ties.build<Cmp::kEqual>(key, w, b);
  }
  uint32_t pick(Rng& rng) const { return ties.select(ties.count == 1 ? 0 : rng.below(ties.count)); }
  // Candidate c (one of the ties) now has a higher key.
  void rose(uint32_t c, const uint32_t* key, uint32_t w) {
    ties.clear(c);
    if (ties.count == 0) build(key, w);
  }
};

// The per-burst loop JSQ (exact or banded) and AR share: for each packet, the key of every
// candidate (`key_of(i)` from set.depth[i]), a lowest key uniformly among ties, and the chosen
// port's key updated with the burst's own choice. `key` has room for kMaxCandidates.
template <typename KeyOf>
void choose_lowest_key(std::span<const Packet> burst, const BurstContext& ctx, PortId* out,
                       BurstQueues& queues, CandidateDepths& set, uint32_t* key, LowestKey& low,
                       KeyOf key_of) {
  queues.begin(ctx);
  set.begin(queues);
  Rng& rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (set.load(p, queues)) {
      for (uint32_t j = 0; j < set.w; ++j) key[j] = key_of(j);
      low.build(key, set.w);
    }
    const uint32_t c = low.pick(rng);
    out[i] = set.ports[c];
    if (const uint32_t grew = queues.add(out[i], p)) {
      set.depth[c] += grew;
      const uint32_t k = key_of(c);
      if (k != key[c]) {
        key[c] = k;
        low.rose(c, key, set.w);
      }
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

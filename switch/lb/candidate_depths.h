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
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>

#if defined(__AVX512F__) || defined(__BMI2__)
#include <immintrin.h>
#endif

#include "switch/lb/balancer.h"
#include "switch/lb/band_thresholds.h"
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

// The r-th set bit of m alone (r < popcount(m)).
inline uint64_t select_one(uint64_t m, uint32_t r) {
#if defined(__BMI2__)
  return _pdep_u64(uint64_t{1} << r, m);
#else
  for (; r > 0; --r) m &= m - 1;
  return m & (0 - m);
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
  alignas(64) uint32_t depth[kMaxCandidates];

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
      if (same_ports(copy_, ports, w)) {
        checked_ = true;
        return false;
      }
    }
    ports = p.candidates;
    w = p.num_candidates < kMaxCandidates ? p.num_candidates : kMaxCandidates;
    q.load(ports, w, depth);
    // Only a stale view keeps a set beyond its burst (begin() drops it otherwise).
    if (q.stale()) std::memcpy(copy_, ports, w * sizeof(PortId));
    checked_ = true;
    return true;
  }

 private:
  PortId copy_[kMaxCandidates];  // the ports `depth` was loaded for
  uint64_t snapshot_ = 0;
  bool checked_ = false;
};

#if defined(__AVX512F__)
// The smallest of sixteen unsigned lanes, by hand: GCC 12's _mm512_reduce_min_epu32 trips
// -Wmaybe-uninitialized.
inline uint32_t reduce_min_epu32(__m512i m) {
  __m256i h = _mm256_min_epu32(_mm512_maskz_extracti64x4_epi64(0xf, m, 0),
                               _mm512_maskz_extracti64x4_epi64(0xf, m, 1));
  __m128i q = _mm_min_epu32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  q = _mm_min_epu32(q, _mm_shuffle_epi32(q, 0x4e));
  q = _mm_min_epu32(q, _mm_shuffle_epi32(q, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(q));
}
#endif

// The smallest of key[0..w), w > 0.
inline uint32_t min_key(const uint32_t* key, uint32_t w) {
#if defined(__AVX512F__)
  __m512i m = _mm512_set1_epi32(-1);
  for (uint32_t i = 0; i < w; i += 16) {
    const auto lanes = static_cast<__mmask16>(w - i >= 16 ? 0xffff : (1u << (w - i)) - 1);
    m = _mm512_mask_min_epu32(m, lanes, m, _mm512_loadu_si512(key + i));
  }
  return reduce_min_epu32(m);
#else
  uint32_t b = UINT32_MAX;
  for (uint32_t i = 0; i < w; ++i) b = key[i] < b ? key[i] : b;
  return b;
#endif
}

// Where LowestKey reads the keys: an array of any length.
struct KeyArray {
  const uint32_t* key;
  uint32_t w;
  uint32_t min() const { return min_key(key, w); }
  void equal(uint32_t v, CandidateMask& m) const { m.build<Cmp::kEqual>(key, w, v); }
  void set(uint32_t, uint32_t) {}  // the array itself holds the new key
};

#if defined(SPRAYLAB_LB_AVX512)
// Or up to 64 keys held in four vector registers for the burst: a key that rises is written into
// its lane, so finding the ties again never loads a vector that a scalar store has just touched
// (a load the store cannot be forwarded to waits until the store reaches the cache).
struct KeyRegs {
  __m512i v[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                  _mm512_setzero_si512()};
  uint64_t valid = 0;

  void load(const uint32_t* key, uint32_t w) {
    for (uint32_t j = 0; j < 4; ++j) v[j] = _mm512_loadu_si512(key + 16 * j);
    valid = low_bits(w);
  }
  uint32_t min() const {
    __m512i m = _mm512_set1_epi32(-1);
    for (uint32_t j = 0; j < 4; ++j)
      m = _mm512_mask_min_epu32(m, static_cast<__mmask16>(valid >> (16 * j)), m, v[j]);
    return reduce_min_epu32(m);
  }
  uint64_t equal(uint32_t x) const {
    const __m512i b = _mm512_set1_epi32(static_cast<int>(x));
    uint64_t bits = 0;
    for (uint32_t j = 0; j < 4; ++j)
      bits |= static_cast<uint64_t>(_mm512_cmpeq_epu32_mask(v[j], b)) << (16 * j);
    return bits & valid;
  }
  void equal(uint32_t x, CandidateMask& m) const {
    m.word[0] = equal(x);
    m.count = static_cast<uint32_t>(std::popcount(m.word[0]));
  }
  uint64_t less(uint32_t x) const {
    const __m512i b = _mm512_set1_epi32(static_cast<int>(x));
    uint64_t bits = 0;
    for (uint32_t j = 0; j < 4; ++j)
      bits |= static_cast<uint64_t>(_mm512_cmplt_epu32_mask(v[j], b)) << (16 * j);
    return bits & valid;
  }
  uint32_t max() const {
    __m512i m = _mm512_setzero_si512();
    for (uint32_t j = 0; j < 4; ++j)
      m = _mm512_mask_max_epu32(m, static_cast<__mmask16>(valid >> (16 * j)), m, v[j]);
    alignas(64) uint32_t lane[16];
    _mm512_store_si512(lane, m);
    uint32_t b = 0;
    for (uint32_t x : lane) b = x > b ? x : b;
    return b;
  }
  // The smallest key above x (UINT32_MAX if none).
  uint32_t min_above(uint32_t x) const {
    const __m512i b = _mm512_set1_epi32(static_cast<int>(x));
    __m512i m = _mm512_set1_epi32(-1);
    for (uint32_t j = 0; j < 4; ++j) {
      const auto lanes = static_cast<__mmask16>(valid >> (16 * j));
      m = _mm512_mask_min_epu32(m, lanes & _mm512_cmpgt_epu32_mask(v[j], b), m, v[j]);
    }
    return reduce_min_epu32(m);
  }
  void set(uint32_t c, uint32_t k) {
    const __m512i kk = _mm512_set1_epi32(static_cast<int>(k));
    const uint64_t one = uint64_t{1} << c;
    for (uint32_t j = 0; j < 4; ++j)
      v[j] = _mm512_mask_mov_epi32(v[j], static_cast<__mmask16>(one >> (16 * j)), kk);
  }
};
#endif

// The candidates with the smallest key and the pick among them: the r-th in candidate order,
// r uniform (no draw when there is one). Keys only rise while a set is loaded (a depth grows), so a
// candidate leaves the set when its key rises and the minimum is searched again only when the set
// is empty. Then every other key is above the old minimum, so when a tie rose by exactly one (exact
// JSQ in packets: always; banded JSQ and AR: crossing one band edge) the new minimum is the old one
// plus one and only the ties at it are looked for, without a search for the minimum.
struct LowestKey {
  uint32_t best = 0;
  CandidateMask ties;

  template <typename Keys>
  void build(const Keys& keys) {
    at(keys.min(), keys);
  }
  uint32_t pick(Rng& rng) const { return ties.select(ties.count == 1 ? 0 : rng.below(ties.count)); }
  // Candidate c (one of the ties) now has the higher key k.
  template <typename Keys>
  void rose(uint32_t c, uint32_t k, const Keys& keys) {
    ties.clear(c);
    raised_min_ = k < raised_min_ ? k : raised_min_;
    if (ties.count != 0) return;
    if (raised_min_ == best + 1) {
      at(best + 1, keys);
    } else {
      build(keys);
    }
  }

  uint32_t raised_min_ = UINT32_MAX;  // the smallest key a tie rose to since the ties were found

 private:
  template <typename Keys>
  void at(uint32_t b, const Keys& keys) {
    best = b;
    keys.equal(b, ties);
    raised_min_ = UINT32_MAX;
  }
};

// BurstQueues::record of out[from, to) without the hashed packets: they are not in the depths.
template <typename Keys>
void record_chosen(BurstQueues& queues, std::span<const Packet> burst, const PortId* out,
                   size_t from, size_t to, const Keys& keys) {
  if constexpr (Keys::kHashes) {
    for (size_t j = from; j < to; ++j) {
      if (!keys.hashed(burst[j])) queues.add(out[j], burst[j]);
    }
  } else {
    queues.record(burst, out, from, to);
  }
}

#if defined(SPRAYLAB_LB_AVX512)
// choose_lowest_key's loop for a run of packets that share a loaded set of at most 64 candidates
// (`regs` holds its keys unless the view is stale, when keys never change): the ties are one word
// in a register, so a pick is a draw, a deposit and a count of trailing zeros, and removing the
// chosen candidate is one instruction. Returns the first packet after the run.
//
// `regs` is not written per rise (four masked lane writes a packet, the loop's largest cost): while
// every key that rose went to best + 1 (always for exact JSQ in packets, and for a band edge
// crossed by one packet), the candidates that rose since regs was written (`risen`) are exactly the
// ones at best or best + 1, so when the ties run out the next ties are `risen` plus regs' keys at
// best + 1, and regs is brought up to date only before a real search or when the run ends.
template <typename Keys>
size_t choose_lowest_in_word(std::span<const Packet> burst, size_t i, PortId* out,
                             BurstQueues& queues, CandidateDepths& set, LowestKey& low, Keys& keys,
                             KeyRegs& kept_regs, Rng& kept_rng) {
  KeyRegs regs = kept_regs;  // locals: in registers
  Rng rng = kept_rng;
  uint64_t ties = low.ties.word[0];
  uint32_t best = low.best;
  uint64_t risen = 0;   // candidates whose key rose since regs was written
  uint32_t beyond = 0;  // not 0: one of them rose past the best + 1 of its time
  const PortId* ports = set.ports;
  const uint32_t w = set.w;
  const uint32_t* key = keys.key();
  const size_t start = i;
  // BurstQueues::grow from locals: fewer live values in the loop, which has more than the
  // registers hold (a flag spilled to the stack is a store and a load per packet).
  const bool live = !queues.stale();
  const bool bytes = queues.bytes();
  if (!live) {
    // A stale view: no choice changes a key, so the ties hold for the run (AR's default).
    const auto count = static_cast<uint32_t>(std::popcount(ties));
    for (; i < burst.size(); ++i) {
      const Packet& p = burst[i];
      if constexpr (Keys::kHashes) {
        if (keys.hashed(p)) {
          out[i] = keys.hash_port(p);
          continue;
        }
      }
      if (p.candidates != ports || p.num_candidates != w) break;
      out[i] = ports[select_bit(ties, count == 1 ? 0 : rng.below(count))];
    }
  }
  for (; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if constexpr (Keys::kHashes) {
      if (keys.hashed(p)) {
        out[i] = keys.hash_port(p);
        continue;
      }
    }
    if (p.candidates != ports || p.num_candidates != w) break;
    const bool one = (ties & (ties - 1)) == 0;  // no draw for a single tie
    const uint32_t c =
        select_bit(ties, one ? 0 : rng.below(static_cast<uint32_t>(std::popcount(ties))));
    const PortId port = ports[c];
    out[i] = port;
    const uint32_t grew = !live || port == kNoPort ? 0 : bytes ? p.bytes : 1;
    if (grew == 0) continue;
    set.depth[c] += grew;
    if (!keys.rose(set, c)) continue;
    const uint32_t k = key[c];
    const uint64_t bit = uint64_t{1} << c;
    ties &= ~bit;  // LowestKey::rose
    risen |= bit;
    beyond |= k ^ (best + 1);
    if (ties != 0) continue;
    if (beyond == 0) {
      // Every key at best rose to best + 1 and every other is above best: no search.
      ++best;
      ties = risen | (regs.equal(best) & ~risen);
    } else {
      for (uint64_t m = risen; m != 0; m &= m - 1) {
        const auto r = static_cast<uint32_t>(std::countr_zero(m));
        regs.set(r, key[r]);
      }
      risen = 0;
      beyond = 0;
      best = regs.min();
      ties = regs.equal(best);
    }
  }
  if (i < burst.size()) {  // another set may follow
    record_chosen(queues, burst, out, start, i, keys);
    // The same set may come back in this burst: regs must hold its keys then. One reload of the
    // key array (the end of a run is rare: once per burst at most for a set).
    if (risen != 0) regs.load(key, w);
  }
  kept_regs = regs;
  kept_rng = rng;
  low.ties.word[0] = ties;
  low.ties.count = static_cast<uint32_t>(std::popcount(ties));
  low.best = best;
  // Not tracked here: UINT32_MAX makes LowestKey::rose search for the minimum, always right.
  low.raised_min_ = UINT32_MAX;
  return i;
}
#endif

// The per-burst loop JSQ (exact or banded) and AR share: for each packet, the key of every
// candidate, a lowest key uniformly among ties, and the chosen port's key updated with the burst's
// own choice. `keys` computes them: keys.key() is the key array (room for kMaxCandidates),
// keys.load(set) fills it from set.depth, keys.rose(set, c) updates candidate c's key after its
// depth grew and returns whether it changed. With Keys::kHashes, keys.hashed(p) says a packet
// takes keys.hash_port(p) instead (AR's small frames): it draws nothing, adds nothing to a depth
// and ends no run, so the other packets are decided as if it had not been in the burst.
template <typename Keys>
void choose_lowest_key(std::span<const Packet> burst, const BurstContext& ctx, PortId* out,
                       BurstQueues& queues, CandidateDepths& set, LowestKey& kept, Keys& keys) {
  queues.begin(ctx);
  set.begin(queues);
  // Local copies keep the generator and the ties in registers or on the stack: through pointers,
  // every depth store (a uint32_t, like the tie count) would make the compiler reload them.
  Rng rng = *ctx.rng;
  LowestKey low = kept;
  const uint32_t* key = keys.key();
#if defined(SPRAYLAB_LB_AVX512)
  KeyRegs regs;
  bool in_regs = false;  // regs holds the loaded set's keys (loaded in this burst, w <= 64)
#endif
  for (size_t i = 0; i < burst.size();) {
    const Packet& p = burst[i];
    if constexpr (Keys::kHashes) {
      if (keys.hashed(p)) {
        out[i++] = keys.hash_port(p);
        continue;
      }
    }
    if (p.num_candidates == 0) {
      out[i++] = kNoPort;
      continue;
    }
    if (set.load(p, queues)) {
      keys.load(set);
#if defined(SPRAYLAB_LB_AVX512)
      in_regs = set.w <= 64;
      if (in_regs) {
        regs.load(key, set.w);
        low.build(regs);
      } else {
        low.build(KeyArray{key, set.w});
      }
#else
      low.build(KeyArray{key, set.w});
#endif
    }
#if defined(SPRAYLAB_LB_AVX512)
    if (set.w <= 64 && (in_regs || queues.stale())) {
      i = choose_lowest_in_word(burst, i, out, queues, set, low, keys, regs, rng);
      continue;
    }
#endif
    const uint32_t c = low.pick(rng);
    out[i] = set.ports[c];
    if (const uint32_t grew = queues.add(out[i], p)) {
      set.depth[c] += grew;
      if (keys.rose(set, c)) low.rose(c, key[c], KeyArray{key, set.w});
    }
    ++i;
  }
  *ctx.rng = rng;
  kept = low;
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

// Whether per-port values loaded for a set (its thresholds, its buffers) are still good: they
// depend only on the ports and the capacity array, so a live view, which reloads the set every
// burst, loads them again only when the route group's ports change.
struct SetPorts {
  PortId ports[kMaxCandidates];
  uint32_t w = 0;
  const uint32_t* capacity = nullptr;

  // True when (ports, w, capacity) is what was kept; else keeps it and returns false.
  bool same(const PortId* p, uint32_t n, const uint32_t* cap) {
    if (n == w && cap == capacity && same_ports(ports, p, n)) return true;
    std::memcpy(ports, p, n * sizeof(PortId));
    w = n;
    capacity = cap;
    return false;
  }
};

// Th of each candidate as a double: out[i] = th.at(ports[i], capacity[ports[i]]), i < w (room past
// w as in gather_ports).
inline void load_thresholds(const BandThresholds& th, const PortId* ports, uint32_t w,
                            const uint32_t* capacity, double* out) {
  if (!th.per_port && th.uniform != 0) {
    for (uint32_t i = 0; i < w; ++i) out[i] = static_cast<double>(th.uniform);
    return;
  }
  alignas(64) uint32_t t[kMaxCandidates];
  gather_ports(ports, w, th.per_port ? th.per_port->data() : capacity, nullptr, t);
  for (uint32_t i = 0; i < w; ++i) out[i] = t[i];
}

// PSP's band edges as depths, for at most kMaxEdges edges (issue 18): q·n ≥ j·Th exactly when q is
// at least e_j = ceil(j·Th / n), so floor(q·n / Th) capped at m is the number of j ≤ m with q ≥
// e_j: m vector compares per sixteen candidates instead of a division each, and whether a growing
// queue leaves its band is one compare with the next edge. Loaded with the thresholds (once per
// route group, not per burst).
struct BandEdges {
  static constexpr uint32_t kMaxEdges = 8;
  bool usable = false;  // false: more edges than kMaxEdges, or an edge beyond 32 bits
  uint32_t m = 0;       // edges counted
  // Row j − 1 holds e_j of each candidate (j ≤ m); row m is UINT32_MAX, "no next edge" (a floor of
  // m cannot rise).
  alignas(64) uint32_t edge[kMaxEdges + 1][kMaxCandidates];

  // Edges 1..m of n bands from th[i] (Th of candidate i, an integer held as a double), i < w.
  void load(const double* th, uint32_t w, uint32_t n, uint32_t edges) {
    usable = edges <= kMaxEdges && n != 0;
    m = edges;
    if (!usable) return;
    for (uint32_t i = 0; i < w; ++i) {
      const double t = th[i];
      if (!(t >= 0 && t <= UINT32_MAX)) {  // products below would not fit
        usable = false;
        return;
      }
      const auto th_i = static_cast<uint64_t>(t);
      for (uint32_t j = 1; j <= m; ++j)
        edge[j - 1][i] = static_cast<uint32_t>((j * th_i + n - 1) / n);
      edge[m][i] = UINT32_MAX;
    }
  }
  // f[i] = the number of edges at or below q[i], i < w (room past w as in gather_ports).
  void floors(const uint32_t* q, uint32_t w, uint32_t* f) const {
    uint32_t i = 0;
#if defined(SPRAYLAB_LB_AVX512)
    const __m512i one = _mm512_set1_epi32(1);
    for (; i < w; i += 16) {
      const __m512i d = _mm512_loadu_si512(q + i);
      __m512i c = _mm512_setzero_si512();
      for (uint32_t j = 0; j < m; ++j)
        c = _mm512_mask_add_epi32(c, _mm512_cmpge_epu32_mask(d, _mm512_load_si512(edge[j] + i)), c,
                                  one);
      _mm512_storeu_si512(f + i, c);
    }
#endif
    for (; i < w; ++i) f[i] = floor_of(q[i], i);
  }
  // floors() and next[i], the depth at which candidate i reaches its next band (UINT32_MAX:
  // none): edges rise with j, so that is the smallest edge above q[i], or row m's.
  void floors_and_next(const uint32_t* q, uint32_t w, uint32_t* f, uint32_t* next) const {
    uint32_t i = 0;
#if defined(SPRAYLAB_LB_AVX512)
    const __m512i one = _mm512_set1_epi32(1);
    for (; i < w; i += 16) {
      const __m512i d = _mm512_loadu_si512(q + i);
      __m512i c = _mm512_setzero_si512();
      __m512i up = _mm512_load_si512(edge[m] + i);
      for (uint32_t j = 0; j < m; ++j) {
        const __m512i e = _mm512_load_si512(edge[j] + i);
        const __mmask16 reached = _mm512_cmpge_epu32_mask(d, e);
        c = _mm512_mask_add_epi32(c, reached, c, one);
        up = _mm512_mask_min_epu32(up, static_cast<__mmask16>(~reached), up, e);
      }
      _mm512_storeu_si512(f + i, c);
      _mm512_storeu_si512(next + i, up);
    }
#endif
    for (; i < w; ++i) {
      f[i] = floor_of(q[i], i);
      next[i] = edge[f[i]][i];
    }
  }
  // Candidate i's floor at depth q.
  uint32_t floor_of(uint32_t q, uint32_t i) const {
    uint32_t c = 0;
    for (uint32_t j = 0; j < m; ++j) c += q >= edge[j][i];
    return c;
  }
  // The depth at which candidate i with floor f reaches its next band (UINT32_MAX: none).
  uint32_t next(uint32_t f, uint32_t i) const { return edge[f][i]; }
};

// band_floor of q[i] against th[i] for i < w, in one pass the compiler vectorises: floor(q·n / Th)
// in double is exact (q·n < 2^42: a correctly rounded quotient reaches the integer above the true
// one only for a numerator of 2^53 or more), capped at n; Th = 0 gives n (an infinite or undefined
// quotient), as band_floor does.
inline void band_floors(const uint32_t* q, const double* th, uint32_t w, uint32_t n, uint32_t* f) {
  const double nd = n;
  uint32_t i = 0;
#if defined(SPRAYLAB_LB_AVX512)
  // Eight lanes by hand: GCC does not vectorise the conversions and the division of the loop below.
  const __m512d vn = _mm512_set1_pd(nd);
  const __m256i vcap = _mm256_set1_epi32(static_cast<int>(n));
  for (; i + 8 <= w; i += 8) {
    const __m512d x =
        _mm512_maskz_cvtepu32_pd(0xff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i)));
    const __m512d y = _mm512_div_pd(_mm512_mul_pd(x, vn), _mm512_loadu_pd(th + i));
    const __m512d fl =
        _mm512_maskz_roundscale_pd(0xff, y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __mmask8 below = _mm512_cmp_pd_mask(fl, vn, _CMP_LT_OQ);  // false for NaN and infinity
    const __m256i r = _mm256_mask_mov_epi32(vcap, below, _mm512_maskz_cvttpd_epu32(below, fl));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(f + i), r);
  }
#endif
  for (; i < w; ++i) {
    const double x = std::floor(static_cast<double>(q[i]) * nd / th[i]);
    f[i] = x < nd ? static_cast<uint32_t>(x) : n;
  }
}

}  // namespace spraylab::lb

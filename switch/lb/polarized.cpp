#include "switch/lb/polarized.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace spraylab::lb {

PolarizedTable::PolarizedTable(const topo::Routing& routing, uint32_t sw) {
  const topo::SwitchGraph& g = routing.graph();
  const std::vector<uint32_t>& leaves = routing.leaves();
  std::vector<uint32_t> neighbour;
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
    port_.push_back(g.port(e));
    neighbour.push_back(g.neighbour(e));
  }
  if (ports() > kMaxCandidates) {
    throw std::invalid_argument("polarized: switch " + std::to_string(sw) + " has " +
                                std::to_string(ports()) + " fabric ports; at most " +
                                std::to_string(kMaxCandidates) + " are supported");
  }
  words_ = (ports() + 63) / 64;
  if (words_ == 0) words_ = 1;
  valid_.assign(words_, 0);
  for (uint32_t f = 0; f < ports(); ++f) valid_[f / 64] |= uint64_t{1} << (f % 64);
  PortId top = 0;
  for (PortId p : port_) top = std::max(top, p);
  fabric_index_.assign(static_cast<size_t>(top) + 1, kNoFabric);
  for (uint32_t f = 0; f < ports(); ++f) fabric_index_[port_[f]] = static_cast<uint16_t>(f);
  leaves_ = static_cast<uint32_t>(leaves.size());
  std::vector<uint64_t> closer(words_);
  if (words_ == 1) {
    labels_.reserve(leaves_);
  } else {
    closer_.reserve(static_cast<size_t>(leaves_) * words_);
    distance_.reserve(leaves_);
  }
  for (uint32_t l = 0; l < leaves_; ++l) {
    const uint8_t here = routing.distance(sw, leaves[l]);
    std::fill(closer.begin(), closer.end(), 0);
    for (uint32_t f = 0; f < ports(); ++f) {
      const uint8_t there = routing.distance(neighbour[f], leaves[l]);
      if (there == here) {
        const topo::Topology& t = routing.topology();
        const topo::SwitchGraph& g = routing.graph();
        throw std::invalid_argument(
            fmt::format("polarized: switch {} and its neighbour {} are both at distance {} from "
                        "leaf {}: the graph is not leveled (Polarized needs a bipartite switch "
                        "graph: leaf-spine, MRLS, OFT)",
                        t.node(g.node_of(sw)).name, t.node(g.node_of(neighbour[f])).name, here,
                        t.node(g.node_of(leaves[l])).name));
      }
      if (there < here) closer[f / 64] |= uint64_t{1} << (f % 64);
    }
    if (words_ == 1) {
      labels_.push_back({closer[0], here});
    } else {
      closer_.insert(closer_.end(), closer.begin(), closer.end());
      distance_.push_back(here);
    }
  }
}

Polarized::Polarized(std::shared_ptr<const PolarizedTable> table, double penalty,
                     BurstQueues queues)
    : table_(std::move(table)),
      penalty_(static_cast<uint64_t>(std::llround(penalty * 256))),
      queues_(std::move(queues)),
      live_(table_->words(), 0) {}

const uint64_t* Polarized::live(const Packet& p) {
  const PolarizedTable& t = *table_;
  if (p.candidates == nullptr) return t.valid_words();  // every fabric port (tests, benchmarks)
  if (p.candidates == live_of_ && p.num_candidates == live_count_) return live_.data();
  std::fill(live_.begin(), live_.end(), 0);
  for (uint32_t i = 0; i < p.num_candidates; ++i) {
    const uint16_t f = t.fabric_index(p.candidates[i]);
    if (f != PolarizedTable::kNoFabric) live_[f / 64] |= uint64_t{1} << (f % 64);
  }
  live_of_ = p.candidates;
  live_count_ = p.num_candidates;
  return live_.data();
}

// The lowest score among the allowed fabric ports and the ties at it, from the per-burst scores
// (depth << 8) plus the penalty on deroutes: eight ports per vector instruction.
void Polarized::lowest(const uint64_t* allowed, const uint64_t* deroute, uint32_t words,
                       CandidateMask& ties) const {
#if defined(__AVX512F__)
  const __m512i pen = _mm512_set1_epi64(static_cast<long long>(penalty_));
  __m512i best = _mm512_set1_epi64(-1);
  for (uint32_t w = 0; w < words; ++w) {
    for (uint32_t v = 0; v < 8; ++v) {
      const auto lanes = static_cast<__mmask8>(allowed[w] >> (8 * v));
      const auto der = static_cast<__mmask8>(deroute[w] >> (8 * v));
      __m512i s = _mm512_loadu_si512(score_ + 64 * w + 8 * v);
      s = _mm512_mask_add_epi64(s, der, s, pen);
      best = _mm512_mask_min_epu64(best, lanes, best, s);
    }
  }
  // Eight lanes to one by hand: GCC 12's _mm512_reduce_min_epu64 trips -Wmaybe-uninitialized.
  alignas(64) uint64_t lane[8];
  _mm512_store_si512(lane, best);
  uint64_t b = lane[0];
  for (uint32_t v = 1; v < 8; ++v) b = lane[v] < b ? lane[v] : b;
  const __m512i bb = _mm512_set1_epi64(static_cast<long long>(b));
  ties.count = 0;
  for (uint32_t w = 0; w < words; ++w) {
    uint64_t m = 0;
    for (uint32_t v = 0; v < 8; ++v) {
      const auto lanes = static_cast<__mmask8>(allowed[w] >> (8 * v));
      const auto der = static_cast<__mmask8>(deroute[w] >> (8 * v));
      __m512i s = _mm512_loadu_si512(score_ + 64 * w + 8 * v);
      s = _mm512_mask_add_epi64(s, der, s, pen);
      m |= static_cast<uint64_t>(_mm512_mask_cmpeq_epu64_mask(lanes, s, bb)) << (8 * v);
    }
    ties.word[w] = m;
    ties.count += static_cast<uint32_t>(std::popcount(m));
  }
#else
  uint64_t best = UINT64_MAX;
  for (uint32_t w = 0; w < words; ++w) {
    for (uint64_t m = allowed[w]; m != 0; m &= m - 1) {
      const uint32_t f = 64 * w + static_cast<uint32_t>(std::countr_zero(m));
      const uint64_t s = score_[f] + (((deroute[w] & m & (0 - m)) != 0) ? penalty_ : 0);
      best = s < best ? s : best;
    }
  }
  ties.count = 0;
  for (uint32_t w = 0; w < words; ++w) {
    ties.word[w] = 0;
    for (uint64_t m = allowed[w]; m != 0; m &= m - 1) {
      const uint32_t f = 64 * w + static_cast<uint32_t>(std::countr_zero(m));
      const uint64_t s = score_[f] + (((deroute[w] & m & (0 - m)) != 0) ? penalty_ : 0);
      if (s == best) ties.word[w] |= m & (0 - m);
    }
    ties.count += static_cast<uint32_t>(std::popcount(ties.word[w]));
  }
#endif
}

void Polarized::find_lowest_at(uint64_t v, uint32_t words) {
  lowest_ = v;
  at_lowest_count_ = 0;
  for (uint32_t w = 0; w < words; ++w) {
    uint64_t m = 0;
#if defined(__AVX512F__)
    const __m512i vv = _mm512_set1_epi64(static_cast<long long>(v));
    for (uint32_t b = 0; b < 8; ++b) {
      m |= static_cast<uint64_t>(
               _mm512_cmpeq_epu64_mask(_mm512_loadu_si512(score_ + 64 * w + 8 * b), vv))
           << (8 * b);
    }
#else
    for (uint32_t b = 0; b < 64; ++b) m |= static_cast<uint64_t>(score_[64 * w + b] == v) << b;
#endif
    at_lowest_[w] = m & table_->valid(w);
    at_lowest_count_ += static_cast<uint32_t>(std::popcount(at_lowest_[w]));
  }
  raised_min_ = UINT64_MAX;
}

void Polarized::find_lowest(uint32_t words) {
  uint64_t b = UINT64_MAX;
#if defined(__AVX512F__)
  __m512i m = _mm512_set1_epi64(-1);
  for (uint32_t w = 0; w < words; ++w) {
    for (uint32_t v = 0; v < 8; ++v) {
      m = _mm512_mask_min_epu64(m, static_cast<__mmask8>(table_->valid(w) >> (8 * v)), m,
                                _mm512_loadu_si512(score_ + 64 * w + 8 * v));
    }
  }
  alignas(64) uint64_t lane[8];  // by hand: see lowest()
  _mm512_store_si512(lane, m);
  for (uint64_t x : lane) b = x < b ? x : b;
#else
  for (uint32_t f = 0; f < table_->ports(); ++f) b = score_[f] < b ? score_[f] : b;
#endif
  find_lowest_at(b, words);
}

// The lowest allowed score is the lowest over every port, lowest_, when an allowed port has it:
// then the ties are the allowed ports at lowest_ (without the deroutes among them when the penalty
// is positive, if a forward port is there too; all of them if every allowed port is a deroute,
// whose common penalty changes no order). Otherwise the search decides.
bool Polarized::ties_from_lowest(const uint64_t* allowed, const uint64_t* deroute, uint32_t words,
                                 CandidateMask& ties) const {
  uint64_t any = 0, any_forward_low = 0, any_forward = 0;
  for (uint32_t w = 0; w < words; ++w) {
    any |= allowed[w] & at_lowest_[w];
    any_forward_low |= allowed[w] & ~deroute[w] & at_lowest_[w];
    any_forward |= allowed[w] & ~deroute[w];
  }
  if (any == 0) return false;
  const bool all = penalty_ == 0 || any_forward == 0;
  if (!all && any_forward_low == 0) return false;
  ties.count = 0;
  for (uint32_t w = 0; w < words; ++w) {
    ties.word[w] = allowed[w] & at_lowest_[w] & (all ? ~uint64_t{0} : ~deroute[w]);
    ties.count += static_cast<uint32_t>(std::popcount(ties.word[w]));
  }
  return true;
}

// choose()'s loop for a switch of at most 64 fabric ports: every mask is one word, held in a
// register for the burst (the same steps as the loop in choose()).
void Polarized::choose_in_word(std::span<const Packet> burst, Rng& kept_rng, PortId* out) {
  const PolarizedTable& t = *table_;
  Rng rng = kept_rng;  // a local: in registers
  uint64_t low = at_lowest_[0];
  uint32_t low_count = at_lowest_count_;
  const uint64_t* up = t.valid_words();
  const PortId* up_of = nullptr;
  uint16_t up_count = 0;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.src_leaf >= t.leaves() || p.dst_leaf >= t.leaves()) {
      out[i] = kNoPort;
      continue;
    }
    if (p.candidates != up_of || p.num_candidates != up_count) {
      up = live(p);
      up_of = p.candidates;
      up_count = p.num_candidates;
    }
    const uint64_t to_s = *t.closer(p.src_leaf);
    const uint64_t to_t = *t.closer(p.dst_leaf);
    const bool expanding = t.distance(p.src_leaf) < t.distance(p.dst_leaf);
    const uint64_t deroute = (expanding ? ~to_s & ~to_t : to_s & to_t) & up[0];
    const uint64_t allowed = (~to_s & to_t & up[0]) | deroute;
    uint64_t ties;
    if (std::popcount(allowed) <= 1) {
      ties = allowed;
    } else {
      // ties_from_lowest
      const uint64_t forward = allowed & ~deroute;
      const uint64_t at = allowed & low;
      if (at != 0 && (penalty_ == 0 || forward == 0)) {
        ties = at;
      } else if ((forward & low) != 0) {
        ties = forward & low;
      } else {
        CandidateMask m;
        lowest(&allowed, &deroute, 1, m);
        ties = m.word[0];
      }
    }
    if (ties == 0) {
      out[i] = kNoPort;
      continue;
    }
    const auto count = static_cast<uint32_t>(std::popcount(ties));
    const uint32_t f = select_bit(ties, count == 1 ? 0 : rng.below(count));
    out[i] = t.port(f);
    // The burst's own choices live in score_; nothing reads the queues again in this burst.
    if (const uint32_t grew = queues_.grow(out[i], p)) {
      const uint64_t s = score_[f] + (static_cast<uint64_t>(grew) << 8);
      score_[f] = s;
      if ((low >> f) & 1) {
        low &= ~(uint64_t{1} << f);
        raised_min_ = s < raised_min_ ? s : raised_min_;
        if (--low_count == 0) {
          if (raised_min_ == lowest_ + 256) {
            find_lowest_at(lowest_ + 256, 1);
          } else {
            find_lowest(1);
          }
          low = at_lowest_[0];
          low_count = at_lowest_count_;
        }
      }
    }
  }
  kept_rng = rng;
  at_lowest_[0] = low;
  at_lowest_count_ = low_count;
}

#if defined(SPRAYLAB_LB_AVX512)
namespace {

// Allowed ports up to which a full search is a scalar pass (above: vector reductions).
constexpr int kScalarSearch = 8;

// Fabric port f's depth now: the burst's starting depth plus its own choices (byte f of `delta`),
// sixteen ports per register.
inline void depth_now(const uint32_t* start, __m512i delta, __m512i (&now)[4]) {
  now[0] = _mm512_add_epi32(
      _mm512_load_si512(start),
      _mm512_maskz_cvtepu8_epi32(0xffff, _mm512_maskz_extracti32x4_epi32(0xf, delta, 0)));
  now[1] = _mm512_add_epi32(
      _mm512_load_si512(start + 16),
      _mm512_maskz_cvtepu8_epi32(0xffff, _mm512_maskz_extracti32x4_epi32(0xf, delta, 1)));
  now[2] = _mm512_add_epi32(
      _mm512_load_si512(start + 32),
      _mm512_maskz_cvtepu8_epi32(0xffff, _mm512_maskz_extracti32x4_epi32(0xf, delta, 2)));
  now[3] = _mm512_add_epi32(
      _mm512_load_si512(start + 48),
      _mm512_maskz_cvtepu8_epi32(0xffff, _mm512_maskz_extracti32x4_epi32(0xf, delta, 3)));
}

// The smallest depth among the ports of `m` (UINT32_MAX if none).
inline uint32_t min_depth(const __m512i (&now)[4], uint64_t m) {
  __m512i b = _mm512_set1_epi32(-1);
  for (uint32_t j = 0; j < 4; ++j)
    b = _mm512_mask_min_epu32(b, static_cast<__mmask16>(m >> (16 * j)), b, now[j]);
  return reduce_min_epu32(b);
}

// The ports of `m` whose depth is d.
inline uint64_t at_depth(const __m512i (&now)[4], uint64_t m, uint32_t d) {
  const __m512i dd = _mm512_set1_epi32(static_cast<int>(d));
  uint64_t bits = 0;
  for (uint32_t j = 0; j < 4; ++j)
    bits |= static_cast<uint64_t>(_mm512_cmpeq_epu32_mask(now[j], dd)) << (16 * j);
  return bits & m;
}

// The ports whose byte in `level` is v (one bit per byte).
inline uint64_t at_level(__m512i level, uint32_t v) {
  return _mm512_cmpeq_epi8_mask(level, _mm512_set1_epi8(static_cast<char>(v)));
}

// The smallest byte of `level` among the ports of `m` (255 if none).
inline uint32_t min_level(__m512i level, uint64_t m) {
  const __m512i x = _mm512_mask_blend_epi8(m, _mm512_set1_epi8(-1), level);
  const __m256i h = _mm256_min_epu8(_mm512_maskz_extracti64x4_epi64(0xf, x, 0),
                                    _mm512_maskz_extracti64x4_epi64(0xf, x, 1));
  __m128i q = _mm_min_epu8(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  q = _mm_min_epu8(q, _mm_srli_epi16(q, 8));  // each 16-bit lane's low byte: its two bytes' min
  q = _mm_minpos_epu16(_mm_and_si128(q, _mm_set1_epi16(0xff)));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(q)) & 0xffff;
}

// A level that is none: only levels below 255 are exact (a saturated byte may stand for any
// depth above).
constexpr uint32_t kNoLevel = 255;

// ties_at_levels' compares: the forward and deroute ports' lowest levels among level + 1 ..
// level + 3 (level itself from `low`) and their scores.
inline uint64_t window_ties(__m512i rel, __m512i delta, uint32_t level, uint64_t low,
                            uint64_t allowed, uint64_t deroute, uint64_t forward,
                            uint64_t penalty) {
  const __m512i lv = _mm512_adds_epu8(rel, delta);
  const uint64_t at1 = at_level(lv, level + 1) & allowed;
  const uint64_t at2 = at_level(lv, level + 2) & allowed;
  const uint64_t at3 = at_level(lv, level + 3) & allowed;
  // The lowest of the four levels with a port of `m` (4: none, or above them) and its ports.
  auto first = [&](uint64_t m, uint64_t& ports) {
    ports = (m & low) != 0   ? m & low
            : (m & at1) != 0 ? m & at1
            : (m & at2) != 0 ? m & at2
                             : m & at3;
    return (m & low) != 0   ? 0u
           : (m & at1) != 0 ? 1u
           : (m & at2) != 0 ? 2u
           : (m & at3) != 0 ? 3u
                            : 4u;
  };
  uint64_t fp = 0, dp = 0;
  const uint32_t fl = first(forward, fp);
  const uint32_t dl = first(deroute, dp);
  // Scores less level << 8: a side above the four levels scores at least 4 << 8.
  const uint64_t fs = uint64_t{fl} << 8;
  const uint64_t ds = (uint64_t{dl} << 8) + penalty;
  const bool f_known = forward != 0 && fl < 4;
  const bool d_known = deroute != 0 && dl < 4;
  if (f_known && d_known) return (fs <= ds ? fp : 0) | (ds <= fs ? dp : 0);
  // One side known: it wins if the other cannot reach its score.
  if (f_known) return fp;  // the deroutes, if any, score 4 << 8 + penalty or more
  if (d_known && (forward == 0 || ds < (uint64_t{4} << 8))) return dp;
  return 0;
}

// The ties among `allowed` (every one at `level` or above) when the levels from `level` (the
// ports at it: `low`) to level + 3 decide them, else 0: the forward ports' lowest level against
// the deroutes' + the penalty. `rel` + `delta`: each port's level.
inline uint64_t ties_at_levels(__m512i rel, __m512i delta, uint32_t level, uint64_t low,
                               uint64_t allowed, uint64_t deroute, uint64_t forward,
                               uint64_t penalty, int& window) {
  const uint64_t at = allowed & low;
  if (at != 0 && (penalty == 0 || forward == 0)) return at;
  if ((forward & low) != 0) return forward & low;
  // The compares cost more than they save where they seldom answer (deep queues spread over many
  // levels): `window` counts their answers less their misses, and they stop at 0.
  if (window <= 0 || level + 3 >= kNoLevel) return 0;  // only levels below 255 are exact
  const uint64_t ties = window_ties(rel, delta, level, low, allowed, deroute, forward, penalty);
  window += ties != 0 ? 1 : -1;
  return ties;
}

// The full search over a few allowed ports, from their depths as scalars (the burst's starting
// depth + its own choices, `added`): one pass (the vector one is a chain of dependent reductions).
inline uint64_t scalar_ties(const uint32_t* depth, const uint8_t* added, uint64_t allowed,
                            uint64_t deroute, uint64_t penalty) {
  uint64_t ties = 0, best = UINT64_MAX;
  for (uint64_t m = allowed; m != 0; m &= m - 1) {
    const auto g = static_cast<uint32_t>(std::countr_zero(m));
    const uint64_t sc =
        (uint64_t{depth[g] + added[g]} << 8) + (((deroute >> g) & 1) != 0 ? penalty : 0);
    const uint64_t bit = m & (0 - m);
    ties = sc < best ? bit : sc == best ? ties | bit : ties;
    best = sc < best ? sc : best;
  }
  return ties;
}

// The full search in vectors: the forward ports' lowest depth against the deroutes' plus the
// penalty, from the burst's starting depths + `delta`.
inline uint64_t vector_ties(const uint32_t* depth, __m512i delta, uint64_t deroute,
                            uint64_t forward, uint64_t penalty) {
  __m512i now[4];
  depth_now(depth, delta, now);
  const uint32_t fd = min_depth(now, forward);
  const uint32_t dd = min_depth(now, deroute);
  const uint64_t fs = forward != 0 ? uint64_t{fd} << 8 : UINT64_MAX;
  const uint64_t ds = deroute != 0 ? (uint64_t{dd} << 8) + penalty : UINT64_MAX;
  const uint64_t best = fs < ds ? fs : ds;
  return (fs == best ? at_depth(now, forward, fd) : 0) |
         (ds == best ? at_depth(now, deroute, dd) : 0);
}

// Each fabric port's depth above the lowest valid one, a byte a port (saturated at 254); 255 for
// ports that do not exist, never at a level. Sixteen ports' depths a register: only the registers
// with a port are read (one on a switch of at most 16 fabric ports).
inline __m512i relative_depths(const uint32_t* depth, uint64_t valid, uint32_t ports) {
  const uint32_t groups = ports > 16 ? (ports + 15) / 16 : 1;
  auto group = [depth](uint32_t j) { return _mm512_load_si512(depth + 16 * j); };
  __m512i m = _mm512_set1_epi32(-1);
  for (uint32_t j = 0; j < groups; ++j)
    m = _mm512_mask_min_epu32(m, static_cast<__mmask16>(valid >> (16 * j)), m, group(j));
  const __m512i base = _mm512_set1_epi32(static_cast<int>(reduce_min_epu32(m)));
  auto bytes = [&](uint32_t j) {
    return _mm512_maskz_cvtusepi32_epi8(0xffff, _mm512_sub_epi32(group(j), base));
  };
  __m512i rel = _mm512_set1_epi8(-1);
  rel = _mm512_inserti32x4(rel, bytes(0), 0);
  if (groups > 1) rel = _mm512_inserti32x4(rel, bytes(1), 1);
  if (groups > 2) rel = _mm512_inserti32x4(rel, bytes(2), 2);
  if (groups > 3) rel = _mm512_inserti32x4(rel, bytes(3), 3);
  return _mm512_mask_mov_epi8(_mm512_set1_epi8(-1), valid, rel);
}

// The search the levels could not answer: scalars for a few allowed ports, else vectors.
inline uint64_t full_search(const uint32_t* depth, __m512i delta, uint64_t allowed,
                            uint64_t deroute, uint64_t forward, uint64_t penalty) {
  if (std::popcount(allowed) <= kScalarSearch) {
    alignas(64) uint8_t added[64];
    _mm512_store_si512(added, delta);
    return scalar_ties(depth, added, allowed, deroute, penalty);
  }
  return vector_ties(depth, delta, deroute, forward, penalty);
}

// A burst's levels (choose_in_word_packets): each port's level is rel + delta (its depth above the
// burst's lowest, plus the burst's own choices); `level` is the lowest tracked one and `low` the
// tracked ports at it. Ports no packet may take can be dropped from `tracked` (and kept in the
// switch's `idle` for the next bursts) so that they do not hold the level down.
struct BurstLevels {
  __m512i rel;
  __m512i delta = _mm512_setzero_si512();
  uint64_t tracked;
  bool dropped;  // tracked is not every fabric port
  uint32_t level = 0;
  uint64_t low;

  BurstLevels(__m512i r, uint64_t valid, uint64_t idle)
      : rel(r), tracked(valid & ~idle), dropped(tracked != valid) {
    low = _mm512_cmpeq_epi8_mask(rel, _mm512_setzero_si512()) & valid;
    if (dropped) relevel();
  }
  // The lowest level of the tracked ports, and the ports at it.
  void relevel() {
    const __m512i lv = _mm512_adds_epu8(rel, delta);
    level = min_level(lv, tracked);
    low = level < kNoLevel ? at_level(lv, level) & tracked : 0;
  }
  // Ports a packet may take that were dropped: tracked again; the level drops to theirs if they
  // are lower.
  void track(uint64_t more, uint64_t& idle) {
    const __m512i lv = _mm512_adds_epu8(rel, delta);
    tracked |= more;
    idle &= ~more;
    const uint32_t v = min_level(lv, more);
    if (v < kNoLevel && v <= level) {
      low = (v == level ? low : 0) | (at_level(lv, v) & more);
      level = v;
    }
  }
  // Tracked ports that no packet so far may take: dropped, and the level found again.
  void drop(uint64_t ports, uint64_t& idle) {
    dropped = true;
    tracked &= ~ports;
    idle |= ports;
    relevel();
  }
  // The burst chose the port of `bit`: its level rises by one, and `level` with it when it was
  // the last port at the level.
  void grow(uint64_t bit) {
    delta = _mm512_mask_add_epi8(delta, bit, delta, _mm512_set1_epi8(1));
    if ((low & bit) == 0) return;
    low &= ~bit;
    if (low != 0) return;
    ++level;
    low = level < kNoLevel ? at_level(_mm512_adds_epu8(rel, delta), level) & tracked : 0;
  }
  uint64_t ties(uint64_t allowed, uint64_t deroute, uint64_t forward, uint64_t penalty,
                int& window) const {
    return ties_at_levels(rel, delta, level, low, allowed, deroute, forward, penalty, window);
  }
};

}  // namespace

// The fabric ports that some packet of `burst` may take, live or not (a superset of their allowed
// ports): once a burst, so not kept per packet.
uint64_t Polarized::taken(std::span<const Packet> burst) const {
  const PolarizedTable& t = *table_;
  const PolarizedTable::Label* label = t.labels();
  uint64_t m = 0;
  for (const Packet& p : burst) {
    if (p.src_leaf >= t.leaves() || p.dst_leaf >= t.leaves()) continue;
    const uint64_t to_s = label[p.src_leaf].closer;
    const uint64_t to_t = label[p.dst_leaf].closer;
    const bool expanding = label[p.src_leaf].distance < label[p.dst_leaf].distance;
    m |= (~to_s & to_t) | (expanding ? ~to_s & ~to_t : to_s & to_t);
  }
  return m & t.valid(0);
}

// The burst's lowest depth is tracked as a level above the starting minimum, with each port's
// starting depth above that minimum in a byte (`rel`, saturated at 255) and the burst's own
// choices in another (`delta`, at most one a packet: no byte overflows in a burst of fewer than
// 255); a port's level is the saturated sum of the two. The level kept is the lowest over the
// `tracked` ports (at first every fabric port), with the ports at it in `low`. When the last port
// at the lowest level rises it goes to level + 1, and every other tracked port was above the
// level: the next ports at the lowest are the bytes equal to level + 1, one compare of one
// register, nothing loaded from memory (a vector load of scores just written by scalar stores
// waits for the stores, the cost of choose_in_word's refinds). Only levels below 255 are exact
// (a saturated byte may stand for any depth above); level 255 means none is kept.
//
// A packet's allowed ports are all tracked (a packet with others adds them first), so none is
// below the level, and its lowest score is found among the next few levels by byte compares
// (ties_at_levels). A port that no packet of the burst may take (on the null case's MRLS spine, the
// port toward leaf0, where all traffic comes from) would hold the level down for the whole burst
// and push every packet's ports above the levels compared: after a few packets, a packet
// that the levels do not answer drops such ports from `tracked` (at most once a burst), and the
// next bursts start without them until a packet may take one. The
// choices, draws and ties are choose_in_word's; only the full search reads the depths: scalars
// for a few allowed ports, else starting depth + delta in vectors.
template <bool kGrows>
void Polarized::choose_in_word_packets(std::span<const Packet> burst, const uint32_t* depth,
                                       Rng& kept_rng, PortId* out) {
  const PolarizedTable& t = *table_;
  const uint64_t valid = t.valid(0);
  const uint32_t leaves = t.leaves();
  const PolarizedTable::Label* label = t.labels();
  const PortId* port = t.port_ids();
  const uint64_t penalty = penalty_;
  Rng rng = kept_rng;  // a local: in registers
  // The ports dropped in earlier bursts stay dropped until a packet may take one.
  BurstLevels lv(relative_depths(depth, valid, t.ports()), valid, idle_);
  bool checked = false;  // the burst looked for ports to drop
  int window = 2;        // see ties_at_levels
  uint64_t up = valid;
  const PortId* up_of = nullptr;
  uint16_t up_count = 0;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.src_leaf >= leaves || p.dst_leaf >= leaves) {
      out[i] = kNoPort;
      continue;
    }
    if (p.candidates != up_of || p.num_candidates != up_count) {
      up = live(p)[0];
      up_of = p.candidates;
      up_count = p.num_candidates;
    }
    const PolarizedTable::Label& s = label[p.src_leaf];
    const PolarizedTable::Label& d = label[p.dst_leaf];
    const bool expanding = s.distance < d.distance;
    const uint64_t deroute = (expanding ? ~s.closer & ~d.closer : s.closer & d.closer) & up;
    const uint64_t allowed = (~s.closer & d.closer & up) | deroute;
    uint64_t ties;
    if ((allowed & (allowed - 1)) == 0) {
      ties = allowed;  // one port or none: no level is read
    } else {
      const uint64_t forward = allowed & ~deroute;
      if (lv.dropped && (allowed & ~lv.tracked) != 0) lv.track(allowed & ~lv.tracked, idle_);
      ties = lv.ties(allowed, deroute, forward, penalty, window);
      // Tracked ports that no packet so far may take hold the lowest level: drop them (looked for
      // once a burst, after a few packets, so that these say which ports the burst may take).
      if (ties == 0 && !checked && i >= 8) {
        checked = true;
        if (const uint64_t idle = lv.low & ~taken(burst.first(i + 1)); idle != 0) {
          lv.drop(idle, idle_);
          ties = lv.ties(allowed, deroute, forward, penalty, window);
        }
      }
      if (ties == 0) ties = full_search(depth, lv.delta, allowed, deroute, forward, penalty);
    }
    if (ties == 0) {
      out[i] = kNoPort;
      continue;
    }
    const auto count = static_cast<uint32_t>(std::popcount(ties));
    // One tie (a single allowed port, mostly) is itself: no select on the choice's chain. The
    // chosen port as a bit: the next packet's ties wait for it (the levels drop it), and the bit
    // from the select is a cycle or two sooner than its index, which the output needs only.
    const uint64_t bit = count == 1 ? ties : select_one(ties, rng.below(count));
    out[i] = port[std::countr_zero(bit)];
    if (kGrows) lv.grow(bit);
  }
  kept_rng = rng;
}
#endif

// More fabric ports than one mask word holds: each packet's allowed ports (Polarized's Forward,
// Expansion, Contraction), the lowest score among them, one draw among the ties.
void Polarized::choose_in_words(std::span<const Packet> burst, uint32_t words, Rng& rng,
                                PortId* out) {
  const PolarizedTable& t = *table_;
  CandidateMask ties;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.src_leaf >= t.leaves() || p.dst_leaf >= t.leaves()) {
      out[i] = kNoPort;  // no labels without both leaves: never read beyond the tables
      continue;
    }
    const uint64_t* to_s = t.closer(p.src_leaf);
    const uint64_t* to_t = t.closer(p.dst_leaf);
    const uint64_t* up = live(p);
    const bool expanding = t.distance(p.src_leaf) < t.distance(p.dst_leaf);
    // Away from s and toward t: Forward. Away from both: Expansion. Toward both: Contraction.
    uint64_t allowed[kMaskWords], deroute[kMaskWords];
    uint32_t count = 0;
    for (uint32_t w = 0; w < words; ++w) {
      deroute[w] = (expanding ? ~to_s[w] & ~to_t[w] : to_s[w] & to_t[w]) & up[w];
      allowed[w] = (~to_s[w] & to_t[w] & up[w]) | deroute[w];
      count += static_cast<uint32_t>(std::popcount(allowed[w]));
    }
    // The lowest score, then one draw among the ports that have it (in fabric-port order).
    if (count <= 1) {  // one allowed port is its own lowest (none: no port)
      ties.count = count;
      for (uint32_t w = 0; w < words; ++w) ties.word[w] = allowed[w];
    } else if (!ties_from_lowest(allowed, deroute, words, ties)) {
      lowest(allowed, deroute, words, ties);
    }
    if (ties.count == 0) {
      out[i] = kNoPort;
      continue;
    }
    const uint32_t f = ties.select(ties.count == 1 ? 0 : rng.below(ties.count));
    out[i] = t.port(f);
    if (const uint32_t grew = queues_.add(out[i], p)) raise_score(f, grew, words);
  }
}

// Port f's score rose by `grew` (this burst's own choice): keeps lowest_ and at_lowest_ exact
// without a search when it can.
void Polarized::raise_score(uint32_t f, uint32_t grew, uint32_t words) {
  const uint64_t s = score_[f] + (static_cast<uint64_t>(grew) << 8);
  score_[f] = s;
  if (((at_lowest_[f / 64] >> (f % 64)) & 1) == 0) return;
  at_lowest_[f / 64] &= ~(uint64_t{1} << (f % 64));
  raised_min_ = s < raised_min_ ? s : raised_min_;
  if (--at_lowest_count_ != 0) return;
  // Scores are multiples of 256 and the others were above lowest_: a port that rose by one
  // packet is the new lowest without a search.
  if (raised_min_ == lowest_ + 256) {
    find_lowest_at(lowest_ + 256, words);
  } else {
    find_lowest(words);
  }
}

void Polarized::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const PolarizedTable& t = *table_;
  queues_.begin(ctx);
  // Every fabric port's score once per burst; the burst's own choices are added as they are made.
  alignas(64) uint32_t depth[kMaxCandidates];
  queues_.load(t.port_ids(), t.ports(), depth);
#if defined(SPRAYLAB_LB_AVX512)
  if (t.words() == 1 && !queues_.bytes() && burst.size() < 255) {
    Rng rng = *ctx.rng;
    if (queues_.stale()) {
      choose_in_word_packets<false>(burst, depth, rng, out);
    } else {
      choose_in_word_packets<true>(burst, depth, rng, out);
    }
    *ctx.rng = rng;
    queues_.end({out, burst.size()});
    return;
  }
#endif
  for (uint32_t f = 0; f < t.ports(); ++f) score_[f] = static_cast<uint64_t>(depth[f]) << 8;
  const uint32_t words = t.words();
  find_lowest(words);
  Rng rng = *ctx.rng;  // in registers (rps.h)
  if (words == 1) {
    choose_in_word(burst, rng, out);
    *ctx.rng = rng;
    queues_.end({out, burst.size()});
    return;
  }
  choose_in_words(burst, words, rng, out);
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

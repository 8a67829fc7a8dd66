#include "switch/lb/polarized.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

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
  closer_.assign(static_cast<size_t>(leaves.size()) * words_, 0);
  distance_.resize(leaves.size());
  for (uint32_t l = 0; l < leaves.size(); ++l) {
    const uint8_t here = routing.distance(sw, leaves[l]);
    distance_[l] = here;
    for (uint32_t f = 0; f < ports(); ++f) {
      const uint8_t there = routing.distance(neighbour[f], leaves[l]);
      if (there == here) {
        throw std::invalid_argument("polarized: switch " + std::to_string(sw) +
                                    " has a neighbour at its own distance to leaf " +
                                    std::to_string(leaves[l]) + ": the graph is not leveled");
      }
      if (there < here)
        closer_[static_cast<size_t>(l) * words_ + f / 64] |= uint64_t{1} << (f % 64);
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

void Polarized::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const PolarizedTable& t = *table_;
  queues_.begin(ctx);
  // Every fabric port's score once per burst; the burst's own choices are added as they are made.
  for (uint32_t f = 0; f < t.ports(); ++f)
    score_[f] = static_cast<uint64_t>(queues_.depth(t.port(f))) << 8;
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
    for (uint32_t w = 0; w < t.words(); ++w) {
      deroute[w] = (expanding ? ~to_s[w] & ~to_t[w] : to_s[w] & to_t[w]) & up[w];
      allowed[w] = (~to_s[w] & to_t[w] & up[w]) | deroute[w];
    }
    // The lowest score, then one draw among the ports that have it (in fabric-port order).
    lowest(allowed, deroute, t.words(), ties);
    if (ties.count == 0) {
      out[i] = kNoPort;
      continue;
    }
    const uint32_t f = ties.select(ties.count == 1 ? 0 : ctx.rng->below(ties.count));
    out[i] = t.port(f);
    if (const uint32_t grew = queues_.add(out[i], p)) score_[f] += static_cast<uint64_t>(grew) << 8;
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

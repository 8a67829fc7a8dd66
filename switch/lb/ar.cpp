#include "switch/lb/ar.h"

#include <algorithm>

#include "switch/lb/ecmp.h"

namespace spraylab::lb {

namespace {
// ar_band's percentages of the buffer: the edges of bands 1, 2 and 3.
constexpr uint32_t kArEdgePercent[3] = {5, 10, 20};
}  // namespace

struct Ar::Bands {
  // Small frames take ECMP's hash: choose_lowest_key decides the others as if they were alone.
  static constexpr bool kHashes = true;
  Ar& a;
  const uint32_t* key() const { return a.band_; }
  bool hashed(const Packet& p) const { return p.bytes < kArHashedBelow; }
  PortId hash_port(const Packet& p) const {
    return p.num_candidates == 0
               ? kNoPort
               : p.candidates[fast_range(net::mix32(p.hash ^ a.salt_), p.num_candidates)];
  }
  // Every candidate's band in one pass the compiler vectorises; the buffers and their edges only
  // when the set's ports change.
  void load(const CandidateDepths& set) {
    if (!a.buffer_of_.same(set.ports, set.w, a.queues_.capacities())) {
      load_thresholds(a.buffers_, set.ports, set.w, a.queues_.capacities(), a.buffer_);
      load_edges(set.w);
    }
    if (a.edges_usable_) {
      for (uint32_t i = 0; i < set.w; ++i) a.band_[i] = band_by_edges(set.depth[i], i);
      return;
    }
    for (uint32_t i = 0; i < set.w; ++i) a.band_[i] = ar_band(set.depth[i], a.buffer_[i]);
  }
  bool rose(const CandidateDepths& set, uint32_t c) {
    const uint32_t k =
        a.edges_usable_ ? band_by_edges(set.depth[c], c) : ar_band(set.depth[c], a.buffer_[c]);
    if (k == a.band_[c]) return false;
    a.band_[c] = k;
    return true;
  }
  uint32_t band_by_edges(uint32_t depth, uint32_t i) const {
    return static_cast<uint32_t>(depth >= a.edge_[0][i]) +
           static_cast<uint32_t>(depth >= a.edge_[1][i]) +
           static_cast<uint32_t>(depth >= a.edge_[2][i]);
  }
  void load_edges(uint32_t w) {
    a.edges_usable_ = true;
    for (uint32_t i = 0; i < w; ++i) {
      const double b = a.buffer_[i];  // an integer (load_thresholds)
      if (!(b >= 0 && b <= UINT32_MAX)) {
        a.edges_usable_ = false;
        return;
      }
      for (uint32_t j = 0; j < 3; ++j) {
        const uint64_t product = kArEdgePercent[j] * static_cast<uint64_t>(b);
        a.edge_[j][i] = static_cast<uint32_t>((product + 99) / 100);  // <= b: fits
      }
    }
  }
};

void Ar::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  for (size_t at = 0; at < burst.size(); at += kPart)
    choose_part(burst.subspan(at, std::min(kPart, burst.size() - at)), ctx, out + at);
}

// Small frames by hash, the others adaptively: choose_lowest_key skips the small frames (no draw,
// no depth, no end of a run), so the adaptive choice sees only the data frames, in order, as if
// the small frames had taken another path through the switch. A part of small frames only does
// not look at the queues at all (no snapshot is taken for it).
void Ar::choose_part(std::span<const Packet> part, const BurstContext& ctx, PortId* out) {
  Bands keys{*this};
  if (std::none_of(part.begin(), part.end(), [&](const Packet& p) { return !keys.hashed(p); })) {
    for (size_t i = 0; i < part.size(); ++i) out[i] = keys.hash_port(part[i]);
    return;
  }
  choose_lowest_key(part, ctx, out, queues_, set_, low_, keys);
}

}  // namespace spraylab::lb

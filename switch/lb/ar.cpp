#include "switch/lb/ar.h"

#include <algorithm>

#include "switch/lb/ecmp.h"

namespace spraylab::lb {

struct Ar::Bands {
  // Small frames take ECMP's hash: choose_lowest_key decides the others as if they were alone.
  static constexpr bool kHashes = true;
  Ar& a;
  const uint32_t* key() const { return a.band_; }
  bool hashed(const Packet& p) const { return p.bytes < kArHashedBelow; }
  PortId hash_port(const Packet& p) const { return a.hash_port(p); }
  // Every candidate's band in one pass the compiler vectorises; the buffers only when the set's
  // ports change.
  void load(const CandidateDepths& set) {
    if (!a.buffer_of_.same(set.ports, set.w, a.queues_.capacities()))
      load_thresholds(a.buffers_, set.ports, set.w, a.queues_.capacities(), a.buffer_);
    for (uint32_t i = 0; i < set.w; ++i) a.band_[i] = ar_band(set.depth[i], a.buffer_[i]);
  }
  bool rose(const CandidateDepths& set, uint32_t c) {
    const uint32_t k = ar_band(set.depth[c], a.buffer_[c]);
    if (k == a.band_[c]) return false;
    a.band_[c] = k;
    return true;
  }
};

PortId Ar::hash_port(const Packet& p) const {
  return p.num_candidates == 0
             ? kNoPort
             : p.candidates[fast_range(net::mix32(p.hash ^ salt_), p.num_candidates)];
}

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
    for (size_t i = 0; i < part.size(); ++i) out[i] = hash_port(part[i]);
    return;
  }
  choose_lowest_key(part, ctx, out, queues_, set_, low_, keys);
}

}  // namespace spraylab::lb

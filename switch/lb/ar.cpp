#include "switch/lb/ar.h"

#include <algorithm>
#include <array>

#include "switch/lb/ecmp.h"

namespace spraylab::lb {

struct Ar::Bands {
  Ar& a;
  const uint32_t* key() const { return a.band_; }
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

void Ar::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  for (size_t at = 0; at < burst.size(); at += kPart)
    choose_part(burst.subspan(at, std::min(kPart, burst.size() - at)), ctx, out + at);
}

// Small frames by hash, the others adaptively. A burst of data frames only (the common case at a
// switch carrying one direction) goes to the banded choice as it is; a mixed one has its data
// frames gathered first, so the adaptive choice sees only them, in order, as if the small frames
// had taken another path through the switch.
void Ar::choose_part(std::span<const Packet> part, const BurstContext& ctx, PortId* out) {
  Bands keys{*this};
  size_t small = 0;
  for (const Packet& p : part) small += p.bytes < kArHashedBelow;
  if (small == 0) {
    choose_lowest_key(part, ctx, out, queues_, set_, low_, keys);
    return;
  }
  // Room for the gathered data frames, left uninitialised (a union's member is not
  // initialised): a local std::array<Packet, kPart> was cleared by Packet's default member
  // initialisers on every call, 2.5 KB a burst.
  union Gathered {
    Gathered() {}
    Packet at[kPart];
  } large;
  std::array<uint16_t, kPart> slot;
  size_t n = 0;
  for (size_t i = 0; i < part.size(); ++i) {
    const Packet& p = part[i];
    if (p.bytes >= kArHashedBelow) {
      large.at[n] = p;
      slot[n++] = static_cast<uint16_t>(i);
    } else {
      out[i] = p.num_candidates == 0
                   ? kNoPort
                   : p.candidates[fast_range(net::mix32(p.hash ^ salt_), p.num_candidates)];
    }
  }
  if (n == 0) return;
  std::array<PortId, kPart> chosen;
  choose_lowest_key(std::span<const Packet>(large.at, n), ctx, chosen.data(), queues_, set_, low_,
                    keys);
  for (size_t k = 0; k < n; ++k) out[slot[k]] = chosen[k];
}

}  // namespace spraylab::lb

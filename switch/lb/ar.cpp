#include "switch/lb/ar.h"

namespace spraylab::lb {

struct Ar::Bands {
  Ar& a;
  const uint32_t* key() const { return a.band_; }
  // Every candidate's band in one pass the compiler vectorises.
  void load(const CandidateDepths& set) {
    if (!a.buffer_of_.same(set.ports, set.w, a.queues_.capacities()))
      gather_ports(set.ports, set.w, a.queues_.capacities(), nullptr, a.buffer_);
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
  Bands keys{*this};
  choose_lowest_key(burst, ctx, out, queues_, set_, low_, keys);
}

}  // namespace spraylab::lb

#include "switch/lb/jsq.h"

namespace spraylab::lb {

struct Jsq::Exact {
  static constexpr bool kHashes = false;  // every packet by its key
  Jsq& j;
  const uint32_t* key() const { return j.set_.depth; }
  void load(const CandidateDepths&) {}
  bool rose(const CandidateDepths&, uint32_t) { return true; }  // the depth is the key
};

// PSP: band = min(n, floor(q·n/Th) + 1), here 0-based: the number of edges 1..n−1 at or below
// the depth (BandEdges), by division only for more bands than BandEdges holds.
struct Jsq::Banded {
  static constexpr bool kHashes = false;
  Jsq& j;
  const uint32_t* key() const { return j.key_; }
  void load(const CandidateDepths& set) {
    if (!j.th_of_.same(set.ports, set.w, j.queues_.capacities())) {
      load_thresholds(j.threshold_, set.ports, set.w, j.queues_.capacities(), j.th_);
      j.edges_.load(j.th_, set.w, j.bands_, j.bands_ - 1);
    }
    if (j.edges_.usable) {
      j.edges_.floors_and_next(set.depth, set.w, j.key_, j.next_);
      return;
    }
    band_floors(set.depth, j.th_, set.w, j.bands_, j.key_);
    for (uint32_t i = 0; i < set.w; ++i)
      j.key_[i] = j.key_[i] < j.bands_ ? j.key_[i] : j.bands_ - 1;
  }
  bool rose(const CandidateDepths& set, uint32_t c) {
    uint32_t k;
    if (j.edges_.usable) {
      // Within its band until the depth reaches the next edge: one compare per packet.
      if (set.depth[c] < j.next_[c]) return false;
      k = j.edges_.floor_of(set.depth[c], c);
      j.next_[c] = j.edges_.next(k, c);
    } else {
      band_floors(&set.depth[c], &j.th_[c], 1, j.bands_, &k);
      k = k < j.bands_ ? k : j.bands_ - 1;
    }
    if (k == j.key_[c]) return false;
    j.key_[c] = k;
    return true;
  }
};

void Jsq::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  if (bands_ == 0) {
    Exact keys{*this};
    choose_lowest_key(burst, ctx, out, queues_, set_, low_, keys);
  } else {
    Banded keys{*this};
    choose_lowest_key(burst, ctx, out, queues_, set_, low_, keys);
  }
}

}  // namespace spraylab::lb

// Polarized routing on MRLS (MRLS paper §4.3; CAMINOS `polarized.rs`). At switch c for a packet
// from leaf s to leaf t, with a = d(s,c) and b = d(c,t), a hop to neighbour n is
//   Forward     (+1, −1)  always allowed,
//   Expansion   (+1, +1)  allowed only while a < b,
//   Contraction (−1, −1)  allowed only once a ≥ b,
//   Backtrack   (−1, +1)  never,
// and among the allowed hops the lowest occupancy + `deroute_penalty` (for Expansion and
// Contraction) wins, ties uniformly at random (one draw among the tied ports, counted in
// fabric-port order). Only live ports count: the packet's candidates are the route group's live
// fabric ports (a down port is never chosen). A source or destination leaf this switch does not
// know gets kNoPort (the forwarder drops an unknown source before this, with its own reason).
//
// The per-packet work is the paper's "2-bit label per port from two bit tables": per leaf, a bit
// mask over this switch's fabric ports saying which neighbours are closer to that leaf, and this
// switch's distance to every leaf. Labels are then four mask operations per 64 ports.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"
#include "topo/routing.h"

namespace spraylab::lb {

// The compact tables of one switch, built once from topo::Routing.
class PolarizedTable {
 public:
  // Throws std::invalid_argument when `sw` has a neighbour at equal distance to some leaf (the
  // graph is not leveled, MRLS paper §4.3, and labels would need more than two bits).
  PolarizedTable(const topo::Routing& routing, uint32_t sw);

  uint32_t ports() const { return static_cast<uint32_t>(port_.size()); }
  uint32_t leaves() const { return leaves_; }
  // The fabric index f of port id `p`, or kNoFabric for a host port or an unknown id.
  static constexpr uint16_t kNoFabric = 0xffff;
  uint16_t fabric_index(PortId p) const {
    return p < fabric_index_.size() ? fabric_index_[p] : kNoFabric;
  }
  uint32_t words() const { return words_; }
  PortId port(uint32_t f) const { return port_[f]; }
  // Bit f of word j: the neighbour behind fabric port 64j + f is closer to `leaf` than we are.
  const uint64_t* closer(uint32_t leaf) const {
    return words_ == 1 ? &labels_[leaf].closer : &closer_[static_cast<size_t>(leaf) * words_];
  }
  uint8_t distance(uint32_t leaf) const {
    return words_ == 1 ? static_cast<uint8_t>(labels_[leaf].distance) : distance_[leaf];
  }
  uint64_t valid(uint32_t word) const { return valid_[word]; }
  const uint64_t* valid_words() const { return valid_.data(); }
  const PortId* port_ids() const { return port_.data(); }
  // A switch of at most 64 fabric ports: closer(leaf)[0] and distance(leaf) side by side, so a
  // packet's two leaves are two loads (empty for a larger switch).
  struct Label {
    uint64_t closer;
    uint64_t distance;
  };
  const Label* labels() const { return labels_.data(); }
  // What the per-leaf tables hold, in bytes (issue 40: O(switches x leaves) over a fabric).
  size_t leaf_bytes() const {
    return labels_.capacity() * sizeof(Label) + closer_.capacity() * sizeof(uint64_t) +
           distance_.capacity();
  }

 private:
  uint32_t words_ = 0;
  uint32_t leaves_ = 0;
  std::vector<PortId> port_;  // fabric port f's port id
  // Per leaf: labels_ when words_ == 1, else closer_ and distance_ (issue 40: one copy, not
  // both, as these are O(switches x leaves) over a fabric: 16 B a leaf, not 25).
  std::vector<uint64_t> closer_;        // leaves × words
  std::vector<uint8_t> distance_;       // d(this switch, leaf) per leaf rank
  std::vector<uint64_t> valid_;         // bits of existing ports per word
  std::vector<uint16_t> fabric_index_;  // port id → f
  std::vector<Label> labels_;           // per leaf rank, when words_ == 1
};

class Polarized final : public Balancer {
 public:
  // `penalty` in the queue unit.
  Polarized(std::shared_ptr<const PolarizedTable> table, double penalty, BurstQueues queues);
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  // The live mask of packet p's candidates (bit f: fabric port f may be chosen), rebuilt only
  // when the candidate set changes: consecutive packets share their route group's array.
  const uint64_t* live(const Packet& p);
  // The allowed ports with the lowest score (per-burst depth << 8, + penalty on deroutes).
  void lowest(const uint64_t* allowed, const uint64_t* deroute, uint32_t words,
              CandidateMask& ties) const;

  // The ties from the lowest score over every fabric port when they answer the packet (see
  // polarized.cpp); false when the full search is needed.
  bool ties_from_lowest(const uint64_t* allowed, const uint64_t* deroute, uint32_t words,
                        CandidateMask& ties) const;
  void find_lowest(uint32_t words);  // lowest_ and at_lowest_ from score_
  void choose_in_word(std::span<const Packet> burst, Rng& rng, PortId* out);
  void choose_in_words(std::span<const Packet> burst, uint32_t words, Rng& rng, PortId* out);
  void raise_score(uint32_t f, uint32_t grew, uint32_t words);
#if defined(SPRAYLAB_LB_AVX512)
  // choose_in_word with the queue unit in packets: the burst's choices kept as byte counters in
  // one vector register, so the lowest level is found again by one compare (see polarized.cpp).
  // kGrows: a live view (a stale one never changes a depth within the burst).
  template <bool kGrows>
  void choose_in_word_packets(std::span<const Packet> burst, const uint32_t* depth, Rng& rng,
                              PortId* out);
#endif
  void find_lowest_at(uint64_t v, uint32_t words);
  uint64_t taken(std::span<const Packet> burst) const;  // see polarized.cpp

  std::shared_ptr<const PolarizedTable> table_;
  uint64_t penalty_;  // fixed point, 8 fractional bits
  // The lowest score over every fabric port and the ports at it, kept as scores rise: a packet
  // whose allowed ports include one of them needs no search.
  uint64_t lowest_ = 0;
  uint64_t at_lowest_[kMaskWords] = {};
  // choose_in_word_packets: the fabric ports it dropped from the level in an earlier burst, which
  // no packet has asked for since (the level is kept over the others).
  uint64_t idle_ = 0;
  uint32_t at_lowest_count_ = 0;
  uint64_t raised_min_ = UINT64_MAX;  // the lowest score a port at lowest_ rose to since
  BurstQueues queues_;
  const PortId* live_of_ = nullptr;  // the candidate array live_ was built from
  uint16_t live_count_ = 0;
  std::vector<uint64_t> live_;  // one word per 64 fabric ports
  // Fabric port f's depth << 8 (8 fractional bits for the penalty), taken at the burst's start
  // and raised by the burst's own choices; vector loads read whole words of 64.
  alignas(64) uint64_t score_[kMaxCandidates] = {};
};

}  // namespace spraylab::lb

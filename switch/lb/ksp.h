// KSP routing on MRLS (MRLS paper §4.3.1; CAMINOS' source routings with adaptiveness at the first
// hop, `SourceAdaptiveRouting` / `EachLengthSourceAdaptiveRouting` in `routing/mod.rs` and
// `routing/extra.rs`). Every ordered leaf pair has its K shortest paths (topo/ksp_paths.h).
//
// At the source leaf: one path drawn uniformly at random among the pair's paths of each length
// ("randomization among paths of equal length"), each scored by its first hop's queue depth plus
// `deroute_penalty` per hop it is longer than the pair's shortest (the non-minimal penalty); the
// lowest score wins, ties uniformly at random (the adaptive choice at the first hop). The packet
// then follows that path: the source leaf writes its index + 1 into the frame as a 16-bit path
// label (the forwarder keeps it in the IPv4 identification, which a DF datagram does not use,
// RFC 6864: no wire bytes added), and every later switch finds itself on the path and forwards to
// the next switch on it. Where parallel links join two switches, the least deep one is taken.
//
// What is dropped (kNoPort, counted by the forwarder): a packet with no path (no label, a label
// beyond the pair's set, a path this switch is not on) or whose path's next link is down.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "topo/ksp_paths.h"
#include "topo/routing.h"

namespace spraylab::lb {

// One switch's view of the shared path sets: who it is, and its ports to each neighbour switch.
class KspTable {
 public:
  KspTable(const topo::Routing& routing, uint32_t sw, std::shared_ptr<const topo::KspPaths> paths);

  const topo::KspPaths& paths() const { return *paths_; }
  uint32_t switch_index() const { return sw_; }
  uint32_t leaf_rank() const { return leaf_rank_; }  // UINT32_MAX at a switch with no hosts
  uint32_t leaf_switch(uint32_t rank) const { return leaf_switch_[rank]; }
  // The ports to neighbour switch `n` (several with parallel links; none when not a neighbour).
  std::span<const PortId> ports_to(uint32_t n) const {
    for (uint64_t s = slot_of(n);; s = (s + 1) & mask_) {
      const Slot& x = slots_[s];
      if (x.neighbour == n) return {port_.data() + x.first, x.count};
      if (x.neighbour == kEmpty) return {};
    }
  }

 private:
  // Neighbour -> its ports, by open addressing (linear probing, at most half full): every packet
  // looks up one neighbour per length class, and a binary search of a sorted list cost it a
  // mispredicted branch a step. Memory stays O(degree) a switch (a table indexed by switch index
  // would be O(switches) a switch).
  struct Slot {
    uint32_t neighbour = kEmpty;
    uint16_t first = 0;  // its ports: port_[first, first + count)
    uint16_t count = 0;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // Fibonacci hashing: the top bits of n x 2^64 / phi (consecutive switch indices spread).
  uint64_t slot_of(uint32_t n) const { return (uint64_t{n} * 0x9e3779b97f4a7c15ull) >> shift_; }

  std::shared_ptr<const topo::KspPaths> paths_;
  uint32_t sw_;
  uint32_t leaf_rank_;
  std::vector<uint32_t> leaf_switch_;  // leaf rank -> switch index
  std::vector<Slot> slots_;            // a power of two, at least twice the neighbours
  uint64_t mask_ = 0;                  // slots_.size() - 1
  uint32_t shift_ = 63;                // 64 - log2(slots_.size())
  std::vector<PortId> port_;           // ports grouped by neighbour
};

class Ksp final : public Balancer {
 public:
  // `penalty` in the queue unit, per hop beyond the pair's shortest path; `ports`: the switch's
  // port count (port ids are below it).
  Ksp(std::shared_ptr<const KspTable> table, double penalty, size_t ports, BurstQueues queues);
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  // The per-packet steps, inlined into choose() (the generator's state stays in registers).
  // The source leaf's choice: a port and the chosen path's label, or kNoPort.
  [[gnu::always_inline]] inline PortId first_hop(const topo::KspPaths::Set& set, const Packet& p,
                                                 Rng& rng, uint16_t& label);
  // A later switch's: the next link of path `label`, or kNoPort.
  [[gnu::always_inline]] inline PortId next_hop(const topo::KspPaths::Set& set, const Packet& p,
                                                uint16_t label);
  // The least deep live port to neighbour switch `n` (the first of equals) and its depth, or
  // kNoPort.
  [[gnu::always_inline]] inline PortId port_to(uint32_t n, uint32_t& depth);
  void mark_live(const Packet& p);

  std::shared_ptr<const KspTable> table_;
  uint64_t penalty_;  // fixed point, 8 fractional bits
  BurstQueues queues_;
  // Which ports the packet's candidate set holds (its route group's live ports), rebuilt when
  // the set changes; all of them for a packet without candidates (tests, benchmarks).
  const PortId* live_of_ = nullptr;
  uint16_t live_count_ = 0;
  bool all_live_ = true;
  std::vector<uint8_t> live_;  // per port id, sized once
};

}  // namespace spraylab::lb

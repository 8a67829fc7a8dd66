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
  struct Slot;

 public:
  // The neighbour -> ports table as plain values. A burst copies it into locals: read through
  // the table, its addresses were loaded again for every packet (the burst's stores to its
  // outputs and depths may alias them for the compiler), on the chain of dependent loads each
  // choice is.
  class NeighbourPorts {
   public:
    static constexpr uint64_t kNone = UINT64_MAX;
    // Neighbour switch `n`'s slot, or kNone when `n` is not a neighbour.
    uint64_t slot(uint32_t n) const {
      for (uint64_t s = slot_of(n, shift_);; s = (s + 1) & mask_) {
        if (slots_[s].neighbour == n) return s;
        if (slots_[s].neighbour == kEmpty) return kNone;
      }
    }
    // The ports of slot `s` (several with parallel links; none in an empty slot).
    std::span<const PortId> ports(uint64_t s) const {
      return {port_ + slots_[s].first, slots_[s].count};
    }
    // The ports to neighbour switch `n` (none when not a neighbour).
    std::span<const PortId> to(uint32_t n) const {
      const uint64_t s = slot(n);
      return s == kNone ? std::span<const PortId>{} : ports(s);
    }
    uint64_t slots() const { return mask_ + 1; }

   private:
    friend class KspTable;
    const Slot* slots_;
    const PortId* port_;
    uint64_t mask_;
    uint32_t shift_;
  };

  KspTable(const topo::Routing& routing, uint32_t sw, std::shared_ptr<const topo::KspPaths> paths);

  const topo::KspPaths& paths() const { return *paths_; }
  uint32_t switch_index() const { return sw_; }
  uint32_t leaf_rank() const { return leaf_rank_; }  // UINT32_MAX at a switch with no hosts
  uint32_t leaf_switch(uint32_t rank) const { return leaf_switch_[rank]; }
  const uint32_t* leaf_switches() const { return leaf_switch_.data(); }  // by leaf rank
  NeighbourPorts neighbours() const {
    NeighbourPorts n;
    n.slots_ = slots_.data();
    n.port_ = port_.data();
    n.mask_ = mask_;
    n.shift_ = shift_;
    return n;
  }
  // The ports to neighbour switch `n` (several with parallel links; none when not a neighbour).
  std::span<const PortId> ports_to(uint32_t n) const { return neighbours().to(n); }

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
  static uint64_t slot_of(uint32_t n, uint32_t shift) {
    return (uint64_t{n} * 0x9e3779b97f4a7c15ull) >> shift;
  }

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
  // The burst's inputs as plain values: choose() builds one, the inlined steps take it by
  // reference and it stays in registers (read through `this`, the tables' addresses were loaded
  // again for every packet: the burst's stores may alias them for the compiler).
  struct Inputs {
    KspTable::NeighbourPorts neighbours;
    const uint32_t* leaf_switch;  // by leaf rank
    const uint32_t* depth;        // the view's
    uint32_t* pending;            // this burst's own choices, once `counted`
    const uint8_t* live;          // per port id, live_size of them; nullptr: every port is live
    size_t live_size;
    const PortId* single;  // single_ or single_all_, as `live`
    uint32_t me;           // this switch's index
    // The burst so far, packets [0, done) chosen into out. Most choices read no depth (one
    // length class, one link), so the burst's own choices are added to `pending` only from the
    // first depth read on, which adds those before it first (count_pending): the same depths as
    // counting every choice, without a store a packet and a clear a packet at the burst's end.
    const Packet* burst;
    const PortId* out;
    size_t done;
    bool counted;  // pending holds the choices of [0, done); always with a stale view
    bool bytes;    // the queue unit
    // What choosing a port for packet `p` adds to its depth.
    uint32_t unit(const Packet& p) const { return bytes ? p.bytes : 1; }
    void count_pending() {
      if (counted) return;
      for (size_t k = 0; k < done; ++k) {
        if (out[k] != kNoPort) pending[out[k]] += unit(burst[k]);
      }
      counted = true;
    }
  };

  // The per-packet steps, inlined into choose() (the generator's state stays in registers).
  // The source leaf's choice: a port and the chosen path's label, or kNoPort.
  [[gnu::always_inline]] inline PortId first_hop(Inputs& in, const topo::KspPaths::Set& set,
                                                 const Packet& p, Rng& rng, uint16_t& label) const;
  // The quick run from packet `i`: packets at their source leaf whose pair has paths of one
  // length only, and whose drawn path's first hop is a neighbour of one link (single_): one draw
  // and a few loads each, no depth, no score (on an MRLS at scale most pairs' K shortest paths
  // are all of the shortest length). A loop of its own, so that its few values stay in
  // registers. Returns where it stopped: the burst's end or a packet for the general steps.
  // `add`: the choices go into in.pending (it holds the burst's choices so far).
  [[gnu::always_inline]] inline size_t quick_run(const Inputs& in, std::span<const Packet> burst,
                                                 size_t i, Rng& rng, PortId* out, uint16_t* labels,
                                                 bool add) const;
  // The quick run's least deep port of `ports` live in live_, for packet `i` (parallel links, out
  // of its loop): with the burst's choices so far counted from out[0, i) unless `counted`.
  [[gnu::noinline]] PortId least_deep(const Inputs& in, std::span<const PortId> ports, size_t i,
                                      bool counted) const;
  // A later switch's: the next link of path `label`, or kNoPort.
  [[gnu::always_inline]] inline PortId next_hop(Inputs& in, const topo::KspPaths::Set& set,
                                                const Packet& p, uint16_t label) const;
  // The least deep live port of `ports` (the links to one neighbour switch; the first of
  // equals) and its depth, or kNoPort.
  [[gnu::always_inline]] static inline PortId port_to(Inputs& in, std::span<const PortId> ports,
                                                      uint32_t& depth);
  // The same for neighbour slot `s` (KspTable::NeighbourPorts::slot) without its depth (a later
  // switch scores nothing): a single link's port is one load beside the slot (single_).
  [[gnu::always_inline]] static inline PortId port_to(Inputs& in, uint64_t s);
  // single_ for `live` (nullptr: every port is live).
  void fill_single(std::vector<PortId>& single, const uint8_t* live) const;
  void mark_live(const Packet& p);

  std::shared_ptr<const KspTable> table_;
  uint64_t penalty_;  // fixed point, 8 fractional bits
  BurstQueues queues_;
  // Which ports the packet's candidate set holds (its route group's live ports), rebuilt when
  // the set changes; every port for a packet without candidates (tests, benchmarks).
  const PortId* live_of_ = nullptr;
  uint16_t live_count_ = 0;
  std::vector<uint8_t> live_;  // per port id, sized once
  // Per slot of the neighbour table: the neighbour's one link's port if it is live, kNoPort if it
  // is not, kSeveral for parallel links (the least deep is chosen). Rebuilt with live_, so that
  // it always says what live_ does; single_all_ with every port live.
  static constexpr PortId kSeveral = kNoPort - 1;
  std::vector<PortId> single_;
  std::vector<PortId> single_all_;
};

}  // namespace spraylab::lb

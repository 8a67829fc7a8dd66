// UGAL on a Dragonfly or Dragonfly+ (`ugal`), as the MRLS paper runs it (§5, Table 2: DF(32,
// 16512) with UGAL; its CAMINOS configuration `Sum{policy: TryBoth, first: shortest, second:
// Valiant4Dragonfly}` with the occupancy policies of 16k-servers-Dragonflies/Throughput/DF):
//
// At the switch where the packet enters the fabric (it came in on a host port), one intermediate
// leaf m is drawn uniformly among the leaves outside the source's and the destination's groups
// (Valiant4Dragonfly: a random router, never in either group). The candidates are the minimal
// ports toward the destination, each scored by its own queue depth, and the minimal ports toward
// m (the Valiant path's first hop), all scored 2 x (their mean depth, over those that are not
// also minimal ports toward the destination) + one packet. The lowest score wins, ties uniformly
// at random. This is UGAL-L with local queue information: the factor 2 stands for the non-minimal
// path's length over the minimal one's (the textbook q_min·H_min vs q_nm·H_nm), the packet is the
// bias toward the minimal path.
//
// The choice travels in the frame's path label (the IPv4 identification, as ksp's, RFC 6864):
// 0 the minimal path; m + 1 the Valiant path's first leg, toward leaf m; kSecondLeg its second,
// from m to the destination. Later switches follow the label: minimal legs by the least deep
// minimal port (ties at random), Valiant legs uniformly at random among the minimal ports toward
// the leg's end (CAMINOS labels every Valiant candidate alike). On a Dragonfly a route is at most
// 3 switch-to-switch hops minimal and 6 Valiant (local - global - local to m, then again to the
// destination); on a Dragonfly+ 3 and 8. Needs at least 3 groups (the factory says so).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/dragonfly_table.h"

namespace spraylab::lb {

class Ugal final : public Balancer {
 public:
  // The Valiant path's second leg; labels 1 .. leaves are the first leg's.
  static constexpr uint16_t kSecondLeg = 0xffff;
  // The largest leaf count the label can carry.
  static constexpr uint32_t kMaxLeaves = kSecondLeg - 1;
  // The weight of the Valiant path's mean depth (CAMINOS `occupancy_coefficient: 2`).
  static constexpr uint64_t kValiantWeight = 2;

  // `packet`: one packet in the queue unit (the bias toward the minimal path).
  Ugal(std::shared_ptr<const DragonflyTable> table, uint32_t packet, size_t ports,
       BurstQueues queues);
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  PortId at_entry(const Packet& p, Rng& rng, uint16_t& label);
  PortId in_transit(const Packet& p, Rng& rng, uint16_t& label);
  // A leaf outside groups `a` and `b` (which may be equal), uniformly.
  uint32_t draw_middle(uint32_t a, uint32_t b, Rng& rng) const;

  std::shared_ptr<const DragonflyTable> table_;
  uint64_t packet_;
  LivePorts live_;
  BurstQueues queues_;
};

}  // namespace spraylab::lb

// FPAR on a Dragonfly+ (`fpar`), as the MRLS paper runs it (§5, Table 2: DF+(32, 16640) with
// FPAR): CAMINOS' `MegaflyAD` ("FPAR 2 vc", minimal_to_deroute [1, 1, 0]) with the occupancy
// policies of its 16k-servers-Dragonflies/Throughput/MRLS_and_DFplus configuration. The paper
// names FPAR and cites Dragonfly+ (Shpiner et al. 2017) without describing it; the reproduction's
// configuration is the definition followed here. Progressive: a packet may leave the minimal path
// at either hop in its source group, each time comparing queues.
//
//   source leaf (the packet came in on a host port): every up port. A minimal one (its spine has
//     a global link to the destination group) scores its queue depth; the others all score
//     2 x (the mean depth of every up port) + one packet.
//   spine of the source group: every global port. One into the destination group scores its
//     depth; the others 3 x (the mean depth of the global ports) + one packet.
//   anywhere else, and for a destination in the source group: the minimal ports toward the
//     destination (an intermediate group's spine with a link to the destination group takes it,
//     one without goes down to a leaf, which goes up to one with), least deep first.
// The lowest score wins, ties uniformly at random. Routes are at most 6 switch-to-switch hops
// (up, global, down, up, global, down). No state travels in the frame: where a packet is (its
// source leaf's group, the destination's) says which rule applies.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/dragonfly_table.h"

namespace spraylab::lb {

class Fpar final : public Balancer {
 public:
  // Weights of the mean depth a deroute scores at the source leaf and at the source group's spine
  // (CAMINOS `occupancy_coefficient` 2 and 3).
  static constexpr uint64_t kLeafWeight = 2;
  static constexpr uint64_t kSpineWeight = 3;

  // `packet`: one packet in the queue unit (the bias toward the minimal path).
  Fpar(std::shared_ptr<const DragonflyTable> table, uint32_t packet, size_t ports,
       BurstQueues queues);
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  // Among `ports`, the minimal ones by depth, the rest by weight x mean depth + a packet.
  PortId progressive(std::span<const PortId> ports, uint32_t dst_leaf, uint64_t weight, Rng& rng);

  std::shared_ptr<const DragonflyTable> table_;
  uint64_t packet_;
  LivePorts live_;
  BurstQueues queues_;
};

}  // namespace spraylab::lb

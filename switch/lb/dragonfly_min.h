// Minimal routing on a Dragonfly or Dragonfly+ (`dragonfly-min`): every hop goes to a port that
// starts a minimal route to the destination leaf, uniformly at random among them. Minimal as the
// MRLS paper's runs define it (topo/dragonfly_groups.h): the fewest global links, then the fewest
// local ones: local - global - local on a Dragonfly (at most 3 switch-to-switch hops), up - global
// - down on a Dragonfly+ (at most 3). Only live ports count; a packet with none is dropped
// (kNoPort, counted by the forwarder).
#pragma once

#include <memory>
#include <span>

#include "switch/lb/balancer.h"
#include "switch/lb/dragonfly_table.h"

namespace spraylab::lb {

class DragonflyMin final : public Balancer {
 public:
  DragonflyMin(std::shared_ptr<const DragonflyTable> table, size_t ports);
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  std::shared_ptr<const DragonflyTable> table_;
  LivePorts live_;
};

}  // namespace spraylab::lb

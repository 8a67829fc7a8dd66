// One switch's view of a Dragonfly or Dragonfly+ (topo/dragonfly_groups.h), shared by its lcores
// and read by the three Dragonfly routings (dragonfly_min.h, ugal.h, fpar.h): its group, the
// ports that start a minimal route to every leaf, its global and local ports. Plus what the three
// share on the data path: the live mask of a packet's candidate set, and the two port choices
// (uniform, least deep) among the live ports of a list.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "topo/dragonfly_groups.h"
#include "topo/routing.h"

namespace spraylab::lb {

class DragonflyTable {
 public:
  DragonflyTable(const topo::Routing& routing, std::shared_ptr<const topo::DragonflyGroups> groups,
                 uint32_t sw);

  const topo::DragonflyGroups& groups() const { return *groups_; }
  uint32_t leaves() const { return leaves_; }
  uint32_t group() const { return group_; }
  uint32_t leaf_rank() const { return leaf_rank_; }  // UINT32_MAX at a spine
  // The ports that start a minimal route to leaf `leaf` (none at that leaf).
  std::span<const PortId> toward(uint32_t leaf) const {
    return {toward_.data() + first_[leaf], toward_.data() + first_[leaf + 1]};
  }
  std::span<const PortId> fabric_ports() const { return fabric_; }
  std::span<const PortId> global_ports() const { return global_; }
  // The group at the far end of a fabric port (UINT32_MAX for a host port or an unknown id).
  uint32_t peer_group(PortId p) const {
    return p < peer_group_.size() ? peer_group_[p] : UINT32_MAX;
  }
  // A host port: a frame that came in on it entered the fabric here.
  bool host_port(PortId p) const { return p < host_.size() && host_[p] != 0; }

 private:
  std::shared_ptr<const topo::DragonflyGroups> groups_;
  uint32_t leaves_;
  uint32_t group_;
  uint32_t leaf_rank_;
  std::vector<uint32_t> first_;  // leaf t's minimal ports: toward_[first_[t], first_[t + 1])
  std::vector<PortId> toward_;
  std::vector<PortId> fabric_;
  std::vector<PortId> global_;
  std::vector<uint32_t> peer_group_;  // per port id
  std::vector<uint8_t> host_;         // per port id
};

// Which ports a packet's candidate set holds (its route group's live fabric ports), rebuilt only
// when the set changes; every port for a packet without candidates (tests, benchmarks).
class LivePorts {
 public:
  explicit LivePorts(size_t ports) : live_(ports, 0) {}
  void mark(const Packet& p);
  bool live(PortId port) const { return all_ || (port < live_.size() && live_[port] != 0); }

 private:
  const PortId* of_ = nullptr;
  uint16_t count_ = 0;
  bool all_ = true;
  std::vector<uint8_t> live_;
};

// A live port of `ports` drawn uniformly, or kNoPort.
PortId random_live(std::span<const PortId> ports, const LivePorts& live, Rng& rng);
// The least deep live port of `ports`, ties uniformly at random, or kNoPort.
PortId least_deep_live(std::span<const PortId> ports, const LivePorts& live,
                       const BurstQueues& queues, Rng& rng);

// A reservoir of one over scored ports: the lowest score wins, ties uniformly at random.
class LowestScore {
 public:
  void offer(PortId port, uint64_t score, Rng& rng) {
    if (port_ == kNoPort || score < score_) {
      port_ = port;
      score_ = score;
      ties_ = 1;
    } else if (score == score_ && rng.below(++ties_) == 0) {
      port_ = port;
    }
  }
  PortId port() const { return port_; }
  uint64_t score() const { return score_; }
  uint32_t ties() const { return ties_; }  // ports offered at score()

 private:
  PortId port_ = kNoPort;
  uint64_t score_ = 0;
  uint32_t ties_ = 0;
};

}  // namespace spraylab::lb

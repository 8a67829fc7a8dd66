#include "switch/lb/dragonfly_table.h"

#include <algorithm>
#include <utility>

namespace spraylab::lb {

DragonflyTable::DragonflyTable(const topo::Routing& routing,
                               std::shared_ptr<const topo::DragonflyGroups> groups, uint32_t sw)
    : groups_(std::move(groups)),
      leaves_(static_cast<uint32_t>(routing.leaves().size())),
      group_(groups_->group_of_switch(sw)),
      leaf_rank_(routing.leaf_rank(sw)) {
  const topo::SwitchGraph& g = routing.graph();
  const topo::Topology& t = routing.topology();
  const size_t ports = t.degree(g.node_of(sw));
  peer_group_.assign(ports, UINT32_MAX);
  host_.assign(ports, 1);
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
    const PortId p = g.port(e);
    peer_group_[p] = groups_->group_of_switch(g.neighbour(e));
    host_[p] = 0;
    fabric_.push_back(p);
    if (groups_->global(e)) global_.push_back(p);
  }
  first_.reserve(leaves_ + 1);
  first_.push_back(0);
  for (uint32_t leaf = 0; leaf < leaves_; ++leaf) {
    for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
      if (groups_->minimal(sw, e, leaf)) toward_.push_back(g.port(e));
    }
    first_.push_back(static_cast<uint32_t>(toward_.size()));
  }
  toward_.shrink_to_fit();
}

void LivePorts::mark(const Packet& p) {
  if (p.candidates == nullptr) {
    all_ = true;
    return;
  }
  all_ = false;
  if (p.candidates == of_ && p.num_candidates == count_) return;
  std::fill(live_.begin(), live_.end(), 0);
  for (uint32_t i = 0; i < p.num_candidates; ++i) {
    if (p.candidates[i] < live_.size()) live_[p.candidates[i]] = 1;
  }
  of_ = p.candidates;
  count_ = p.num_candidates;
}

PortId random_live(std::span<const PortId> ports, const LivePorts& live, Rng& rng) {
  PortId chosen = kNoPort;
  uint32_t seen = 0;
  for (PortId p : ports) {
    if (live.live(p) && rng.below(++seen) == 0) chosen = p;
  }
  return chosen;
}

PortId least_deep_live(std::span<const PortId> ports, const LivePorts& live,
                       const BurstQueues& queues, Rng& rng) {
  LowestScore best;
  for (PortId p : ports) {
    if (live.live(p)) best.offer(p, queues.depth(p), rng);
  }
  return best.port();
}

}  // namespace spraylab::lb

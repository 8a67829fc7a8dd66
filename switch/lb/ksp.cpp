#include "switch/lb/ksp.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace spraylab::lb {

KspTable::KspTable(const topo::Routing& routing, uint32_t sw,
                   std::shared_ptr<const topo::KspPaths> paths)
    : paths_(std::move(paths)),
      sw_(sw),
      leaf_rank_(routing.leaf_rank(sw)),
      leaf_switch_(routing.leaves()) {
  const topo::SwitchGraph& g = routing.graph();
  std::vector<std::pair<uint32_t, PortId>> links;
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) links.emplace_back(g.neighbour(e), g.port(e));
  std::sort(links.begin(), links.end());
  for (const auto& [n, port] : links) {
    if (neighbour_.empty() || neighbour_.back() != n) {
      neighbour_.push_back(n);
      first_.push_back(static_cast<uint32_t>(port_.size()));
    }
    port_.push_back(port);
  }
  first_.push_back(static_cast<uint32_t>(port_.size()));
}

std::span<const PortId> KspTable::ports_to(uint32_t n) const {
  const auto it = std::lower_bound(neighbour_.begin(), neighbour_.end(), n);
  if (it == neighbour_.end() || *it != n) return {};
  const auto i = static_cast<size_t>(it - neighbour_.begin());
  return {port_.data() + first_[i], port_.data() + first_[i + 1]};
}

Ksp::Ksp(std::shared_ptr<const KspTable> table, double penalty, size_t ports, BurstQueues queues)
    : table_(std::move(table)),
      penalty_(static_cast<uint64_t>(std::llround(penalty * 256))),
      queues_(std::move(queues)),
      live_(ports, 0) {}

void Ksp::mark_live(const Packet& p) {
  if (p.candidates == nullptr) {
    all_live_ = true;
    return;
  }
  all_live_ = false;
  if (p.candidates == live_of_ && p.num_candidates == live_count_) return;
  std::fill(live_.begin(), live_.end(), 0);
  for (uint32_t i = 0; i < p.num_candidates; ++i) {
    const PortId c = p.candidates[i];
    if (c < live_.size()) live_[c] = 1;
  }
  live_of_ = p.candidates;
  live_count_ = p.num_candidates;
}

PortId Ksp::port_to(uint32_t n) {
  PortId best = kNoPort;
  uint32_t best_depth = 0;
  for (PortId port : table_->ports_to(n)) {
    if (!all_live_ && (port >= live_.size() || live_[port] == 0)) continue;
    const uint32_t d = queues_.depth(port);
    if (best == kNoPort || d < best_depth) {
      best = port;
      best_depth = d;
    }
  }
  return best;
}

// MRLS paper §4.3.1: random among equal length, a penalty on longer paths, adaptive at the
// first hop. One draw per length class, then the lowest score; ties by one more draw.
PortId Ksp::first_hop(const topo::KspPaths::Set& set, const Packet& p, Rng& rng, uint16_t& label) {
  const topo::KspPaths& paths = table_->paths();
  const uint32_t dst_switch = table_->leaf_switch(p.dst_leaf);
  PortId best = kNoPort;
  uint64_t best_score = 0;
  uint32_t ties = 0;
  uint32_t start = 0;
  for (uint32_t c = 0; c < set.lengths; start = set.end[c++]) {
    const uint32_t i = start + rng.below(set.end[c] - start);
    const uint32_t first = set.len[c] == 1 ? dst_switch : paths.hops(set, i)[0];
    const PortId port = port_to(first);
    if (port == kNoPort) continue;  // its first link is down
    const uint64_t score =
        (static_cast<uint64_t>(queues_.depth(port)) << 8) + penalty_ * (set.len[c] - set.len[0]);
    if (best == kNoPort || score < best_score) {
      best = port;
      best_score = score;
      label = static_cast<uint16_t>(i + 1);
      ties = 1;
    } else if (score == best_score && rng.below(++ties) == 0) {
      best = port;  // reservoir of one: uniform among the ties
      label = static_cast<uint16_t>(i + 1);
    }
  }
  return best;
}

PortId Ksp::next_hop(const topo::KspPaths::Set& set, const Packet& p, uint16_t label) {
  if (label == 0 || label > set.count) return kNoPort;
  const uint32_t i = label - 1u;
  const uint32_t mids = topo::KspPaths::length(set, i) - 1;
  const uint16_t* hops = table_->paths().hops(set, i);
  const uint32_t me = table_->switch_index();
  for (uint32_t j = 0; j < mids; ++j) {
    if (hops[j] != me) continue;
    const uint32_t next = j + 1 < mids ? hops[j + 1] : table_->leaf_switch(p.dst_leaf);
    return port_to(next);
  }
  return kNoPort;  // not on this path
}

void Ksp::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const KspTable& t = *table_;
  const topo::KspPaths& paths = t.paths();
  queues_.begin(ctx);
  Rng rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    uint16_t label = p.path_label;
    PortId port = kNoPort;
    if (p.src_leaf < paths.leaves() && p.dst_leaf < paths.leaves() && p.src_leaf != p.dst_leaf) {
      mark_live(p);
      const topo::KspPaths::Set& set = paths.set(p.src_leaf, p.dst_leaf);
      port = p.src_leaf == t.leaf_rank() ? first_hop(set, p, rng, label) : next_hop(set, p, label);
    }
    out[i] = port;
    if (ctx.path_labels != nullptr) ctx.path_labels[i] = label;
    queues_.add(port, p);
  }
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

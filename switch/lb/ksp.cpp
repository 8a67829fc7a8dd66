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
  uint32_t bits = 1;
  while ((size_t{1} << bits) < 2 * links.size()) ++bits;
  slots_.resize(size_t{1} << bits);
  mask_ = slots_.size() - 1;
  shift_ = 64 - bits;
  Slot* slot = nullptr;
  for (const auto& [n, port] : links) {
    if (slot == nullptr || slot->neighbour != n) {
      uint64_t s = slot_of(n);
      while (slots_[s].neighbour != kEmpty) s = (s + 1) & mask_;
      slot = &slots_[s];
      slot->neighbour = n;
      slot->first = static_cast<uint16_t>(port_.size());  // ports are 16-bit: port_ fits
    }
    ++slot->count;
    port_.push_back(port);
  }
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

PortId Ksp::port_to(uint32_t n, uint32_t& depth) {
  PortId best = kNoPort;
  for (PortId port : table_->ports_to(n)) {
    if (!all_live_ && (port >= live_.size() || live_[port] == 0)) continue;
    const uint32_t d = queues_.depth(port);
    if (best == kNoPort || d < depth) {
      best = port;
      depth = d;
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
    uint32_t depth = 0;
    const PortId port = port_to(first, depth);
    if (port == kNoPort) continue;  // its first link is down
    const uint64_t score =
        (static_cast<uint64_t>(depth) << 8) + penalty_ * (set.len[c] - set.len[0]);
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
    uint32_t depth = 0;
    return port_to(next, depth);
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

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
      uint64_t s = slot_of(n, shift_);
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
      live_(ports, 0) {
  fill_single(single_, live_.data());
  fill_single(single_all_, nullptr);
}

void Ksp::fill_single(std::vector<PortId>& single, const uint8_t* live) const {
  const KspTable::NeighbourPorts neighbours = table_->neighbours();
  single.resize(neighbours.slots());
  for (uint64_t s = 0; s < single.size(); ++s) {
    const std::span<const PortId> ports = neighbours.ports(s);
    PortId one = ports.size() == 1 ? ports[0] : kSeveral;
    if (one != kSeveral && live != nullptr && (one >= live_.size() || live[one] == 0)) {
      one = kNoPort;
    }
    single[s] = one;  // a port numbered kSeveral itself takes the general path: the same choice
  }
}

void Ksp::mark_live(const Packet& p) {
  std::fill(live_.begin(), live_.end(), 0);
  for (uint32_t i = 0; i < p.num_candidates; ++i) {
    const PortId c = p.candidates[i];
    if (c < live_.size()) live_[c] = 1;
  }
  live_of_ = p.candidates;
  live_count_ = p.num_candidates;
  fill_single(single_, live_.data());
}

PortId Ksp::port_to(Inputs& in, std::span<const PortId> ports, uint32_t& depth) {
  in.count_pending();
  PortId best = kNoPort;
  for (PortId port : ports) {
    if (in.live != nullptr && (port >= in.live_size || in.live[port] == 0)) continue;
    const uint32_t d = in.depth[port] + in.pending[port];
    if (best == kNoPort || d < depth) {
      best = port;
      depth = d;
    }
  }
  return best;
}

PortId Ksp::port_to(Inputs& in, uint64_t s) {
  if (s == KspTable::NeighbourPorts::kNone) return kNoPort;
  const PortId one = in.single[s];
  if (one != kSeveral) return one;
  uint32_t depth = 0;
  return port_to(in, in.neighbours.ports(s), depth);
}

// MRLS paper §4.3.1: random among equal length, a penalty on longer paths, adaptive at the
// first hop. One draw per length class, then the lowest score; ties by one more draw.
PortId Ksp::first_hop(Inputs& in, const topo::KspPaths::Set& set, const Packet& p, Rng& rng,
                      uint16_t& label) const {
  const topo::KspPaths& paths = table_->paths();
  const uint32_t dst_switch = in.leaf_switch[p.dst_leaf];
  PortId best = kNoPort;
  uint64_t best_score = 0;
  uint32_t ties = 0;
  uint32_t start = 0;
  for (uint32_t c = 0; c < set.lengths; start = set.end[c++]) {
    const uint32_t i = start + rng.below(set.end[c] - start);
    const uint32_t first = set.len[c] == 1 ? dst_switch : paths.hops(set, i)[0];
    uint32_t depth = 0;
    const PortId port = port_to(in, in.neighbours.to(first), depth);
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

PortId Ksp::next_hop(Inputs& in, const topo::KspPaths::Set& set, const Packet& p,
                     uint16_t label) const {
  if (label == 0 || label > set.count) return kNoPort;
  const uint32_t i = label - 1u;
  const uint32_t mids = topo::KspPaths::length(set, i) - 1;
  const uint16_t* hops = table_->paths().hops(set, i);
  for (uint32_t j = 0; j < mids; ++j) {
    if (hops[j] != in.me) continue;
    const uint32_t next = j + 1 < mids ? hops[j + 1] : in.leaf_switch[p.dst_leaf];
    return port_to(in, in.neighbours.slot(next));
  }
  return kNoPort;  // not on this path
}

PortId Ksp::least_deep(const Inputs& in, std::span<const PortId> ports, size_t i,
                       bool counted) const {
  PortId best = kNoPort;
  uint32_t depth = 0;
  for (PortId port : ports) {
    if (port >= live_.size() || live_[port] == 0) continue;
    uint32_t d = in.depth[port] + in.pending[port];
    if (!counted) {  // pending holds nothing of this burst yet: its choices so far, for this port
      for (size_t k = 0; k < i; ++k) d += in.out[k] == port ? in.unit(in.burst[k]) : 0;
    }
    if (best == kNoPort || d < depth) {
      best = port;
      depth = d;
    }
  }
  return best;
}

size_t Ksp::quick_run(const Inputs& in, std::span<const Packet> burst, size_t i, Rng& rng,
                      PortId* out, uint16_t* labels, bool add) const {
  const topo::KspPaths& paths = table_->paths();
  const uint32_t me = table_->leaf_rank();
  const uint32_t leaves = paths.leaves();
  if (me >= leaves || live_of_ == nullptr) return i;
  const topo::KspPaths::Set* const from_me = &paths.set(me, 0);  // by destination leaf
  const PortId* const candidates = live_of_;
  const uint16_t count = live_count_;
  const PortId* const single = single_.data();
  for (; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.src_leaf != me || p.dst_leaf >= leaves || p.dst_leaf == me ||
        p.candidates != candidates || p.num_candidates != count) {
      break;
    }
    const topo::KspPaths::Set& set = from_me[p.dst_leaf];
    if (set.lengths != 1) break;
    const uint32_t drawn = rng.below(set.end[0]);
    const uint64_t s = in.neighbours.slot(set.len[0] == 1 ? in.leaf_switch[p.dst_leaf]
                                                          : paths.hops(set, drawn)[0]);
    PortId port = kNoPort;
    uint16_t label = p.path_label;
    if (s != KspTable::NeighbourPorts::kNone) {
      port = single[s];
      if (port == kSeveral) port = least_deep(in, in.neighbours.ports(s), i, in.counted);
      if (port != kNoPort) label = static_cast<uint16_t>(drawn + 1);
    }
    out[i] = port;
    if (labels != nullptr) labels[i] = label;
    if (add && port != kNoPort) in.pending[port] += in.unit(p);
  }
  return i;
}

void Ksp::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const KspTable& t = *table_;
  const topo::KspPaths& paths = t.paths();
  queues_.begin(ctx);
  const bool live_view = !queues_.stale();
  Inputs in{.neighbours = t.neighbours(),
            .leaf_switch = t.leaf_switches(),
            .depth = queues_.view_depths(),
            .pending = queues_.pending(),
            .live = nullptr,
            .live_size = live_.size(),
            .single = nullptr,
            .me = t.switch_index(),
            .burst = burst.data(),
            .out = out,
            .done = 0,
            .counted = !live_view,
            .bytes = queues_.bytes()};
  const uint32_t leaves = paths.leaves();
  const uint32_t my_leaf = t.leaf_rank();
  uint16_t* const labels = ctx.path_labels;
  // The live set's cache as locals too (out[] may alias live_count_ for the compiler).
  const uint8_t* const live = live_.data();
  const PortId* const single = single_.data();  // sized once: mark_live keeps the address
  const PortId* const single_all = single_all_.data();
  const PortId* live_of = live_of_;
  uint16_t live_count = live_count_;
  Rng rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    i = quick_run(in, burst, i, rng, out, labels, live_view && in.counted);
    if (i == burst.size()) break;
    const Packet& p = burst[i];
    uint16_t label = p.path_label;
    PortId port = kNoPort;
    if (p.src_leaf < leaves && p.dst_leaf < leaves && p.src_leaf != p.dst_leaf) {
      in.live = nullptr;
      in.single = single_all;
      if (p.candidates != nullptr) {
        if (p.candidates != live_of || p.num_candidates != live_count) {
          mark_live(p);
          live_of = p.candidates;
          live_count = p.num_candidates;
        }
        in.live = live;
        in.single = single;
      }
      in.done = i;
      const topo::KspPaths::Set& set = paths.set(p.src_leaf, p.dst_leaf);
      port =
          p.src_leaf == my_leaf ? first_hop(in, set, p, rng, label) : next_hop(in, set, p, label);
    }
    out[i] = port;
    if (labels != nullptr) labels[i] = label;
    if (live_view && in.counted && port != kNoPort) in.pending[port] += in.unit(p);
  }
  *ctx.rng = rng;
  if (live_view && in.counted) queues_.mark_pending();
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb

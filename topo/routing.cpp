#include "topo/routing.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "topo/generators.h"
#include "topo/ksp_paths.h"

namespace spraylab::topo {

SwitchGraph::SwitchGraph(const Topology& t) {
  node_of_ = t.switches();
  index_of_.assign(t.nodes().size(), UINT32_MAX);
  for (uint32_t i = 0; i < node_of_.size(); ++i) index_of_[node_of_[i]] = i;
  offset_.reserve(node_of_.size() + 1);
  offset_.push_back(0);
  for (NodeId n : node_of_) {
    const Node& node = t.node(n);
    for (PortId p = 0; p < node.links.size(); ++p) {
      PortRef far = t.peer(n, p);
      if (t.node(far.node).kind != NodeKind::kSwitch) continue;
      neighbour_.push_back(index_of_[far.node]);
      port_.push_back(p);
    }
    offset_.push_back(static_cast<uint32_t>(neighbour_.size()));
  }
}

const char* to_string(PolarizedLabel l) {
  switch (l) {
    case PolarizedLabel::kForward:
      return "forward";
    case PolarizedLabel::kExpansion:
      return "expansion";
    case PolarizedLabel::kContraction:
      return "contraction";
    case PolarizedLabel::kBacktrack:
      return "backtrack";
  }
  return "?";
}

Routing::Routing(const Topology& t) : topo_(t), graph_(t) {
  const uint32_t n = graph_.size();
  dist_.assign(static_cast<size_t>(n) * n, kUnreachable);
  leaf_rank_.assign(n, UINT32_MAX);
  for (NodeId l : t.leaves()) {
    leaf_rank_[graph_.index_of(l)] = static_cast<uint32_t>(leaves_.size());
    leaves_.push_back(graph_.index_of(l));
  }
  // One BFS per source switch; sources are handed out to threads one at a time.
  std::atomic<uint32_t> next{0};
  // A distance is a byte and 255 is kUnreachable: a switch 255 hops away or more (an explicit
  // chain; no fabric comes near) would read as unvisited and be queued again, past the queue's
  // end. The first BFS to meet one stops every thread, and the graph is refused.
  std::atomic<bool> too_far{false};
  std::atomic<uint32_t> too_far_from{UINT32_MAX};  // the smallest such source: the same every run
  auto worker = [&] {
    std::vector<uint32_t> queue(n);
    // Sources are handed out in order, so once one is too far every smaller one has been taken:
    // the others stop, and the smallest source that met it is named.
    for (uint32_t src = next++; src < n && !too_far.load(std::memory_order_relaxed);
         src = next++) {
      uint8_t* row = &dist_[static_cast<size_t>(src) * n];
      uint32_t head = 0, tail = 0;
      row[src] = 0;
      queue[tail++] = src;
      bool stop = false;
      while (head < tail && !stop) {
        uint32_t v = queue[head++];
        uint8_t dv = static_cast<uint8_t>(row[v] + 1);
        for (uint32_t e = graph_.begin(v); e < graph_.end(v); ++e) {
          uint32_t w = graph_.neighbour(e);
          if (row[w] != kUnreachable) continue;
          if (dv == kUnreachable) {  // w is 255 hops away
            too_far = true;
            uint32_t least = too_far_from.load();
            while (src < least && !too_far_from.compare_exchange_weak(least, src)) {
            }
            stop = true;
            break;
          }
          row[w] = dv;
          queue[tail++] = w;
        }
      }
    }
  };
  unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
  if (static_cast<size_t>(n) * graph_.edges() < 1'000'000) threads = 1;
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (too_far) {
    throw TopologyError(fmt::format(
        "switch {} has switches {} or more hops away; hop counts of at most {} are supported",
        t.node(graph_.node_of(too_far_from)).name, kUnreachable, kUnreachable - 1));
  }
  connected_ = n == 0 || std::none_of(dist_.begin(), dist_.begin() + n,
                                      [](uint8_t d) { return d == kUnreachable; });
}

std::vector<PolarizedHop> Routing::minimal_hops(uint32_t sw, uint32_t dst) const {
  std::vector<PolarizedHop> out;
  const uint8_t here = distance(sw, dst);
  if (here == 0 || here == kUnreachable) return out;
  for (uint32_t e = graph_.begin(sw); e < graph_.end(sw); ++e) {
    uint32_t nb = graph_.neighbour(e);
    if (distance(nb, dst) + 1 == here) out.push_back({graph_.port(e), nb, false});
  }
  return out;
}

PolarizedLabel Routing::label(uint32_t src, uint32_t sw, uint32_t next, uint32_t dst) const {
  // MRLS paper §4.3: in a leveled graph every hop changes both distances by exactly ±1.
  const bool away_from_src = distance(src, next) > distance(src, sw);
  const bool toward_dst = distance(next, dst) < distance(sw, dst);
  if (away_from_src) return toward_dst ? PolarizedLabel::kForward : PolarizedLabel::kExpansion;
  return toward_dst ? PolarizedLabel::kContraction : PolarizedLabel::kBacktrack;
}

std::vector<PolarizedHop> Routing::polarized_hops(uint32_t src, uint32_t sw, uint32_t dst) const {
  std::vector<PolarizedHop> out;
  if (sw == dst) return out;
  const bool expanding = distance(src, sw) < distance(sw, dst);
  for (uint32_t e = graph_.begin(sw); e < graph_.end(sw); ++e) {
    uint32_t nb = graph_.neighbour(e);
    switch (label(src, sw, nb, dst)) {
      case PolarizedLabel::kForward:
        out.push_back({graph_.port(e), nb, false});
        break;
      case PolarizedLabel::kExpansion:
        if (expanding) out.push_back({graph_.port(e), nb, true});
        break;
      case PolarizedLabel::kContraction:
        if (!expanding) out.push_back({graph_.port(e), nb, true});
        break;
      case PolarizedLabel::kBacktrack:
        break;
    }
  }
  return out;
}

std::vector<Corner> Routing::corners(size_t limit) const {
  const uint32_t n = graph_.size();
  // farthest[c] = max over leaves t of d(c, t).
  std::vector<uint8_t> farthest(n, 0);
  for (uint32_t c = 0; c < n; ++c) {
    for (uint32_t t : leaves_) farthest[c] = std::max(farthest[c], distance(c, t));
  }
  std::vector<Corner> out;
  for (uint32_t s : leaves_) {
    for (uint32_t c = 0; c < n && out.size() < limit; ++c) {
      const uint8_t a = distance(s, c);
      if (c == s || farthest[c] <= a) continue;  // a ≥ b for every t: Forward/Contraction exists
      bool has_farther = false;
      for (uint32_t e = graph_.begin(c); e < graph_.end(c) && !has_farther; ++e) {
        has_farther = distance(s, graph_.neighbour(e)) > a;
      }
      if (!has_farther) out.push_back({s, c});
    }
    if (out.size() >= limit) break;
  }
  return out;
}

std::shared_ptr<const KspPaths> Routing::ksp_paths(uint32_t k) const {
  // The boundary length's sample is the same for every run of a topology (any fixed seed will do:
  // what matters is that every switch reads one set).
  constexpr uint64_t kSampleSeed = 0x6b7370;
  std::lock_guard<std::mutex> lock(ksp_lock_);
  std::shared_ptr<const KspPaths>& paths = ksp_[k];
  if (paths == nullptr) paths = std::make_shared<const KspPaths>(*this, k, kSampleSeed);
  return paths;
}

}  // namespace spraylab::topo

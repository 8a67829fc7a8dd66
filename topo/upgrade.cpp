#include "topo/upgrade.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace spraylab::topo {

std::vector<bool> upgraded_switches(const conf::UpgradeSpec& u, const Topology& t, uint64_t seed) {
  std::vector<NodeId> edge, aggregation;
  for (NodeId n : t.switches()) {
    if (t.node(n).level == 0) edge.push_back(n);
    if (t.node(n).level == 1) aggregation.push_back(n);
  }
  const size_t total = edge.size() + aggregation.size();
  const auto n = static_cast<size_t>(std::llround(u.fraction * static_cast<double>(total)));
  std::vector<NodeId> order;  // the candidates, first upgraded first
  switch (u.strategy) {
    case conf::UpgradeStrategy::kEdge:
      order = edge;
      order.insert(order.end(), aggregation.begin(), aggregation.end());
      break;
    case conf::UpgradeStrategy::kAggregation:
      order = aggregation;
      order.insert(order.end(), edge.begin(), edge.end());
      break;
    case conf::UpgradeStrategy::kRandom: {
      // The same share of each level, each drawn by a shuffle on a generator whose output the
      // standard fixes (one seed, one draw anywhere); the rounding's spare goes to the edge.
      std::mt19937_64 rng(seed ^ 0x7570677261646555ULL);  // "upgradeU": its own stream
      auto shuffle = [&rng](std::vector<NodeId>& v) {
        for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
      };
      shuffle(edge);
      shuffle(aggregation);
      const size_t from_aggregation = std::min(
          aggregation.size(),
          static_cast<size_t>(std::llround(u.fraction * static_cast<double>(aggregation.size()))));
      order.assign(aggregation.begin(), aggregation.begin() + from_aggregation);
      order.insert(order.end(), edge.begin(), edge.end());
      order.insert(order.end(), aggregation.begin() + from_aggregation, aggregation.end());
      break;
    }
    case conf::UpgradeStrategy::kPods:
      order = edge;
      order.insert(order.end(), aggregation.begin(), aggregation.end());
      std::stable_sort(order.begin(), order.end(),
                       [&t](NodeId a, NodeId b) { return t.node(a).pod < t.node(b).pod; });
      break;
  }
  std::vector<bool> out(t.nodes().size(), false);
  for (size_t i = 0; i < std::min(n, order.size()); ++i) out[order[i]] = true;
  return out;
}

}  // namespace spraylab::topo

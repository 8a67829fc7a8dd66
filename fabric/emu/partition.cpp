#include "fabric/emu/partition.h"

#include <algorithm>

namespace spraylab::fabric {
namespace {

bool has_cores(const topo::Topology& t) {
  return std::any_of(t.switches().begin(), t.switches().end(),
                     [&t](topo::NodeId n) { return t.node(n).level >= 2; });
}

uint32_t pods(const topo::Topology& t) {
  uint32_t n = 0;
  for (topo::NodeId s : t.switches()) {
    if (t.node(s).level < 2) n = std::max(n, t.node(s).pod + 1);
  }
  return n;
}

// Item i of n in `parts` contiguous groups.
uint32_t group(uint64_t i, uint64_t n, uint32_t parts) {
  return static_cast<uint32_t>(i * parts / std::max<uint64_t>(n, 1));
}

}  // namespace

uint32_t partition_units(const topo::Topology& t, const topo::Routing& r) {
  return std::max<uint32_t>(1, has_cores(t) ? pods(t) : static_cast<uint32_t>(r.leaves().size()));
}

Partitions partition_switches(const topo::Topology& t, const topo::Routing& r, uint32_t parts) {
  const topo::SwitchGraph& g = r.graph();
  Partitions p;
  p.count = std::clamp<uint32_t>(parts, 1, partition_units(t, r));
  p.of_switch.assign(g.size(), 0);
  if (p.count == 1) return p;
  if (has_cores(t)) {
    const uint32_t n_pods = pods(t);
    uint64_t cores = 0;
    for (topo::NodeId s : t.switches()) cores += t.node(s).level >= 2 ? 1 : 0;
    uint64_t core = 0;
    for (uint32_t sw = 0; sw < g.size(); ++sw) {
      const topo::Node& n = t.node(g.node_of(sw));
      p.of_switch[sw] =
          n.level >= 2 ? group(core++, cores, p.count) : group(n.pod, n_pods, p.count);
    }
    return p;
  }
  std::vector<uint8_t> is_leaf(g.size(), 0);
  const std::vector<uint32_t>& leaves = r.leaves();
  for (uint32_t k = 0; k < leaves.size(); ++k) {
    is_leaf[leaves[k]] = 1;
    p.of_switch[leaves[k]] = group(k, leaves.size(), p.count);
  }
  const uint64_t others = g.size() - leaves.size();
  uint64_t other = 0;
  for (uint32_t sw = 0; sw < g.size(); ++sw) {
    if (!is_leaf[sw]) p.of_switch[sw] = group(other++, others, p.count);
  }
  return p;
}

}  // namespace spraylab::fabric

#include "topo/stats.h"

#include <algorithm>

namespace spraylab::topo {

bool is_leaf_spine(const Topology& t) {
  for (NodeId s : t.switches()) {
    if (t.node(s).level > 1) return false;
  }
  for (const Link& l : t.links()) {
    const Node& a = t.node(l.a.node);
    const Node& b = t.node(l.b.node);
    if (a.kind == NodeKind::kSwitch && b.kind == NodeKind::kSwitch && a.level == b.level) {
      return false;
    }
  }
  return true;
}

Stats compute_stats(const Routing& r, bool count_corners) {
  const Topology& t = r.topology();
  const SwitchGraph& g = r.graph();
  Stats s;
  s.kind = std::string(to_string(t.kind));
  s.hosts = t.hosts().size();
  s.switches = g.size();
  s.leaves = r.leaves().size();
  s.spines = s.switches - s.leaves;
  s.links = g.edges() / 2;
  s.connected = r.connected();
  for (uint32_t sw = 0; sw < g.size(); ++sw) {
    const uint32_t degree = static_cast<uint32_t>(t.degree(g.node_of(sw)));
    const uint32_t fabric = g.end(sw) - g.begin(sw);
    s.radix = std::max(s.radix, degree);
    if (r.is_leaf(sw)) {
      s.uplinks = std::max(s.uplinks, fabric);
      s.downlinks = std::max(s.downlinks, degree - fabric);
    }
  }
  uint64_t sum = 0;
  for (uint32_t a : r.leaves()) {
    for (uint32_t b : r.leaves()) {
      if (a == b) continue;
      const uint8_t d = r.distance(a, b);
      sum += d;
      s.diameter = std::max<uint32_t>(s.diameter, d);
    }
  }
  for (uint32_t a = 0; a < g.size(); ++a) {
    for (uint32_t b = 0; b < g.size(); ++b)
      s.diameter_all = std::max<uint32_t>(s.diameter_all, r.distance(a, b));
  }
  const uint64_t pairs = s.leaves * (s.leaves > 0 ? s.leaves - 1 : 0);
  s.avg_distance = pairs ? static_cast<double>(sum) / static_cast<double>(pairs) : 0.0;
  if (s.hosts > 0) {
    s.capacity = s.avg_distance > 0 ? 2.0 * s.links / (s.hosts * s.avg_distance) : 0.0;
    s.cost_links_per_host = static_cast<double>(s.links) / s.hosts;
    s.cost_switches_per_host = static_cast<double>(s.switches) / s.hosts;
  }
  if (s.switches > 0) s.avg_switch_degree = 2.0 * s.links / s.switches;
  if (count_corners && s.connected && is_leaf_spine(t)) {
    s.corners = r.corners().size();
    s.corners_scanned = true;
  }
  return s;
}

}  // namespace spraylab::topo

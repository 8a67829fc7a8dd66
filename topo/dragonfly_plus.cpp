// Dragonfly+ (Shpiner, Haramaty, Eliad, Zdornov, Gafni and Zahavi, HiPINEB 2017; CAMINOS's
// Megafly), as the MRLS paper compares it (§5, §6.3: DF+(32, 16640), 65 groups, global trunking
// 4): every group is a 2-level leaf-spine, leaves carry the hosts, and the spines are joined
// across groups by the palm-tree arrangement over their global ports.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topo/generator_steps.h"
#include "topo/generators.h"
#include "topo/palm_tree.h"

namespace spraylab::topo {

Topology dragonfly_plus(const DragonflyPlusParams& p) {
  using namespace generator_steps;
  const uint32_t l = p.leaves_per_group, s = p.spines_per_group, h = p.global_links_per_spine;
  if (l == 0 || s == 0 || p.hosts_per_leaf == 0 || h == 0) {
    throw TopologyError(
        fmt::format("dragonfly-plus: leaves_per_group, spines_per_group, hosts_per_leaf and "
                    "global_links_per_spine (h) must all be at least 1, got {}, {}, {}, {}",
                    l, s, p.hosts_per_leaf, h));
  }
  check_size("dragonfly-plus", dragonfly_plus_size(l, s, p.hosts_per_leaf, h, p.groups));
  const uint64_t per_group = uint64_t{s} * h;
  const uint32_t g = palm_tree_groups("dragonfly-plus", p.groups, per_group, "spines·h");

  Topology t;
  t.kind = Kind::kDragonflyPlus;
  std::vector<NodeId> leaves, spines;  // group-major
  for (uint32_t i = 0; i < g * l; ++i) leaves.push_back(t.add_switch(0, i, name("leaf", i)));
  for (uint32_t i = 0; i < g * s; ++i) spines.push_back(t.add_switch(1, i, name("spine", i)));
  for (NodeId leaf : leaves) add_hosts(t, leaf, p.hosts_per_leaf, 0, p.link);
  // Inside a group: every leaf to every spine, so a spine's down ports go by leaf.
  for (uint32_t group = 0; group < g; ++group) {
    for (uint32_t i = 0; i < l; ++i) {
      for (uint32_t j = 0; j < s; ++j) {
        t.add_link(leaves[group * l + i], spines[group * s + j], p.link.rate_bps, p.link.delay_ns);
      }
    }
  }
  // Global port k of a group is port k % h of its spine k / h; each link once, from its lower
  // end.
  for (uint32_t group = 0; group < g; ++group) {
    for (uint32_t k = 0; k < per_group; ++k) {
      const GlobalPort far = palm_tree_peer({group, k}, g, static_cast<uint32_t>(per_group));
      if (far.group < group) continue;
      t.add_link(spines[group * s + k / h], spines[far.group * s + far.index / h], p.link.rate_bps,
                 p.link.delay_ns);
    }
  }
  return t;
}

}  // namespace spraylab::topo

// Dragonfly (Kim, Dally, Scott and Abts, ISCA 2008), as the MRLS paper compares it (§5, §6.3:
// DF(32, 16512) with p = 8, a = 16, h = 8, 129 groups) and CAMINOS builds it: every router has
// hosts, its group is a complete graph, and the groups are joined by the palm-tree arrangement.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topo/generator_steps.h"
#include "topo/generators.h"
#include "topo/palm_tree.h"

namespace spraylab::topo {

Topology dragonfly(const DragonflyParams& p) {
  using namespace generator_steps;
  const uint32_t a = p.routers_per_group, h = p.global_links_per_router;
  if (p.hosts_per_router == 0 || a == 0 || h == 0) {
    throw TopologyError(fmt::format(
        "dragonfly: hosts_per_router (p), routers_per_group (a) and global_links_per_router (h) "
        "must all be at least 1, got p = {}, a = {}, h = {}",
        p.hosts_per_router, a, h));
  }
  check_size("dragonfly", dragonfly_size(p.hosts_per_router, a, h, p.groups));
  const uint64_t per_group = uint64_t{a} * h;
  const uint32_t g = palm_tree_groups("dragonfly", p.groups, per_group, "a·h");

  Topology t;
  t.kind = Kind::kDragonfly;
  std::vector<NodeId> routers;  // group-major: router r of group G is routers[G·a + r]
  for (uint32_t i = 0; i < g * a; ++i) routers.push_back(t.add_switch(0, i, name("router", i)));
  for (NodeId r : routers) add_hosts(t, r, p.hosts_per_router, 0, p.link);
  // Local links: a complete graph per group, so each router's local ports go by peer.
  for (uint32_t group = 0; group < g; ++group) {
    for (uint32_t i = 0; i < a; ++i) {
      for (uint32_t j = i + 1; j < a; ++j) {
        t.add_link(routers[group * a + i], routers[group * a + j], p.link.rate_bps,
                   p.link.delay_ns);
      }
    }
  }
  // Global links: global port k of a group is port k % h of its router k / h; each link once,
  // from its lower end.
  for (uint32_t group = 0; group < g; ++group) {
    for (uint32_t k = 0; k < per_group; ++k) {
      const GlobalPort far = palm_tree_peer({group, k}, g, static_cast<uint32_t>(per_group));
      if (far.group < group) continue;  // never equal: the offset is 1 .. g − 1
      t.add_link(routers[group * a + k / h], routers[far.group * a + far.index / h],
                 p.link.rate_bps, p.link.delay_ns);
    }
  }
  return t;
}

}  // namespace spraylab::topo

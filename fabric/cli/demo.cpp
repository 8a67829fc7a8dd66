#include "fabric/cli/demo.h"

#include <fmt/format.h>

#include "fabric/cli/topo_cli.h"
#include "topo/generators.h"

namespace spraylab::fabric {

// The two fabric families the papers argue about, at the Ofan paper's size: a 432-host 3-level
// fat tree (k = 12) and a random leaf-spine with the same hosts and radix, as topologies. (The
// quick start's fabric demo is `make demo`, which runs `spraylab run`: docs/runner.md.)
int run_demo() {
  fmt::print("spraylab demo: a 432-host fat tree against an MRLS of the same size and radix\n\n");
  topo::Topology ft = topo::fat_tree({.k = 12, .levels = 3, .link = {}});
  topo::MrlsParams mp;
  mp.leaves = 72;
  mp.uplinks = 6;
  mp.downlinks = 6;
  mp.seed = 1;
  uint32_t tries = 0;
  topo::Topology mr = topo::mrls(mp, &tries);
  topo::Routing ft_routes(ft), mr_routes(mr);
  topo::Stats a = topo::compute_stats(ft_routes), b = topo::compute_stats(mr_routes);
  print_stats_table({a, b}, {"fat-tree k=12", "mrls 72x(6+6)"});
  fmt::print("\nchecks: fat tree {} and {} hosts, MRLS {}, {} corners (draw {} of seed 1)\n",
             ft_routes.connected() ? "connected" : "DISCONNECTED", a.hosts,
             mr_routes.connected() ? "connected" : "DISCONNECTED", b.corners, tries);
  fmt::print(
      "The MRLS reaches every leaf in at most {} hops with {:.2f} links per host where the "
      "fat tree needs {:.2f}.\n",
      b.diameter, b.cost_links_per_host, a.cost_links_per_host);
  fmt::print("Next: spraylab topo stats mrls --help, docs/topology.md\n");
  return a.connected && b.connected && b.corners == 0 ? 0 : 1;
}

}  // namespace spraylab::fabric

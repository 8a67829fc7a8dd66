#include <gtest/gtest.h>

#include <sstream>

#include "conf/loader.h"
#include "conf/topology_size.h"
#include "topo/build.h"
#include "topo/generators.h"

namespace spraylab::topo {
namespace {

// (node name, port) pairs of every link, in order: what must survive a round trip.
std::vector<std::tuple<std::string, PortId, std::string, PortId, double, double>> links_of(
    const Topology& t) {
  std::vector<std::tuple<std::string, PortId, std::string, PortId, double, double>> out;
  for (const Link& l : t.links()) {
    out.emplace_back(t.node(l.a.node).name, l.a.port, t.node(l.b.node).name, l.b.port, l.rate_bps,
                     l.delay_ns);
  }
  return out;
}

TEST(TopologyFile, WrittenTopologyReadsBackWithTheSamePorts) {
  MrlsParams p;
  p.leaves = 24;
  p.uplinks = 4;
  p.downlinks = 4;
  p.seed = 3;
  p.link = {400e9, 750};
  Topology t = mrls(p);
  std::ostringstream yaml;
  write_yaml(t, yaml, "test");
  conf::Experiment e = conf::load_experiment_string(yaml.str(), "roundtrip.yaml");
  Topology back = build(e.topology, e.links);
  EXPECT_EQ(back.kind, Kind::kExplicit);
  EXPECT_EQ(back.switches().size(), t.switches().size());
  EXPECT_EQ(back.hosts().size(), t.hosts().size());
  EXPECT_EQ(links_of(back), links_of(t));
}

TEST(TopologyFile, ConfiguredGeneratorIsBuilt) {
  conf::Experiment e = conf::load_experiment_string(
      "topology: {generator: fat-tree, k: 4, levels: 3}\nlinks: {rate: 800Gbps, delay: 1us}\n",
      "ft.yaml");
  Topology t = build(e.topology, e.links);
  EXPECT_EQ(t.hosts().size(), 16u);
  EXPECT_DOUBLE_EQ(t.links().front().rate_bps, 800e9);
  EXPECT_DOUBLE_EQ(t.links().front().delay_ns, 1000);
}

// The loader holds workload keys to the host count it computes from a generator's parameters
// (conf/workload_ranks.h): that count must be the built topology's, or a valid file would be
// refused (or a wrong one let through). The size limits (topo/size_limit.h) count switches and
// links the same way. One topology of every generator and shape.
TEST(TopologyFile, SizeFromTheParametersIsTheBuiltOne) {
  for (const char* topology : {
           "{generator: fat-tree, k: 4}",
           "{generator: fat-tree, k: 6, levels: 2}",
           "{generator: fat-tree, k: 6, levels: 3}",
           "{generator: fat-tree, k: 4, levels: 4}",
           "{generator: fat-tree, k: 4, levels: 4, pods: 2}",
           "{generator: leaf-spine, leaves: 3, spines: 2, hosts_per_leaf: 5}",
           "{generator: mrls, leaves: 6, uplinks: 2, downlinks: 2, max_tries: 1000}",
           "{generator: dragonfly, hosts_per_router: 2, routers_per_group: 4, "
           "global_links_per_router: 2}",
           "{generator: dragonfly, hosts_per_router: 1, routers_per_group: 4, "
           "global_links_per_router: 2, groups: 5}",
           "{generator: dragonfly-plus, leaves_per_group: 2, spines_per_group: 2, "
           "hosts_per_leaf: 3, global_links_per_spine: 1}",
           "{generator: oft, q: 3, hosts_per_leaf: 2}",
       }) {
    const conf::Experiment e =
        conf::load_experiment_string(std::string("topology: ") + topology + "\n", "t.yaml");
    const auto size = conf::generated_size(e.topology);
    ASSERT_TRUE(size.has_value()) << topology;
    const Topology t = build(e.topology, e.links);
    EXPECT_EQ(size->hosts, t.hosts().size()) << topology;
    EXPECT_EQ(size->switches, t.switches().size()) << topology;
    EXPECT_EQ(size->links, t.links().size()) << topology;
  }
}

// A node's name finds it (Topology::find: a switch's tables, metrics, results): a generator that
// names two nodes alike must fail at the build, not hand one of them the other's routes.
TEST(Topology, TwoNodesOfOneNameAreRefused) {
  Topology t;
  t.add_switch(0, 0, "agg28");
  EXPECT_THROW(t.add_switch(2, 8, "agg28"), std::invalid_argument);
  t.add_host("h0");
  EXPECT_THROW(t.add_host("h0"), std::invalid_argument);
  EXPECT_THROW(t.add_host("agg28"), std::invalid_argument);
  EXPECT_EQ(t.find("agg28"), NodeId{0});
}

}  // namespace
}  // namespace spraylab::topo

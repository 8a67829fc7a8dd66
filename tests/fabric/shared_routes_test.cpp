// A fabric's switches share one route table (switch/dataplane/route_lookup.h): each must get the
// answers a table of its own would give, for every address.
#include <gtest/gtest.h>
#include <rte_lcore.h>

#include <memory>
#include <random>

#include "switch/dataplane/route_lookup.h"
#include "switch/dataplane/switch_tables.h"
#include "tests/fabric/fabric_test_util.h"
#include "topo/build.h"

namespace spraylab::dataplane {
namespace {

// A fabric's switch tables, built as the fabric builds them, and the union of their routes'
// prefixes (what the shared table is made of).
struct FabricTables {
  explicit FabricTables(const std::string& yaml)
      : e(fabric::testing::experiment(yaml)), t(topo::build(e.topology, e.links)), r(t), plan(r) {
    for (topo::NodeId n : t.switches()) {
      tables.push_back(build_switch_tables(e, r, plan, t.node(n).name));
      for (const auto& route : tables.back().routes) routes.push_back(route.prefix);
    }
  }
  const conf::Experiment e;
  const topo::Topology t;
  const topo::Routing r;
  const topo::AddressPlan plan;
  std::vector<SwitchTables> tables;
  std::vector<topo::Prefix> routes;
};

void expect_same_answers(const std::string& yaml) {
  const FabricTables f(yaml);
  const topo::Topology& t = f.t;
  const topo::AddressPlan& plan = f.plan;
  const std::vector<SwitchTables>& tables = f.tables;
  std::vector<topo::Prefix> all = f.routes;
  for (const SwitchTables& st : tables) {
    for (const auto& l : *st.leaf_prefixes) all.push_back(l.prefix);
  }
  auto shared = std::make_shared<const SharedRoutes>("test_shared", all, 0);
  // Every host, every /24 and /16 edge, and random addresses in and out of the plan.
  std::vector<uint32_t> ips;
  for (topo::NodeId h : t.hosts()) {
    const uint32_t ip = plan.host_ip(h);
    for (uint32_t v : {ip, ip + 1, ip | 0xff, ip & 0xffffff00u, ip | 0xffff, ip & 0xffff0000u}) {
      ips.push_back(v);
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) ips.push_back(0x0a000000u | (rng() & 0x00ffffffu));
  for (int i = 0; i < 200; ++i) ips.push_back(static_cast<uint32_t>(rng()));
  int n = 0;
  for (const SwitchTables& st : tables) {
    std::vector<topo::Prefix> own;
    for (const auto& route : st.routes) own.push_back(route.prefix);
    const RouteLookup alone("test_own" + std::to_string(n++), own, 0);
    const RouteLookup via(shared, own);
    std::vector<uint32_t> a(ips.size()), b(ips.size());
    for (size_t i = 0; i < ips.size(); i += 32) {
      const auto k = static_cast<unsigned>(std::min<size_t>(32, ips.size() - i));
      alone.lookup_bulk(ips.data() + i, a.data() + i, k);
      via.lookup_bulk(ips.data() + i, b.data() + i, k);
    }
    for (size_t i = 0; i < ips.size(); ++i) {
      ASSERT_EQ(a[i], b[i]) << st.name << " " << topo::ip_to_string(ips[i]);
      ASSERT_EQ(alone.lookup(ips[i]), via.lookup(ips[i])) << st.name;
    }
    // The source-leaf table (Polarized) too.
    std::vector<topo::Prefix> leaves;
    for (const auto& l : *st.leaf_prefixes) leaves.push_back(l.prefix);
    const RouteLookup leaves_alone("test_leaves" + std::to_string(n), leaves, 0);
    const RouteLookup leaves_via(shared, leaves);
    for (uint32_t ip : ips) {
      ASSERT_EQ(leaves_alone.lookup(ip), leaves_via.lookup(ip))
          << st.name << " source leaf of " << topo::ip_to_string(ip);
    }
  }
}

TEST(SharedRoutes, AnswerAsEachSwitchsOwnTable) {
  expect_same_answers("topology: {generator: fat-tree, k: 4, levels: 3}\n");
  expect_same_answers("topology: {generator: fat-tree, k: 4, levels: 2}\n");
  expect_same_answers(
      "topology: {generator: leaf-spine, leaves: 4, spines: 2, hosts_per_leaf: 3}\n");
  expect_same_answers(
      "topology: {generator: mrls, leaves: 10, uplinks: 3, downlinks: 2}\n"
      "load_balancer: {algorithm: polarized}\n");
}

// Issue 40 (loc40): the remap is one merge walk over the sorted shared and local prefixes. Any
// local list, not only a fabric's: nested prefixes several deep, siblings, one prefix given
// twice (the later wins, as in a table of its own), in no order, against a shared table with
// prefixes no switch holds.
TEST(SharedRoutes, AnswerAsOwnTableForNestedRepeatedUnorderedPrefixes) {
  std::mt19937 rng(11);
  const uint8_t lens[] = {8, 12, 16, 20, 24, 28, 30, 32};
  auto random_prefix = [&] {
    const uint8_t len = lens[rng() % std::size(lens)];
    // Few distinct bits, so that prefixes nest and repeat.
    const uint32_t addr = 0x0a000000u | ((rng() & 0x3u) << 16) | ((rng() & 0x3u) << 8) |
                          (rng() & 0x7u);
    return topo::Prefix{addr, len};
  };
  for (int round = 0; round < 40; ++round) {
    std::vector<topo::Prefix> own;
    for (int i = 0; i < 12; ++i) own.push_back(random_prefix());
    if (round % 2 == 0) own.push_back(own[rng() % own.size()]);  // the same prefix again
    std::vector<topo::Prefix> all = own;
    for (int i = 0; i < 12; ++i) all.push_back(random_prefix());  // held by no switch
    auto shared = std::make_shared<const SharedRoutes>("test_nested" + std::to_string(round),
                                                       all, 0);
    const RouteLookup alone("test_nested_own" + std::to_string(round), own, 0);
    const RouteLookup via(shared, own);
    for (const topo::Prefix& p : all) {
      for (uint32_t ip : {p.addr, p.addr + 1, p.addr | 0xffu, p.addr | 0xfffu, p.addr - 1}) {
        ASSERT_EQ(alone.lookup(ip), via.lookup(ip))
            << "round " << round << " " << topo::ip_to_string(ip);
      }
    }
  }
}

TEST(SharedRoutes, RefuseARouteTheyDoNotHold) {
  auto shared = std::make_shared<const SharedRoutes>(
      "test_refuse", std::vector<topo::Prefix>{{0x0a000000u, 16}}, 0);
  EXPECT_THROW(RouteLookup(shared, {{0x0a010000u, 16}}), std::invalid_argument);
  EXPECT_NO_THROW(RouteLookup(shared, {{0x0a000000u, 16}}));
}

// Issue 40: a switch's remap is 4 B for every prefix of the fabric; switches whose remaps are
// equal (every spine of an MRLS, every source-leaf table) share one copy, and a switch whose
// routes differ keeps its own.
TEST(SharedRoutes, KeepOneCopyOfEqualRemaps) {
  const topo::Prefix wide{0x0a000000u, 16}, a{0x0a000100u, 24}, b{0x0a000200u, 24},
      host{0x0a000105u, 32};
  auto shared = std::make_shared<const SharedRoutes>(
      "test_intern", std::vector<topo::Prefix>{wide, a, b, host}, 0);
  const RouteLookup first(shared, {a, b});
  const RouteLookup second(shared, {a, b});
  const RouteLookup swapped(shared, {b, a});
  EXPECT_EQ(first.remap_data(), second.remap_data()) << "equal remaps, two copies";
  EXPECT_NE(first.remap_data(), swapped.remap_data());
  EXPECT_EQ(first.lookup(0x0a000105u), 0u);
  EXPECT_EQ(swapped.lookup(0x0a000105u), 1u);
  EXPECT_EQ(second.lookup(0x0a000203u), 1u);
  EXPECT_EQ(swapped.lookup(0x0a000203u), 0u);
  EXPECT_EQ(first.lookup(0x0a000303u), RouteLookup::kMiss);
}

// Issue 40: a switch's remap is one entry a class of the shared table (a leaf's /24 with its
// hosts' /32s) and the classes it spells out, its own leaf's only at a leaf switch: O(leaves) a
// switch, not O(prefixes of the fabric); the answers stay each switch's own (above).
TEST(SharedRoutes, ARemapIsAnEntryALeafAndTheOwnHosts) {
  const FabricTables f(
      "topology: {generator: mrls, leaves: 10, uplinks: 3, downlinks: 2}\n"
      "load_balancer: {algorithm: polarized}\n");
  const std::vector<SwitchTables>& tables = f.tables;
  auto shared = std::make_shared<const SharedRoutes>("test_classes", f.routes, 0);
  ASSERT_EQ(shared->prefixes().size(), 10u + 10u * 2u);  // every leaf's /24, every host's /32
  EXPECT_EQ(shared->classes(), 10u);
  for (const SwitchTables& st : tables) {
    std::vector<topo::Prefix> own;
    for (const auto& route : st.routes) own.push_back(route.prefix);
    const RouteLookup via(shared, own);
    // A leaf spells out its own /24 and its 2 hosts; a spine spells out nothing.
    EXPECT_EQ(via.remap_entries(), st.is_leaf ? 10u + 3u : 10u) << st.name;
    for (const auto& route : st.routes) {
      ASSERT_EQ(via.lookup(route.prefix.addr | (route.prefix.len == 32 ? 0 : 7)),
                static_cast<uint32_t>(&route - st.routes.data()))
          << st.name;
    }
  }
}

}  // namespace
}  // namespace spraylab::dataplane

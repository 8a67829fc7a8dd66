// The switch's tables as the balancers read them: SwitchRuntime gives each Ofan key the candidates
// of the first route with that key, so every route that balances must share its key only with
// routes of the same candidates.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "conf/loader.h"
#include "switch/dataplane/switch_tables.h"
#include "topo/build.h"

namespace spraylab::dataplane {
namespace {

void expect_one_group_per_key(const std::string& yaml) {
  const conf::Experiment e = conf::load_experiment_string(yaml, "test.yaml");
  const topo::Topology t = topo::build(e.topology, e.links);
  const topo::Routing r(t);
  const topo::AddressPlan plan(r);
  for (topo::NodeId n : t.switches()) {
    const SwitchTables st = build_switch_tables(e, r, plan, t.node(n).name);
    std::vector<int64_t> first_group(st.num_dests, -1);
    for (const RouteEntry& re : st.routes) {
      if (re.local || re.dest >= st.num_dests) continue;
      if (first_group[re.dest] < 0) first_group[re.dest] = re.group;
    }
    for (const RouteEntry& re : st.routes) {
      if (re.local || st.groups[re.group].size() < 2) continue;
      ASSERT_LT(re.dest, st.num_dests) << st.name;
      EXPECT_EQ(st.groups[first_group[re.dest]], st.groups[re.group])
          << st.name << ": key " << re.dest << " of " << topo::ip_to_string(re.prefix.addr) << "/"
          << int(re.prefix.len) << " would balance over another route's ports";
    }
  }
}

// --switch with a typo, or a host's name: the nearest switch, or the names' range.
TEST(SwitchTables, AnUnknownSwitchNameSaysWhatIsThere) {
  const conf::Experiment e =
      conf::load_experiment_string("topology: {generator: fat-tree, k: 4}\n", "test.yaml");
  const topo::Topology t = topo::build(e.topology, e.links);
  const topo::Routing r(t);
  const topo::AddressPlan plan(r);
  const auto message = [&](const std::string& name) {
    try {
      build_switch_tables(e, r, plan, name);
    } catch (const std::invalid_argument& err) {
      return std::string(err.what());
    }
    return std::string("built");
  };
  EXPECT_EQ(message("lef0"), "no switch named 'lef0' in the topology; did you mean 'leaf0'?");
  EXPECT_EQ(message("h0"),
            "no switch named 'h0' in the topology (it is a host); its 6 switches are named "
            "leaf0 .. spine1");
}

TEST(SwitchTables, EveryOfanKeyHasOneCandidateSet) {
  // 3-level fat trees key aggregation switches by pod: their own pod's leaves must not take a
  // pod's key (they did: pod 1's traffic then went down to leaf 1 of the pod, in a loop).
  expect_one_group_per_key("topology: {generator: fat-tree, k: 4, levels: 3}\n");
  expect_one_group_per_key("topology: {generator: fat-tree, k: 6, levels: 3}\n");
  expect_one_group_per_key("topology: {generator: fat-tree, k: 4, levels: 2}\n");
  expect_one_group_per_key(
      "topology: {generator: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 2}\n");
}

// Follows every choice the switches' tables offer a frame from each leaf to one host of every other
// leaf (LPM on the host's address, then each candidate port), and expects every path to reach the
// host in the fewest switch hops: a minimal routing's tables allow no detour, and on a lossless
// fabric a detour (down then up again) is what closes a cycle of waits. Returns the paths walked.
uint64_t expect_only_minimal_paths(const std::string& yaml) {
  const conf::Experiment e = conf::load_experiment_string(yaml, "test.yaml");
  const topo::Topology t = topo::build(e.topology, e.links);
  const topo::Routing r(t);
  const topo::AddressPlan plan(r);
  std::map<topo::NodeId, SwitchTables> tables;
  for (topo::NodeId n : t.switches()) {
    tables.emplace(n, build_switch_tables(e, r, plan, t.node(n).name));
  }
  // The route switch `n` takes for address `ip`: the longest matching prefix.
  auto route = [&](topo::NodeId n, uint32_t ip) -> const RouteEntry* {
    const SwitchTables& st = tables.at(n);
    const RouteEntry* best = nullptr;
    for (const RouteEntry& re : st.routes) {
      const uint32_t mask = re.prefix.len == 0 ? 0 : ~uint32_t{0} << (32 - re.prefix.len);
      const bool longer = best == nullptr || re.prefix.len > best->prefix.len;
      if ((ip & mask) == (re.prefix.addr & mask) && longer) {
        best = &re;
      }
    }
    return best;
  };
  std::map<uint32_t, topo::NodeId> host_of_leaf;
  for (topo::NodeId h : t.hosts()) host_of_leaf.emplace(plan.leaf_of_host(h), h);
  uint64_t paths = 0;
  for (const auto& [dst_leaf, host] : host_of_leaf) {
    const uint32_t ip = plan.host_ip(host);
    for (uint32_t src : r.leaves()) {
      const uint32_t want = r.distance(src, dst_leaf);  // switch-to-switch hops
      // Depth-first over (switch, hops so far); every branch must end at the host in `want`.
      std::vector<std::pair<topo::NodeId, uint32_t>> todo{{r.graph().node_of(src), 0}};
      while (!todo.empty()) {
        const auto [n, hops] = todo.back();
        todo.pop_back();
        const RouteEntry* re = route(n, ip);
        if (re == nullptr || tables.at(n).groups[re->group].empty()) {
          ADD_FAILURE() << t.node(n).name << " has no route to " << t.node(host).name;
          return paths;
        }
        for (topo::PortId p : tables.at(n).groups[re->group]) {
          const topo::NodeId next = t.peer(n, p).node;
          if (t.node(next).kind == topo::NodeKind::kHost) {
            ++paths;
            if (next != host || hops != want) {
              ADD_FAILURE() << "from leaf " << t.node(r.graph().node_of(src)).name << " to "
                            << t.node(host).name << ": " << hops << " hops at " << t.node(n).name
                            << " (fewest " << want << "), out to " << t.node(next).name;
              return paths;
            }
            continue;
          }
          if (hops + 1 > want) {
            ADD_FAILURE() << "from leaf " << t.node(r.graph().node_of(src)).name << " to "
                          << t.node(host).name << ": " << t.node(n).name << " offers port " << p
                          << " to " << t.node(next).name << ", hop " << hops + 1 << " of at most "
                          << want << " (route " << topo::ip_to_string(re->prefix.addr) << "/"
                          << int(re->prefix.len) << " for " << topo::ip_to_string(ip) << ")";
            return paths;
          }
          todo.push_back({next, hops + 1});
        }
      }
    }
  }
  return paths;
}

TEST(SwitchTables, EveryPathTheTablesAllowIsMinimal) {
  // The 4-level fat tree of mrls-100k (whole and depopulated) at the smallest radixes, the 3-level
  // tree (aggregation switches keyed by pod), a leaf-spine and the 2-level tree.
  for (const char* topo :
       {"{generator: fat-tree, k: 4, levels: 4}", "{generator: fat-tree, k: 6, levels: 4}",
        "{generator: fat-tree, k: 6, levels: 4, pods: 3}", "{generator: fat-tree, k: 4, levels: 3}",
        "{generator: fat-tree, k: 6, levels: 3}", "{generator: fat-tree, k: 4, levels: 2}",
        "{generator: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 2}"}) {
    SCOPED_TRACE(topo);
    EXPECT_GT(expect_only_minimal_paths(std::string("topology: ") + topo + "\n"), 0u);
  }
}

}  // namespace
}  // namespace spraylab::dataplane

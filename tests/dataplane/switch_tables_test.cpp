// The switch's tables as the balancers read them: SwitchRuntime gives each Ofan key the candidates
// of the first route with that key, so every route that balances must share its key only with
// routes of the same candidates.
#include <gtest/gtest.h>

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

TEST(SwitchTables, EveryOfanKeyHasOneCandidateSet) {
  // 3-level fat trees key aggregation switches by pod: their own pod's leaves must not take a
  // pod's key (they did: pod 1's traffic then went down to leaf 1 of the pod, in a loop).
  expect_one_group_per_key("topology: {generator: fat-tree, k: 4, levels: 3}\n");
  expect_one_group_per_key("topology: {generator: fat-tree, k: 6, levels: 3}\n");
  expect_one_group_per_key("topology: {generator: fat-tree, k: 4, levels: 2}\n");
  expect_one_group_per_key(
      "topology: {generator: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 2}\n");
}

}  // namespace
}  // namespace spraylab::dataplane

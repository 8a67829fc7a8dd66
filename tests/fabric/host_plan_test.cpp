// The generator options an experiment implies (gen::options_from_experiment): the one mapping the
// fabric runs as it is and spraylab-gen's command line starts from.
#include <gtest/gtest.h>

#include "conf/loader.h"
#include "topo/build.h"
#include "trafficgen/host_plan.h"

namespace spraylab::gen {
namespace {

TEST(HostPlan, ExperimentOptionsAreEveryHostPacedAtTheLoadWithTheWorkloadsSettings) {
  const conf::Experiment exp = conf::load_experiment_string(
      "seed: 9\n"
      "topology: {generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2}\n"
      "links: {rate: 40Gbps}\n"
      "workload: {type: permutation, load: 0.25, ack_every: 4, entropy: packet,\n"
      "           retransmit_timeout: 3ms}\n",
      "plan.yaml");
  const topo::Topology t = topo::build(exp.topology, exp.links);
  const HostPlanOptions o = options_from_experiment(exp, t);
  EXPECT_EQ(o.hosts, (std::vector<std::string>{"h0", "h1", "h2", "h3"}));
  EXPECT_TRUE(o.port_map.empty());  // host i on port i
  EXPECT_DOUBLE_EQ(o.rate_bps, 10e9);
  EXPECT_EQ(o.ack_every, 4u);
  EXPECT_EQ(o.entropy, EntropyMode::kPacket);
  EXPECT_EQ(o.retransmit_timeout_ns, 3'000'000u);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.loss, 0);
  EXPECT_EQ(o.payload_bytes, 0u);  // the workload's
  EXPECT_FALSE(o.back_to_back);

  const RunPlan plan = make_run_plan(exp, o);
  ASSERT_EQ(plan.hosts.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(plan.hosts[i].rank, i);
    EXPECT_EQ(plan.hosts[i].port, i);
    EXPECT_EQ(plan.local_of_rank[i], static_cast<int32_t>(i));
  }
  EXPECT_EQ(plan.ports_needed, 4);
  EXPECT_DOUBLE_EQ(plan.link_rate_bps, 40e9);
  EXPECT_DOUBLE_EQ(plan.path.rate_bps, 10e9);  // the bound uses the pacing rate
}

}  // namespace
}  // namespace spraylab::gen

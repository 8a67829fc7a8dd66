// The in-process fabric in wall-clock time: the same nodes and links on DPDK lcores.
#include <gtest/gtest.h>

#include "fabric/fabric.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

FabricResult run_inprocess(const conf::Experiment& e, uint32_t lcores, double rate_bps) {
  FabricOptions o;
  o.mode = Mode::kInProcess;
  o.lcores = lcores;
  o.inprocess_rate_bps = rate_bps;
  o.max_wall_seconds = 120;  // a hang guard only: a loaded machine runs slower
  return run_fabric(e, o);
}

// Two hosts under two leaves and one spine exchange 2 MB each: every link carries one flow (and
// the other's ACKs). Whatever the machine's speed, the flow completes, every byte arrives once,
// and the link model never lets it finish before the CCT lower bound (the message at line rate
// plus one round trip). How close to the bound it comes is a property of the machine, not of the
// code: bench/inprocess-utilisation measures it (docs/BENCHMARKS.md).
TEST(InProcessFabric, AnUncontestedFlowCompletesAndNeverBeatsTheLink) {
  const conf::Experiment e = experiment(R"(
seed: 5
topology: {generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 1}
links: {rate: 1Gbps, delay: 500ns}
load_balancer: {algorithm: ofan}
workload: {type: permutation, message_size: 2097152, payload: 4096}
)");
  const FabricResult r = run_inprocess(e, 1, kInProcessRateBps);
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  EXPECT_EQ(r.time_scale, 1.0);
  const auto& c = r.generator["collectives"][0];
  EXPECT_GE(c["cct_ns"].get<double>() * (1 + 1e-3), c["bound_ns"].get<double>())
      << "faster than the link: the link model leaks";
  ASSERT_EQ(r.generator["messages"].size(), 2u);
  for (const auto& m : r.generator["messages"]) {
    EXPECT_TRUE(m["completed"].get<bool>()) << m.dump();
    EXPECT_EQ(m["bytes"].get<uint64_t>(), 2097152u) << m.dump();
  }
  EXPECT_EQ(r.generator["goodput"]["acked_bytes"].get<uint64_t>(), 2u * 2097152u);
  EXPECT_LE(r.generator["reordering"]["duplicates"].get<uint64_t>(),
            r.generator["loss"]["retransmits"].get<uint64_t>())
      << "a duplicate arrived that no retransmission sent";
}

TEST(InProcessFabric, DeliversEveryMessageOfAFatTreePermutation) {
  const FabricResult r = run_inprocess(experiment(testing::fat_tree_16("ofan")), 0, 0.5e9);
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  EXPECT_EQ(r.mode, Mode::kInProcess);
  // 100 Gb/s written, 0.5 Gb/s run: 200 times slower, delays and timeouts too.
  EXPECT_DOUBLE_EQ(r.time_scale, 200);
  EXPECT_DOUBLE_EQ(r.generator["settings"]["link_rate_bps"].get<double>(), 0.5e9);
  EXPECT_DOUBLE_EQ(r.generator["path_model"]["link_delay_ns"].get<double>(), 500 * 200);
  EXPECT_EQ(r.generator["settings"]["retransmit_timeout_ns"].get<uint64_t>(), 200'000'000u);
  for (const auto& m : r.generator["messages"]) EXPECT_TRUE(m["completed"].get<bool>());
  uint64_t tx = 0;
  for (const PortSummary& p : r.ports) tx += p.tx_packets;
  EXPECT_GT(tx, 16u * 16u);
  EXPECT_GT(r.events, 0u);
}

}  // namespace
}  // namespace spraylab::fabric

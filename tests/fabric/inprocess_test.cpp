// The in-process fabric in wall-clock time: the same nodes and links on DPDK lcores.
#include <gtest/gtest.h>

#include <cstdio>

#include "fabric/emu/run_fabric.h"
#include "fabric/run/result.h"
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

// Issue 13's conditions in the in-process mode: the same host engine with DCTCP, and a link event
// through the same control-plane calls, applied by the main lcore while the workers forward. What
// holds at any machine speed: every message completes, the event is applied and routed around,
// and nothing is sent on the dead link after it.
TEST(InProcessFabric, DctcpAndALinkFailureWithRerouting) {
  std::string yaml = testing::fat_tree_16("ecmp");
  yaml.replace(yaml.find("64KB, payload: 4096"), 19, "1MB, payload: 4096, cc: dctcp");
  // At 0 ns: applied at the main lcore's first look at the clock, long before a 1 MB message
  // (16 ms at the in-process rate) can complete.
  yaml += "events: {links: [{at: 0ns, link: [edge0, agg0], action: down}]}\n";
  const FabricResult r = run_inprocess(experiment(yaml), 0, 0.5e9);
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  for (const auto& m : r.generator["messages"]) EXPECT_TRUE(m["completed"].get<bool>());
  const auto& cc = r.generator["congestion_control"];
  EXPECT_EQ(cc["algorithm"], "dctcp");
  EXPECT_EQ(cc["flows"].get<uint64_t>(), 16u);
  ASSERT_EQ(r.link_events.size(), 1u);
  const auto& ev = r.link_events[0];
  ASSERT_FALSE(ev["applied_at_ns"].is_null());
  EXPECT_EQ(ev["routes_changed"].get<uint32_t>(), 9u);  // as in virtual time (link_events_test)
  for (const auto& dir : ev["directions"]) EXPECT_EQ(dir["sent_while_down"].get<uint64_t>(), 0u);
  uint64_t tx_on_dead = 0;
  for (const PortSummary& p : r.ports) {
    if ((p.switch_name == "edge0" && p.peer == "agg0") ||
        (p.switch_name == "agg0" && p.peer == "edge0"))
      tx_on_dead += p.tx_packets;
  }
  // Frames it carried before the main lcore applied the event (a figure: how many depends on when
  // the main lcore first looked at the clock).
  std::printf(
      "[ figures ] in-process ecmp+dctcp, edge0-agg0 down: applied at %s ns, frames on it "
      "%llu, window cuts %s, CCT %s ns\n",
      ev["applied_at_ns"].dump().c_str(), static_cast<unsigned long long>(tx_on_dead),
      cc["window_cuts"].dump().c_str(), r.generator["elapsed_ns"].dump().c_str());
}

}  // namespace
}  // namespace spraylab::fabric

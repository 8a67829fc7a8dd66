// The partitioned virtual clock (issue 40, docs/fabric.md "A parallel virtual time"): a fabric
// split by pod (3-level fat trees) or by leaf group (the rest), and runs whose results are the
// same byte for byte on any number of threads: with and without link events, on every kind of
// fabric, and with the link delays (the window) as short as a nanosecond.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fabric/emu/eal.h"
#include "fabric/emu/fabric.h"
#include "fabric/emu/run_fabric.h"
#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;
using testing::fat_tree_16;

FabricResult run_on(const conf::Experiment& e, uint32_t threads) {
  FabricOptions o;
  o.mode = Mode::kVirtual;
  o.max_wall_seconds = 120;
  o.threads = threads;
  return run_fabric(e, o);
}

// Everything a run writes that its experiment determines.
std::string results_text(const FabricResult& r) {
  std::string s = r.generator.dump() + "\n" + r.link_events.dump() + "\n";
  s += fmt::format("{} {} {} {} {}\n", r.completed, gen::to_string(r.stopped_by), r.clock_ns,
                   r.events, r.warmup_at_ns);
  for (const QueueSample& q : r.samples) {
    s += fmt::format("{},{},{},{}\n", q.t_ns, q.port_index, q.packets, q.bytes);
  }
  for (const DeliverySample& d : r.delivered) s += fmt::format("{},{}\n", d.t_ns, d.wire_bytes);
  for (const PortSummary& p : r.ports) {
    s += fmt::format("{} {} {} {} {}\n", p.switch_name, p.peer, p.max_bytes, p.tx_packets,
                     p.tx_bytes);
  }
  return s;
}

void expect_same_on_any_threads(const std::string& yaml, const std::vector<uint32_t>& threads) {
  const conf::Experiment e = experiment(yaml);
  const FabricResult one = run_on(e, 1);
  ASSERT_EQ(one.threads, 1u);
  ASSERT_GT(one.events, 0u);
  const std::string want = results_text(one);
  for (uint32_t n : threads) {
    const FabricResult r = run_on(e, n);
    EXPECT_EQ(r.threads, n);
    EXPECT_EQ(results_text(r), want) << n << " threads";
  }
}

TEST(PartitionedVirtualTime, AFatTreeGivesTheSameResultsOnAnyThreads) {
  for (const char* alg : {"ofan", "rps", "ecmp", "jsq"}) {
    SCOPED_TRACE(alg);
    expect_same_on_any_threads(fat_tree_16(alg), {2, 3, 4});
  }
}

TEST(PartitionedVirtualTime, LinkEventsGiveTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads(R"(seed: 1
topology: {generator: leaf-spine, leaves: 4, spines: 4, hosts_per_leaf: 4}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: ofan}
workload: {type: permutation, message_size: 256KB, payload: 4096}
measurement: {queue_sample: 1us}
events:
  links:
    - {at: 2us, link: [leaf1, spine2], action: rate, rate: 25Gbps}
    - {at: 5us, link: [leaf0, spine0], action: down, from: leaf0}
    - {at: 9us, link: [leaf0, spine0], action: up}
  random_link_failures: 1
  random_failures_at: 7us
)",
                             {2, 4});
}

TEST(PartitionedVirtualTime, AnMrlsGivesTheSameResultsOnAnyThreads) {
  expect_same_on_any_threads(R"(seed: 7
topology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3, max_tries: 1000}
links: {rate: 400Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: polarized, deroute_penalty: 5, queue_unit: packets}
workload: {type: all-to-all, message_size: 32KB, payload: 4096}
measurement: {queue_sample: 1us}
)",
                             {2, 5});
}

// A window of 1 ns (no delay but serialisation) and a warm-up that opens between two barriers.
TEST(PartitionedVirtualTime, ShortLinksAndAWarmupGiveTheSameResults) {
  expect_same_on_any_threads(R"(seed: 3
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 100Gbps, delay: 0ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: rps}
workload: {type: permutation, message_size: 64KB, payload: 4096}
measurement: {queue_sample: 300ns, warmup: 1us}
)",
                             {2, 4});
}

TEST(PartitionedVirtualTime, AClockLimitStopsEveryPartitioningAtTheSameEvent) {
  conf::Experiment e = experiment(fat_tree_16("ecmp"));
  std::string want;
  for (uint32_t n : {1u, 2u, 4u}) {
    FabricOptions o;
    o.max_clock_ns = 2345;
    o.threads = n;
    const FabricResult r = run_fabric(e, o);
    EXPECT_EQ(r.stopped_by, gen::StopReason::kDuration);
    if (n == 1) want = results_text(r);
    EXPECT_EQ(results_text(r), want) << n << " threads";
  }
}

TEST(Partitions, AFatTreeSplitsByPodWithTheCoresDealtOut) {
  const conf::Experiment e = experiment(fat_tree_16("ofan"));
  Fabric f(e, Mode::kVirtual, 0, std::chrono::steady_clock::time_point::max(), 2);
  ASSERT_EQ(f.partitions(), 2u);
  const topo::Topology& t = f.topology();
  uint32_t cores[2] = {0, 0};
  for (uint32_t sw = 0; sw < f.switches().size(); ++sw) {
    const topo::Node& n = t.node(t.switches()[sw]);
    if (n.level == 2) {
      ++cores[f.partition_of(sw)];
    } else {
      EXPECT_EQ(f.partition_of(sw), n.pod / 2) << n.name;
    }
  }
  EXPECT_EQ(cores[0], 2u);
  EXPECT_EQ(cores[1], 2u);
  // Only aggregation-core links cross: 16 of them, both directions.
  EXPECT_EQ(f.crossing_links().size(), 16u);
  for (const Link* l : f.crossing_links()) EXPECT_TRUE(l->crossing());
}

TEST(Partitions, NoMoreThanThePodsOrLeavesAndOneMeansNoneCross) {
  const conf::Experiment e = experiment(fat_tree_16("ofan"));
  const auto never = std::chrono::steady_clock::time_point::max();
  EXPECT_EQ(Fabric(e, Mode::kVirtual, 0, never, 64).partitions(), 4u);  // k = 4 pods
  const Fabric one(e, Mode::kVirtual, 0, never, 1);
  EXPECT_EQ(one.partitions(), 1u);
  EXPECT_TRUE(one.crossing_links().empty());
  EXPECT_EQ(one.window_ns(), 500u);
}

// A parallel virtual time's partition threads inherit the main lcore's CPUs: pinned to the first
// CPU (as the map was until session 27), both threads of --threads 2 shared it while the other
// CPU idled. Alone, the main lcore may run on every CPU the process had; with workers, each lcore
// gets one, round robin.
TEST(EalLcores, TheMainLcoreAloneRunsOnEveryUsableCpu) {
  EXPECT_EQ(lcore_map(1, {0, 1}), "0@(0,1)");
  EXPECT_EQ(lcore_map(1, {2, 5, 7}), "0@(2,5,7)");
  EXPECT_EQ(lcore_map(1, {3}), "0@(3)");
  EXPECT_EQ(lcore_map(3, {0, 1}), "0@0,1@1,2@0");
  EXPECT_EQ(lcore_map(2, {4, 6}), "0@4,1@6");
}

}  // namespace
}  // namespace spraylab::fabric

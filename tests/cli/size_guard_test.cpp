// The size guard (fabric/cli/size_guard.h; docs/runner.md, "Size and time guard"): what it counts
// on fixed topologies and workloads, and its arithmetic against a given machine's memory. No
// memory is measured here: the fit's figures are docs/runner.md's.
#include "fabric/cli/size_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "conf/loader.h"

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kGB = 1'000'000'000;

conf::Experiment example(const std::string& name) {
  return conf::load_experiment_file(std::string(SPRAYLAB_SOURCE_DIR) + "/conf/examples/" + name);
}

std::string refusal(const FabricSize& s, Mode mode, uint64_t memory) {
  try {
    check_fits(s, mode, "variant x", memory);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The MRLS paper's 100 K network (Table 2): MRLS leaves 8748, u = 24, d = 12, 5832 spines;
// Polarized, uniform at load 0.5, 2 messages of 64 KB a host (16 packets each), one lcore.
FabricSize mrls_100k() {
  FabricSize s;
  s.hosts = 104976;
  s.switches = 8748 + 5832;
  s.ports = 8748 * 36 + 5832 * 36;
  s.leaves = 8748;
  s.pairs = s.switches * s.leaves;
  const uint64_t packets = s.hosts * 2 * 16;
  s.frames = packets + packets / 4 + 4096 + 1024;
  s.frame_bytes = 336;
  s.memory_bytes = model_bytes(s, Mode::kVirtual);
  return s;
}

TEST(SizeGuard, CountsEverySwitchWithEveryLeafNotEveryNode) {
  // The demo's k = 4 fat tree: 16 hosts, 8 edge switches (the leaves), 20 switches of 4 ports.
  // Routes are per (switch, leaf) since issue 40: 160 pairs, not 20 x 36 nodes.
  const FabricSize s = estimate_size(example("demo.yaml"), Mode::kVirtual);
  EXPECT_EQ(s.hosts, 16u);
  EXPECT_EQ(s.switches, 20u);
  EXPECT_EQ(s.ports, 80u);
  EXPECT_EQ(s.leaves, 8u);
  EXPECT_EQ(s.pairs, 160u);
  EXPECT_EQ(s.memory_bytes, model_bytes(s, Mode::kVirtual));
}

TEST(SizeGuard, CountsWhatTheBalancersKeepByTheirTraits) {
  // Ofan (the demo's): next-hop groups per (switch, leaf) and port orders per (leaf, port).
  const FabricSize ofan = estimate_size(example("demo.yaml"), Mode::kVirtual);
  EXPECT_EQ(ofan.group_pairs, 160u);
  EXPECT_EQ(ofan.order_leaf_ports, 8u * 80);
  EXPECT_EQ(ofan.path_leaf_ports, 0u);
  // Polarized's groups hold every fabric port: neither.
  const FabricSize polarized = estimate_size(example("mrls-polarized.yaml"), Mode::kVirtual);
  EXPECT_EQ(polarized.group_pairs, 0u);
  EXPECT_EQ(polarized.order_leaf_ports, 0u);
  // A layer that runs Ofan counts for the whole fabric (an upper bound).
  conf::Experiment layered = example("mrls-polarized.yaml");
  layered.balancer.per_layer[0].algorithm = lb::Algorithm::kOfan;
  const FabricSize mixed = estimate_size(layered, Mode::kVirtual);
  EXPECT_EQ(mixed.group_pairs, mixed.pairs);
  EXPECT_EQ(mixed.order_leaf_ports, 14u * 126);
  EXPECT_GT(mixed.memory_bytes, polarized.memory_bytes);
}

TEST(SizeGuard, FramesAreTheWorkloadsPacketsAndAQuarterAsThePoolIsSized) {
  // 16 hosts send 1 MB each: 245 packets of 4096 B, a quarter more for retransmissions and the
  // pool's 4096 (fabric/emu/mbuf_pool.h). Virtual frames hold headers only: 320 B in the compact
  // pool and 16 B of the store; in-process ones the payload too.
  const conf::Experiment demo = example("demo.yaml");
  const FabricSize v = estimate_size(demo, Mode::kVirtual);
  EXPECT_EQ(v.frames, 16u * 245 * 5 / 4 + 4096 + 1024);  // and one lcore's mempool cache
  EXPECT_EQ(v.frame_bytes, 336u);
  const FabricSize p = estimate_size(demo, Mode::kInProcess, 2);
  EXPECT_EQ(p.frames, v.frames + 1024);
  EXPECT_EQ(p.frame_bytes, 4544u + 16);
  EXPECT_GT(p.memory_bytes, v.memory_bytes);
}

TEST(SizeGuard, FramesAreCappedByWhatTheFabricsQueuesHold) {
  // 42 hosts all-to-all of 256 KB (108,486 packets) on 126 ports of 800 KB: the fabric bound, each
  // queue full twice over (223 frames of 4178 B and 32) plus bursts on 84 links and 14 engines.
  const FabricSize s = estimate_size(example("mrls-polarized.yaml"), Mode::kVirtual);
  EXPECT_EQ(s.pairs, 21u * 14);
  EXPECT_EQ(s.frames, 126u * 2 * 223 + 84 * 128 + 14 * 256 + 4096 + 1024);
}

TEST(SizeGuard, NamespacedCountsAProcessPerSwitchAndLeaf) {
  const FabricSize s = estimate_size(example("demo.yaml"), Mode::kNamespaced);
  EXPECT_EQ(s.processes, 28u);
  EXPECT_EQ(s.frames, 0u);
  EXPECT_EQ(s.memory_bytes, 28 * MemoryModel::kPerProcess);
}

TEST(SizeGuard, TheMrls100KFitsOnA24GBMachineAboveItsMeasuredPeak) {
  const FabricSize s = mrls_100k();
  EXPECT_EQ(refusal(s, Mode::kVirtual, 24 * kGB), "");
  // Its measured peak (docs/runner.md: 10,468,376 KiB): the estimate is above it, by less than
  // 30 %.
  constexpr uint64_t kMeasured = 10'468'376ull * 1024;
  EXPECT_GE(s.memory_bytes, kMeasured);
  EXPECT_LE(s.memory_bytes, kMeasured * 13 / 10);
}

TEST(SizeGuard, TheMrls100KWithOfanIsRefusedOnA24GBMachine) {
  // Ofan's port orders, per (leaf, switch port): 8748 x 524880 of them, some 55 GB.
  FabricSize s = mrls_100k();
  s.group_pairs = s.pairs;
  s.order_leaf_ports = s.leaves * s.ports;
  s.memory_bytes = model_bytes(s, Mode::kVirtual);
  EXPECT_THAT(refusal(s, Mode::kVirtual, 24 * kGB), HasSubstr("more than this machine's 24.0 GB"));
}

TEST(SizeGuard, AFabricAboveTheMachinesMemoryIsRefusedWithItsEstimate) {
  const FabricSize s = mrls_100k();
  EXPECT_THAT(refusal(s, Mode::kVirtual, 8 * kGB),
              HasSubstr("variant x: 104976 hosts, 14580 switches (524880 ports), about "));
  EXPECT_THAT(refusal(s, Mode::kVirtual, 8 * kGB),
              HasSubstr(" GB: more than this machine's 8.0 GB of memory (docs/runner.md, \"Size "
                        "and time guard\")"));
  FabricSize demo = estimate_size(example("demo.yaml"), Mode::kNamespaced);
  EXPECT_THAT(refusal(demo, Mode::kNamespaced, 1 * kGB),
              HasSubstr("variant x: 16 hosts, 20 switches (80 ports), 28 processes, about 2.3 GB"));
  EXPECT_EQ(refusal(demo, Mode::kNamespaced, 0), "");  // a machine's memory unknown: no guard
}

}  // namespace
}  // namespace spraylab::fabric

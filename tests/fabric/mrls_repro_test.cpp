// Result 8 (MRLS paper §4.3, §6): Polarized routing on a small MRLS. Its routes never exceed
// 2D* − 2 switch-to-switch hops (Theorem 4.2), measured per data packet off the IP TTL the
// receiving host reads; and under a random switch permutation at full load its non-minimal
// routes accept more traffic than minimal routing (ECMP over the shortest paths). The full-size
// reproduction is conf/experiments/mrls.yaml (docs/results/notebook-before-issue-37.md, section 8).
#include <gtest/gtest.h>

#include <string>

#include "fabric/results/summary.h"
#include "tests/fabric/fabric_test_util.h"
#include "topo/build.h"
#include "topo/ksp_paths.h"
#include "topo/stats.h"

namespace spraylab::fabric {
namespace {

// 54 hosts: 27 leaves with 4 uplinks and 2 hosts each, 18 spines of radix 6 (links per host 2,
// the cost of a 3-level fat tree of the same radix: k = 6, 54 hosts). Leaf-to-leaf diameter 4:
// leaves reach each other only through several up-down passes.
std::string mrls_54(const std::string& algorithm, uint64_t seed) {
  return "seed: " + std::to_string(seed) + R"(
topology: {generator: mrls, leaves: 27, uplinks: 4, downlinks: 2, max_tries: 1000}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: )" +
         algorithm + R"(}
workload: {type: switch-permutation, message_size: 64KB, messages: 8, payload: 4096}
measurement: {duration: 50us, outputs: [summary]}
)";
}

TEST(MrlsRepro, PolarizedStaysWithinTwiceTheDiameterAndBeatsMinimalUnderSwitchPermutation) {
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE(seed);
    const conf::Experiment polarized_exp = testing::experiment(mrls_54("polarized", seed));
    const topo::Topology t = topo::build(polarized_exp.topology, polarized_exp.links);
    const topo::Stats stats = topo::compute_stats(topo::Routing(t), false);
    ASSERT_GE(stats.diameter, 4u);  // a multipass MRLS, not a leaf-spine in disguise

    const VariantSummary polarized =
        summarize(testing::run_virtual(polarized_exp), "polarized", "polarized", "virtual");
    const VariantSummary minimal =
        summarize(testing::run_virtual(testing::experiment(mrls_54("ecmp", seed))), "ecmp", "ecmp",
                  "virtual");

    ASSERT_TRUE(polarized.hops_max && minimal.hops_max);
    EXPECT_LE(*polarized.hops_max, 2 * stats.diameter_all - 2);
    EXPECT_GT(*polarized.hops_max, stats.diameter);  // it does deroute under this load
    EXPECT_EQ(*minimal.hops_max, stats.diameter);    // ECMP's routes are shortest paths
    EXPECT_EQ(polarized.hops_histogram[1], 0u);      // routes have even length
    // Seeds 1-4: Polarized accepts 0.76-0.79 of the line rate, ECMP 0.39-0.47.
    ASSERT_TRUE(polarized.accepted_throughput && minimal.accepted_throughput);
    EXPECT_GT(*polarized.accepted_throughput, *minimal.accepted_throughput * 1.3);
  }
}

// KSP routing (MRLS paper §4.3.1) on a small MRLS: every packet of a permutation arrives, none is
// dropped (no label ever names a path the switch is not on), and every data packet's route is as
// long as some path of the sets (measured off the TTL, as above): the labelled paths are followed.
TEST(MrlsRepro, KspDeliversEveryPacketOverItsPathSets) {
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE(seed);
    const conf::Experiment exp = testing::experiment("seed: " + std::to_string(seed) + R"(
topology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3, max_tries: 1000}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: ksp, k: 16}
workload: {type: permutation, message_size: 64KB, payload: 4096}
measurement: {outputs: [summary]}
)");
    const topo::Topology t = topo::build(exp.topology, exp.links);
    const topo::Routing routing(t);
    const topo::KspPaths& paths = *routing.ksp_paths(16);
    std::vector<bool> length_in_sets(64, false);
    length_in_sets[0] = true;  // two hosts of one leaf
    for (uint32_t s = 0; s < paths.leaves(); ++s) {
      for (uint32_t d = 0; d < paths.leaves(); ++d) {
        const topo::KspPaths::Set& set = paths.set(s, d);
        for (uint32_t c = 0; c < set.lengths; ++c) length_in_sets[set.len[c]] = true;
      }
    }
    const VariantSummary ksp = summarize(testing::run_virtual(exp), "ksp", "ksp", "virtual");
    EXPECT_TRUE(ksp.completed);
    EXPECT_EQ(ksp.switch_drops, 0u);
    EXPECT_EQ(ksp.retransmits, 0u);
    EXPECT_EQ(ksp.missing_at_end, 0u);
    ASSERT_TRUE(ksp.hops_max);
    uint64_t data_packets = 0;
    for (size_t k = 0; k < ksp.hops_histogram.size(); ++k) {
      if (ksp.hops_histogram[k] == 0) continue;
      data_packets += ksp.hops_histogram[k];
      EXPECT_TRUE(k < length_in_sets.size() && length_in_sets[k]) << k << " hops";
    }
    EXPECT_GE(data_packets, 42u * 16u);  // 42 hosts, 64 KB each in payloads under 4 KB
  }
}

}  // namespace
}  // namespace spraylab::fabric

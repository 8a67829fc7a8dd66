// The MRLS paper's Dragonfly routings (§5, §6.3, Table 2) on small fabrics in virtual time: a
// 5-group Dragonfly (4 routers of 2 hosts, one global link each: 40 hosts) and a 5-group
// Dragonfly+ (2 leaves of 2 hosts and 4 spines a group: 20 hosts). Every message of a
// permutation arrives with no drop under each routing, and every data packet's route (its
// switch-to-switch hops, off the IP TTL the receiving host reads) stays within the routing's
// bound. UGAL's choice is seen from the routes: under a group-to-next-group shift (every host's
// traffic on its group's one global link to the next group) it takes Valiant paths (more than 3
// hops); under light load (one packet at a time) never.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fabric/results/summary.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

const std::string kDragonfly =
    "{generator: dragonfly, hosts_per_router: 2, routers_per_group: 4, "
    "global_links_per_router: 1, groups: 5}";
const std::string kDragonflyPlus =
    "{generator: dragonfly-plus, leaves_per_group: 2, spines_per_group: 4, hosts_per_leaf: 2, "
    "global_links_per_spine: 1, groups: 5}";
constexpr uint32_t kDragonflyHosts = 40, kHostsPerGroup = 8;

std::string experiment(const std::string& topology, const std::string& algorithm,
                       const std::string& workload) {
  return R"(seed: 1
topology: )" + topology + R"(
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: )" +
         algorithm + R"(}
workload: )" + workload + R"(
measurement: {outputs: [summary]}
)";
}

VariantSummary run(const std::string& yaml, const std::string& name) {
  return summarize(testing::run_virtual(testing::experiment(yaml)), name, name, "virtual");
}

uint64_t packets_beyond(const VariantSummary& s, size_t hops) {
  uint64_t n = 0;
  for (size_t k = hops + 1; k < s.hops_histogram.size(); ++k) n += s.hops_histogram[k];
  return n;
}
uint64_t packets(const VariantSummary& s) { return packets_beyond(s, 0) + s.hops_histogram[0]; }

std::string trace(const std::string& name, const std::string& rows) {
  const std::filesystem::path p = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(p) << "start_ns,src,dst,bytes,depends_on\n" << rows;
  return p.string();
}

struct Case {
  std::string topology;
  std::string algorithm;
  size_t max_hops;  // the routing's bound (switch/lb/dragonfly_min.h, ugal.h, fpar.h)
};

TEST(DragonflyRouting, EveryRoutingDeliversAPermutationWithinItsHopBound) {
  const std::string permutation = "{type: permutation, message_size: 64KB, payload: 4096}";
  for (const Case& c : {Case{kDragonfly, "dragonfly-min", 3}, Case{kDragonfly, "ugal", 6},
                        Case{kDragonflyPlus, "dragonfly-min", 3}, Case{kDragonflyPlus, "ugal", 8},
                        Case{kDragonflyPlus, "fpar", 6}}) {
    SCOPED_TRACE(c.algorithm + " on " + c.topology);
    const VariantSummary s = run(experiment(c.topology, c.algorithm, permutation), c.algorithm);
    EXPECT_TRUE(s.completed);
    EXPECT_EQ(s.switch_drops, 0u);
    EXPECT_EQ(s.missing_at_end, 0u);
    ASSERT_TRUE(s.hops_max);
    EXPECT_LE(*s.hops_max, c.max_hops);
    EXPECT_GE(packets(s), 16u * 20u);  // at least the 20-host fabric's 64 KB each
  }
}

TEST(DragonflyRouting, UgalTakesValiantPathsUnderAGroupShiftAndMinimalOnesUnderLightLoad) {
  // Host i sends 256 KB to host i + 8: group G's 8 hosts all to group G + 1, over one link.
  std::string shift;
  for (uint32_t h = 0; h < kDragonflyHosts; ++h) {
    shift += std::to_string(0) + "," + std::to_string(h) + "," +
             std::to_string((h + kHostsPerGroup) % kDragonflyHosts) + ",262144,\n";
  }
  const std::string shift_workload =
      "{type: trace, trace_file: " + trace("dragonfly_shift.csv", shift) + ", payload: 4096}";
  const VariantSummary ugal = run(experiment(kDragonfly, "ugal", shift_workload), "ugal");
  const VariantSummary min = run(experiment(kDragonfly, "dragonfly-min", shift_workload), "min");
  EXPECT_TRUE(ugal.completed && min.completed);
  EXPECT_EQ(ugal.switch_drops, 0u);
  EXPECT_EQ(packets_beyond(min, 3), 0u);
  // Over a fifth of UGAL's data packets take the Valiant path.
  EXPECT_GT(packets_beyond(ugal, 3) * 5, packets(ugal)) << packets_beyond(ugal, 3);

  // Light uniform load: one 4 KB message at a time, 20 us apart, to hosts spread over the
  // fabric: every queue is empty when UGAL decides, and 0 < 2 x 0 + one packet.
  std::string light;
  for (uint32_t h = 0; h < kDragonflyHosts; ++h) {
    light += std::to_string(h * 20000) + "," + std::to_string(h) + "," +
             std::to_string((h * 13 + 7) % kDragonflyHosts) + ",4096,\n";
  }
  const VariantSummary quiet = run(
      experiment(kDragonfly, "ugal",
                 "{type: trace, trace_file: " + trace("dragonfly_light.csv", light) +
                     ", payload: 4096}"),
      "ugal");
  EXPECT_TRUE(quiet.completed);
  EXPECT_GE(packets(quiet), kDragonflyHosts);  // h -> 13h + 7 mod 40: a bijection, no fixed point
  EXPECT_EQ(packets_beyond(quiet, 3), 0u);
}

// The loader says where a Dragonfly routing was asked of a topology it cannot route: at the key,
// with the topology it found.
TEST(DragonflyRouting, TheLoaderRefusesThemOnOtherTopologiesAtTheKey) {
  const auto error = [](const std::string& topology, const std::string& algorithm) {
    try {
      testing::experiment(experiment(topology, algorithm, "{type: permutation}"));
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string fat_tree = "{generator: fat-tree, k: 4, levels: 2}";
  for (const std::string alg : {"dragonfly-min", "ugal"}) {
    EXPECT_NE(error(fat_tree, alg).find(
                  "test.yaml:5:28: load_balancer.algorithm: " + alg +
                  " routes a Dragonfly (topology.generator: dragonfly or dragonfly-plus), not "
                  "fat-tree"),
              std::string::npos)
        << error(fat_tree, alg);
  }
  EXPECT_NE(error(kDragonfly, "fpar").find("fpar routes a Dragonfly+ (topology.generator: "
                                           "dragonfly-plus), not dragonfly"),
            std::string::npos);
  EXPECT_EQ(error(kDragonflyPlus, "fpar"), "");
  EXPECT_EQ(error(kDragonfly, "ugal"), "");
}

}  // namespace
}  // namespace spraylab::fabric

// Every example in conf/examples/ loads, and the ones the docs describe say what they claim.
#include <gtest/gtest.h>

#include <filesystem>

#include "conf/loader.h"

namespace spraylab::conf {
namespace {

const std::filesystem::path kExamples =
    std::filesystem::path(SPRAYLAB_SOURCE_DIR) / "conf/examples";

Experiment example(const std::string& name) { return load_experiment_file(kExamples / name); }

TEST(Examples, EveryExampleLoads) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_experiment_file(entry.path()));
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(Examples, DemoIsA16HostThreeLevelFatTree) {
  const Experiment e = example("demo.yaml");
  EXPECT_EQ(e.name, "demo");
  EXPECT_EQ(e.topology.generator, topo::Kind::kFatTree);
  EXPECT_EQ(e.topology.k, 4u);
  EXPECT_EQ(e.topology.levels, 3u);
  EXPECT_EQ(e.topology.k * e.topology.k * e.topology.k / 4, 16u);
  EXPECT_DOUBLE_EQ(e.links.rate_bps, 100e9);
  EXPECT_DOUBLE_EQ(e.links.delay_ns, 500);
  EXPECT_EQ(e.buffer.bytes, 800'000u);
  EXPECT_EQ(e.balancer.fallback.algorithm, lb::Algorithm::kOfan);
  EXPECT_EQ(e.workload.type, gen::WorkloadType::kPermutation);
  EXPECT_EQ(e.workload.message_bytes, 1'000'000u);
}

TEST(Examples, FatTree432IsTheOfanPapersFabric) {
  const Experiment e = example("fat-tree-432.yaml");
  EXPECT_EQ(e.topology.generator, topo::Kind::kFatTree);
  EXPECT_EQ(e.topology.k, 12u);
  EXPECT_EQ(e.topology.levels, 3u);
  EXPECT_EQ(e.topology.k * e.topology.k * e.topology.k / 4, 432u);
  EXPECT_DOUBLE_EQ(e.links.rate_bps, 800e9);
  EXPECT_EQ(e.buffer.bytes, 800'000u);
  EXPECT_EQ(e.workload.type, gen::WorkloadType::kPermutation);
  EXPECT_EQ(e.workload.message_bytes, 1'000'000u);
  EXPECT_EQ(e.workload.payload_bytes, 4096u);
}

TEST(Examples, DragonflyHasTwoGroupsOfFourRouters) {
  const Experiment e = example("dragonfly.yaml");
  EXPECT_EQ(e.topology.generator, topo::Kind::kDragonfly);
  EXPECT_EQ(e.topology.hosts_per_router, 2u);
  EXPECT_EQ(e.topology.routers_per_group, 4u);
  EXPECT_EQ(e.topology.global_links_per_router, 1u);
  EXPECT_EQ(e.topology.groups, 2u);
  EXPECT_EQ(e.workload.type, gen::WorkloadType::kPermutation);
}

TEST(Examples, OftIsTheMrlsPapersFigure1) {
  const Experiment e = example("oft.yaml");
  EXPECT_EQ(e.topology.generator, topo::Kind::kOft);
  EXPECT_EQ(e.topology.q, 2u);  // MRLS paper Figure 1: 14 leaves with 3 uplinks
  EXPECT_EQ(e.topology.hosts_per_leaf, 3u);
  EXPECT_EQ(e.workload.type, gen::WorkloadType::kPermutation);
}

TEST(Examples, MrlsPolarizedIsTheMrlsPapersFigure2Size) {
  const Experiment e = example("mrls-polarized.yaml");
  EXPECT_EQ(e.topology.generator, topo::Kind::kMrls);
  EXPECT_EQ(e.topology.leaves, 14u);
  EXPECT_EQ(e.topology.uplinks, 3u);
  EXPECT_EQ(e.topology.downlinks, 3u);
  EXPECT_EQ(e.balancer.fallback.algorithm, lb::Algorithm::kPolarized);
}

TEST(Examples, ExplicitIsTwoLeavesAndOneSpine) {
  const Experiment e = example("explicit.yaml");
  EXPECT_EQ(e.topology.generator, topo::Kind::kExplicit);
  EXPECT_EQ(e.topology.switches.size(), 3u);
}

}  // namespace
}  // namespace spraylab::conf

// load_balancer: a default, per-layer and per-switch overrides; precedence and inheritance.
#include <gtest/gtest.h>

#include "tests/conf/load_helpers.h"

namespace spraylab::conf::testing {
namespace {

constexpr const char* kPlan = R"(topology: {generator: fat-tree, k: 8, levels: 3}
load_balancer:
  algorithm: psp
  bands: 8
  queue_unit: bytes
  layers:
    1: {algorithm: jsq}
    2: {state_update: 5us}
  switches:
    leaf3: {algorithm: ofan}
    agg0: {bands: 2}
)";

TEST(BalancerPlan, PerSwitchBeatsPerLayerBeatsDefault) {
  const BalancerPlan plan = load(kPlan).balancer;
  EXPECT_EQ(plan.for_switch("leaf0", 0).algorithm, lb::Algorithm::kPsp);
  EXPECT_EQ(plan.for_switch("agg1", 1).algorithm, lb::Algorithm::kJsq);
  EXPECT_EQ(plan.for_switch("leaf3", 0).algorithm, lb::Algorithm::kOfan);
  EXPECT_EQ(plan.for_switch("leaf3", 1).algorithm,
            lb::Algorithm::kOfan);  // the switch wins over its layer
  EXPECT_EQ(plan.for_switch("agg0", 1).bands, 2u);
}

TEST(BalancerPlan, OverrideInheritsTheTopLevelParametersItsAlgorithmTakes) {
  const BalancerPlan plan = load(kPlan).balancer;
  const BalancerSpec& core = plan.per_layer.at(2);
  EXPECT_EQ(core.algorithm, lb::Algorithm::kPsp);  // no algorithm given: the top level's
  EXPECT_EQ(core.bands, 8u);
  EXPECT_EQ(core.queue_unit, lb::QueueUnit::kBytes);
  EXPECT_EQ(core.state_update_ns, 5000u);

  const BalancerSpec& jsq = plan.per_layer.at(1);
  EXPECT_EQ(jsq.bands, 8u);  // jsq takes bands too
  EXPECT_EQ(jsq.queue_unit, lb::QueueUnit::kBytes);
}

TEST(BalancerPlan, OverrideWithAnotherAlgorithmDropsParametersThatAlgorithmDoesNotTake) {
  const BalancerSpec& ofan = load(kPlan).balancer.per_switch.at("leaf3");
  EXPECT_EQ(ofan.bands, BalancerSpec{}.bands);
  EXPECT_EQ(ofan.queue_unit, BalancerSpec{}.queue_unit);
}

TEST(BalancerPlan, PerSwitchOverridesInheritFromTheTopLevelNotFromTheirLayer) {
  const BalancerSpec& agg0 = load(kPlan).balancer.per_switch.at("agg0");
  EXPECT_EQ(agg0.algorithm, lb::Algorithm::kPsp);
  EXPECT_EQ(agg0.state_update_ns, 1000u);  // PSP's default, not its layer's 5 µs
}

TEST(BalancerPlan, AlgorithmDefaultsDifferWhereThePapersSaySo) {
  const std::string topo = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_EQ(load(topo + "load_balancer: {algorithm: ar}\n").balancer.fallback.state_update_ns,
            100u);
  EXPECT_EQ(load(topo + "load_balancer: {algorithm: psp}\n").balancer.fallback.bands, 4u);
  // PSP acts on reported state (§IV's near-real-time 1 µs); 0 written out is the live view.
  EXPECT_EQ(load(topo + "load_balancer: {algorithm: psp}\n").balancer.fallback.state_update_ns,
            1000u);
  EXPECT_EQ(load(topo + "load_balancer: {algorithm: psp, state_update: 0}\n")
                .balancer.fallback.state_update_ns,
            0u);
  EXPECT_EQ(load(topo + "load_balancer: {algorithm: jsq}\n").balancer.fallback.bands, 0u);
  const BalancerPlan layered =
      load(topo + "load_balancer: {algorithm: jsq, layers: {1: {algorithm: ar}}}\n").balancer;
  EXPECT_EQ(layered.per_layer.at(1).state_update_ns, 100u);
}

TEST(BalancerPlan, OverrideKeysAreCheckedAgainstItsOwnAlgorithm) {
  EXPECT_NE(
      load_error("topology: {generator: fat-tree, k: 4}\n"
                 "load_balancer: {algorithm: jsq, layers: {1: {algorithm: ofan, bands: 2}}}\n")
          .find("load_balancer.layers.1.bands: 'bands' is not a parameter of algorithm "
                "'ofan'"),
      std::string::npos);
}

TEST(BalancerPlan, OverridesCannotNest) {
  EXPECT_NE(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "load_balancer: {layers: {1: {layers: {}}}}\n")
                .find("load_balancer.layers.1.layers: overrides do not nest"),
            std::string::npos);
}

}  // namespace
}  // namespace spraylab::conf::testing

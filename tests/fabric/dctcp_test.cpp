// Host congestion control in virtual time (issue 13, item 1): DCTCP senders on the demo's fabric.
// ECMP's colliding flows share their link instead of overflowing the buffer and waiting for
// timeouts; spraying, which collides little, is not slowed by the window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "fabric/run/result.h"
#include "net/wire.h"
#include "tests/fabric/fabric_test_util.h"
#include "trafficgen/cct_bound.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

constexpr uint64_t kMessage = 1'000'000;
constexpr uint32_t kPayload = 4096;
constexpr double kRate = 100e9;
constexpr double kDelay = 500;
constexpr uint32_t kHops = 6;  // host, leaf, aggregation, core, aggregation, leaf, host

double cct_ns(const FabricResult& r) {
  return r.generator["collectives"][0]["cct_ns"].get<double>();
}

// Data frame bytes on the wire of one message (FCS, preamble and gap included).
double message_wire_bytes() {
  const uint64_t packets = (kMessage + kPayload - 1) / kPayload;
  const double per_frame = 14 + 20 + 8 + 40 + net::kWireOverhead;
  return static_cast<double>(kMessage) + static_cast<double>(packets) * per_frame;
}

// The most flows on one switch egress port: its bytes over one message's frames (the ACKs of a
// few flows add far less than a message, and without timeouts nothing is sent twice).
uint64_t most_flows_on_a_link(const FabricResult& r) {
  const double frames = message_wire_bytes() - static_cast<double>((kMessage + kPayload - 1) /
                                                                   kPayload * net::kWireOverhead);
  uint64_t most = 0;
  for (const PortSummary& p : r.ports) {
    most = std::max(most, static_cast<uint64_t>(static_cast<double>(p.tx_bytes) / frames));
  }
  return most;
}

// What the worst collision allows: its flows' messages one after another on the shared link, plus
// the path's latency (the last data packet there and its ACK back, store and forward).
double worst_collision_bound_ns(uint64_t flows) {
  const double t_data = gen::serialisation_ns(kPayload + 82 + net::kFcsBytes, kRate);
  const double t_ack = gen::serialisation_ns(82 + net::kFcsBytes, kRate);
  const double latency = kHops * (t_data + kDelay) + kHops * (t_ack + kDelay);
  return static_cast<double>(flows) * gen::serialisation_ns(message_wire_bytes(), kRate) + latency;
}

TEST(Dctcp, EcmpCompletesWithoutTimeoutsWithinItsWorstCollision) {
  const FabricResult r = testing::run_virtual(experiment(testing::demo_with_cc("ecmp", "dctcp")));
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  const auto& g = r.generator;
  EXPECT_EQ(g["loss"]["timeouts"].get<uint64_t>(), 0u);
  EXPECT_EQ(g["loss"]["retransmits"].get<uint64_t>(), 0u);
  const uint64_t flows = most_flows_on_a_link(r);
  ASSERT_GE(flows, 2u) << "seed 1 no longer collides: pick a seed whose ECMP does";
  const double bound = worst_collision_bound_ns(flows);
  std::printf("ecmp + dctcp: CCT %.1f us; %lu flows on the busiest link allow %.1f us\n",
              cct_ns(r) / 1e3, static_cast<unsigned long>(flows), bound / 1e3);
  EXPECT_LE(cct_ns(r), 1.15 * bound) << flows << " flows on one link";
  // The windows reacted: marks were echoed and windows cut.
  const auto& cc = g["congestion_control"];
  EXPECT_EQ(cc["algorithm"], "dctcp");
  EXPECT_EQ(cc["flows"].get<uint64_t>(), 16u);
  EXPECT_GT(cc["window_cuts"].get<uint64_t>(), 0u);
  EXPECT_GT(g["counters"]["rx_ecn_echoes"].get<uint64_t>(), 0u);
  EXPECT_GT(cc["highest_alpha"].get<double>(), 0.0);
}

TEST(Dctcp, WithoutItEcmpWaitsForTimeouts) {
  // The reference the test above improves on: the same collisions overflow the buffer.
  const FabricResult r = testing::run_virtual(experiment(testing::demo_with_cc("ecmp", "none")));
  ASSERT_TRUE(r.completed);
  EXPECT_GT(r.generator["loss"]["timeouts"].get<uint64_t>(), 0u);
  EXPECT_FALSE(r.generator.contains("congestion_control"));
}

TEST(Dctcp, SprayingStaysWithinFivePercentOfItsCctWithoutIt) {
  for (const char* alg : {"rps", "ofan"}) {
    const FabricResult with = testing::run_virtual(experiment(testing::demo_with_cc(alg, "dctcp")));
    const FabricResult without =
        testing::run_virtual(experiment(testing::demo_with_cc(alg, "none")));
    ASSERT_TRUE(with.completed) << alg;
    ASSERT_TRUE(without.completed) << alg;
    EXPECT_LE(cct_ns(with), 1.05 * cct_ns(without)) << alg;
    EXPECT_EQ(with.generator["loss"]["timeouts"].get<uint64_t>(), 0u) << alg;
  }
}

TEST(Dctcp, WindowsRecoverFromTimeoutsWhenNothingMarks) {
  // No marking and small buffers: ECMP's collisions drop, windows full of lost packets open
  // again only by the retransmission timeout, and every message still completes.
  std::string yaml = testing::demo_with_cc("ecmp", "dctcp");
  yaml.replace(yaml.find("{bytes: 800KB}"), 14, "{bytes: 100KB, ecn_threshold: 0}");
  const FabricResult r = testing::run_virtual(experiment(yaml));
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  const auto& g = r.generator;
  EXPECT_GT(g["loss"]["timeouts"].get<uint64_t>(), 0u);
  EXPECT_EQ(g["congestion_control"]["timeouts"], g["loss"]["timeouts"]);
  EXPECT_EQ(g["congestion_control"]["window_cuts"].get<uint64_t>(), 0u);  // no echo, no cut
  EXPECT_EQ(g["loss"]["missing_at_end"].get<uint64_t>(), 0u);
}

TEST(Dctcp, SameSeedGivesIdenticalResults) {
  const conf::Experiment e = experiment(testing::demo_with_cc("ecmp", "dctcp"));
  const FabricResult a = testing::run_virtual(e);
  const FabricResult b = testing::run_virtual(e);
  EXPECT_EQ(a.generator.dump(), b.generator.dump());
  EXPECT_EQ(a.clock_ns, b.clock_ns);
  EXPECT_EQ(a.events, b.events);
}

}  // namespace
}  // namespace spraylab::fabric

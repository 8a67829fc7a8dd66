// Issue 14, result 2 (Ofan §3.3, §3.5, appendices D, F.4) in small: the maximum queue against the
// message size m on a k = 4 fat tree, in virtual time. Destination-oblivious random spraying
// grows like √m; Ofan's queues do not grow, and its edge uplinks never hold more than w + 1
// packets; DRB (host-side destination rotation over ECMP `hash: digit` switches) is bounded too.
// Shapes only: slopes and bounds in packets, nothing about speed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fabric/reproduce/loglog_fit.h"
#include "fabric/results/summary.h"
#include "tests/fabric/fabric_test_util.h"
#include "trafficgen/host_plan.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

constexpr uint32_t kPayload = 4096;
constexpr uint32_t kUplinks = 2;  // w: a k = 4 fat tree's switches have k/2 up-ports
// Messages of 16 to 1024 packets: a decade and a half of m, enough for a slope, and small enough
// that the whole file runs in well under a minute on a busy 2-CPU machine.
const std::vector<uint32_t> kPackets = {16, 64, 256, 1024};
// A data frame and an ACK frame on the wire without FCS (host_plan.h): the bound of appendix F.4
// is in packets of one size class, and Ofan (like DRB) rotates data and ACKs on separate pointers,
// so an edge uplink holds at most w + 1 of each.
constexpr uint64_t kDataFrame = kPayload + gen::kFrameHeaderBytes;
constexpr uint64_t kAckFrame = gen::kFrameHeaderBytes;

// A k = 4 fat tree at full load with no congestion control and buffers that never drop (the
// paper's isolation of the load balancer, §2.2). `lb` is the load_balancer map's body. Links
// have 50 ns of delay, not the paper's 500 ns: a round trip then holds a few packets instead of
// ~70, so even m = 16 is past the ramp-up and the fit sees the steady growth (the full-size
// reproduction, conf/experiments/ofan-queue-growth.yaml, keeps 500 ns and m up to 4096).
std::string queue_growth(const std::string& lb, uint32_t packets, const std::string& entropy,
                         uint64_t seed) {
  return "seed: " + std::to_string(seed) + R"(
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 800Gbps, delay: 50ns}
buffer: {bytes: 100MB}
load_balancer: {)" +
         lb + R"(}
workload: {type: permutation, message_size: )" +
         std::to_string(packets * kPayload) + ", payload: " + std::to_string(kPayload) +
         ", load: 1.0, entropy: " + entropy + R"(, entropy_range: 4}
measurement: {queue_sample: 1us}
)";
}

struct Point {
  double m = 0;
  double max_packets = 0;
  uint64_t edge_up_packets = 0;
  uint64_t edge_up_bytes = 0;
};

// The deepest queue of the fabric against m, for one seed.
std::vector<Point> sweep(const std::string& lb, const std::string& entropy, uint64_t seed) {
  std::vector<Point> out;
  for (uint32_t m : kPackets) {
    const FabricResult r = testing::run_virtual(experiment(queue_growth(lb, m, entropy, seed)));
    EXPECT_TRUE(r.completed) << lb << " m=" << m;
    const VariantSummary s = summarize(r, "v", "a", "virtual");
    Point p;
    p.m = m;
    p.max_packets = static_cast<double>(s.queue.max_packets);
    p.edge_up_packets = s.queue_by_layer.at("edge_up").max_packets;
    p.edge_up_bytes = s.queue_by_layer.at("edge_up").max_bytes;
    out.push_back(p);
  }
  return out;
}

double slope(const std::vector<Point>& points) {
  std::vector<double> x, y;
  for (const Point& p : points) {
    x.push_back(p.m);
    y.push_back(p.max_packets);
  }
  const auto s = loglog_slope(x, y);
  EXPECT_TRUE(s.has_value());
  return s.value_or(-1);
}

std::string table(const std::vector<Point>& points) {
  std::string t;
  for (const Point& p : points) {
    t += " m=" + std::to_string(static_cast<int>(p.m)) + ": " +
         std::to_string(static_cast<int>(p.max_packets));
  }
  return t;
}

// At most w + 1 packets of each size class: in packets, and in bytes (ACKs are small).
void expect_edge_bound(const std::vector<Point>& points, const char* name) {
  for (const Point& p : points) {
    EXPECT_LE(p.edge_up_packets, 2 * (kUplinks + 1)) << name << " m=" << p.m;
    EXPECT_LE(p.edge_up_bytes, (kUplinks + 1) * (kDataFrame + kAckFrame)) << name << " m=" << p.m;
  }
}

TEST(QueueGrowth, OfanAndPofanAreFlatAndRandomSprayingGrowsLikeTheSquareRootOfM) {
  const std::vector<Point> ofan = sweep("algorithm: ofan", "flow", 1);
  const std::vector<Point> rps = sweep("algorithm: rps", "flow", 1);
  const double ofan_slope = slope(ofan);
  const double rps_slope = slope(rps);
  EXPECT_LT(ofan_slope, 0.15) << "ofan:" << table(ofan);
  EXPECT_GT(rps_slope, 0.35) << "rps:" << table(rps);
  EXPECT_LT(rps_slope, 0.65) << "rps:" << table(rps);
  // Ofan appendix F.4: an edge uplink never holds more than w + 1 packets, whatever m.
  expect_edge_bound(ofan, "ofan");
  // pOfan (appendix H): per-pipe pointers keep the same shape and the same edge bound.
  const std::vector<Point> pofan = sweep("algorithm: pofan", "flow", 1);
  EXPECT_LT(slope(pofan), 0.15) << "pofan:" << table(pofan);
  expect_edge_bound(pofan, "pofan");
}

TEST(QueueGrowth, DrbOverDigitEcmpIsBoundedWhereRandomEntropiesAreNot) {
  // entropy_range 4 = w^2: the four up-paths between pods, one per value under `hash: digit`.
  const std::vector<Point> drb = sweep("algorithm: ecmp, hash: digit", "drb", 1);
  EXPECT_LT(slope(drb), 0.15) << "drb:" << table(drb);
  // Appendix D: DRB's edge uplinks never exceed w + 1 packets either.
  expect_edge_bound(drb, "drb");

  // The same hosts with random entropies over ordinary ECMP are not bounded: DRB's bound comes
  // from the rotation, not from the digit mapping.
  const std::vector<Point> spray = sweep("algorithm: ecmp, hash: digit", "packet", 1);
  EXPECT_GT(slope(spray), 0.35) << "packet:" << table(spray);
}

TEST(QueueGrowth, EveryPortHasALayerAndTheLayersCoverTheFabric) {
  const FabricResult r =
      testing::run_virtual(experiment(queue_growth("algorithm: ofan", 256, "flow", 1)));
  const VariantSummary s = summarize(r, "v", "a", "virtual");
  std::vector<std::string> layers;
  uint64_t ports = 0;
  for (const auto& [name, q] : s.queue_by_layer) {
    layers.push_back(name);
    ports += q.ports;
  }
  EXPECT_EQ(layers,
            (std::vector<std::string>{"agg_down", "agg_up", "core_down", "edge_down", "edge_up"}));
  EXPECT_EQ(ports, s.queue.ports);
  // k = 4: 8 edge switches with 2 up- and 2 host ports, 8 aggregation switches with 2 up and 2
  // down, 4 core switches with 4 down.
  EXPECT_EQ(s.queue_by_layer.at("edge_up").ports, 16u);
  EXPECT_EQ(s.queue_by_layer.at("edge_down").ports, 16u);
  EXPECT_EQ(s.queue_by_layer.at("core_down").ports, 16u);
  // Figure 1's utilisation: a full-load permutation keeps the hosts' links busy, and the mean
  // over the run cannot exceed 1 (a window may, by part of a frame counted when it starts).
  ASSERT_TRUE(s.delivered_mean.has_value());
  EXPECT_GT(*s.delivered_mean, 0.3);
  EXPECT_LE(*s.delivered_mean, 1.0);
  EXPECT_FALSE(utilisation_windows(r).empty());
}

}  // namespace
}  // namespace spraylab::fabric

// One CCT lower bound per workload (trafficgen/bounds/, docs/workloads.md): appendix A for a
// permutation, the per-host bound for any collective, the critical path through dependencies.
#include "trafficgen/bounds/collective_bound.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "conf/experiment.h"
#include "trafficgen/workload.h"

namespace spraylab::gen {
namespace {

// 100 Gb/s (0.08 ns a byte), 0.5 µs links, 4096 B payloads, 86 B headers and ACKs (FCS in), a
// 20 B gap: the demo's wire.
const BoundWire kWire{};
constexpr double kFullSlot = (4096 + 86 + 20) * 0.08;  // 336.16 ns
constexpr double kGap = 20 * 0.08;                     // 1.6 ns
constexpr double kAck = 86 * 0.08;                     // 6.88 ns
constexpr double kP = 500;

struct Case {
  Schedule s;
  std::vector<uint32_t> hops;
  std::vector<MessageId> ids;
};

// `ranks` ranks, messages (src, dst, bytes, depends_on) all over `hops` links.
Case make_case(uint32_t ranks, uint32_t hops,
               const std::vector<std::tuple<Rank, Rank, uint64_t, std::vector<MessageId>>>& ms) {
  Case c;
  c.s.ranks = ranks;
  const uint32_t col = c.s.add_collective("test");
  for (const auto& [src, dst, bytes, deps] : ms) c.s.add_message(src, dst, bytes, col, deps);
  c.hops.assign(c.s.messages.size(), hops);
  c.ids.resize(c.s.messages.size());
  std::iota(c.ids.begin(), c.ids.end(), 0);
  return c;
}

CollectiveBound bound_of(const Case& c, WorkloadType type, const BoundWire& w = kWire) {
  CollectiveBoundInput in;
  in.workload = type;
  in.schedule = &c.s;
  in.messages = c.ids;
  in.hops = &c.hops;
  in.permutation_path = PathModel{.rate_bps = 100e9, .header_bytes = 86, .ack_bytes = 86};
  in.wire = w;
  return collective_bound(in);
}

TEST(CollectiveBound, IncastIsTheReceiversDownlinkSerialisationPlusOnePath) {
  // The incast: 8 senders x 1 MB (244 full packets and one of 576 B) into rank 8.
  std::vector<std::tuple<Rank, Rank, uint64_t, std::vector<MessageId>>> ms;
  for (Rank r = 0; r < 8; ++r) ms.emplace_back(r, 8, 1'000'000, std::vector<MessageId>{});
  const CollectiveBound b = bound_of(make_case(16, 6, ms), WorkloadType::kIncast);
  EXPECT_EQ(b.kind, BoundKind::kPerHost);
  EXPECT_EQ(b.per_host.host, 8u);
  EXPECT_EQ(b.per_host.link, HostLink::kDownlink);
  const double last_frame = (576 + 86) * 0.08;
  const double downlink = 8 * (244 * kFullSlot + last_frame + kGap);
  // The first frame reaches the downlink after 5 links, the last has arrived p after its
  // serialisation, and its ACK needs 6 links back.
  const double expected = 5 * (last_frame + kP) + downlink - kGap + kP + 6 * (kAck + kP);
  EXPECT_NEAR(b.total_ns, expected, 1e-6);
  EXPECT_NEAR(b.total_ns, 662'925.28, 1e-6);
}

TEST(CollectiveBound, PermutationIsAppendixAToTheNs) {
  const Case c =
      make_case(3, 6, {{0, 1, 1'000'000, {}}, {1, 2, 1'000'000, {}}, {2, 0, 1'000'000, {}}});
  const CollectiveBound b = bound_of(c, WorkloadType::kPermutation);
  PathModel p{.rate_bps = 100e9, .hops = 6, .header_bytes = 86, .ack_bytes = 86};
  EXPECT_EQ(b.kind, BoundKind::kPermutationAppendixA);
  EXPECT_EQ(b.total_ns, permutation_cct_bound(p, 1'000'000, 4096).total_ns);
  EXPECT_EQ(b.appendix_a.data_only_packets, permutation_cct_bound(p, 1'000'000).data_only_packets);
}

TEST(CollectiveBound, ASingleFlowIsItsSlotsItsOtherHopsAndItsAckBack) {
  // 4 full packets over 4 links: uplink and downlink give the same figure.
  const CollectiveBound b = bound_of(make_case(2, 4, {{0, 1, 4 * 4096, {}}}), WorkloadType::kTrace);
  const double t = (4096 + 86) * 0.08;
  EXPECT_EQ(b.kind, BoundKind::kPerHost);
  EXPECT_NEAR(b.total_ns, 4 * kFullSlot - kGap + kP + 3 * (t + kP) + 4 * (kAck + kP), 1e-6);
}

TEST(CollectiveBound, TheAcksAHostSendsShareItsUplinkWithItsData) {
  // Two hosts exchange 64 packets each over one link (back to back, no propagation): each
  // uplink carries 64 data slots and 64 ACK slots; with no propagation the last frame, an ACK,
  // has arrived when its serialisation ends.
  BoundWire w = kWire;
  w.link_delay_ns = 0;
  const Case c = make_case(2, 1, {{0, 1, 64 * 4096, {}}, {1, 0, 64 * 4096, {}}});
  const CollectiveBound b = bound_of(c, WorkloadType::kAllToAll, w);
  EXPECT_EQ(b.per_host.link, HostLink::kUplink);
  EXPECT_NEAR(b.total_ns, 64 * kFullSlot + 64 * (kAck + kGap) - kGap, 1e-6);
}

TEST(CollectiveBound, AckEveryThinsTheAcksToOnePerGroupAndTheLast) {
  BoundWire w = kWire;
  w.link_delay_ns = 0;
  w.ack_every = 8;
  const Case c = make_case(2, 1, {{0, 1, 65 * 4096, {}}, {1, 0, 65 * 4096, {}}});
  // ⌈65 / 8⌉ = 9 ACKs each way.
  EXPECT_NEAR(bound_of(c, WorkloadType::kAllToAll, w).total_ns,
              65 * kFullSlot + 9 * (kAck + kGap) - kGap, 1e-6);
}

TEST(CollectiveBound, AChainOfMessagesAddsUpItsLinks) {
  // A ring's steps: 0→1, then 1→2 once 1 has received, then 2→3 once 2 has. Each costs its
  // slots, its other hops and the propagation; the last also its ACK back.
  const uint64_t bytes = 8 * 4096;
  const Case c = make_case(4, 2, {{0, 1, bytes, {}}, {1, 2, bytes, {0}}, {2, 3, bytes, {1}}});
  const CollectiveBound b = bound_of(c, WorkloadType::kAllReduce);
  const double t = (4096 + 86) * 0.08;
  const double link = 8 * kFullSlot - kGap + kP + (t + kP);
  EXPECT_EQ(b.kind, BoundKind::kSteps);
  EXPECT_EQ(b.steps.messages_on_path, 3u);
  EXPECT_NEAR(b.steps.total_ns, 3 * link + 2 * (kAck + kP), 1e-6);
  EXPECT_NEAR(b.total_ns, b.steps.total_ns, 1e-9);  // above every host's own traffic
  EXPECT_LT(b.per_host.total_ns, b.steps.total_ns);
}

TEST(CollectiveBound, AMessageWaitingForItsSendersOwnWaitsForTheAck) {
  const uint64_t bytes = 4096;
  const Case c = make_case(3, 2, {{0, 1, bytes, {}}, {0, 2, bytes, {0}}});
  const double t = (4096 + 86) * 0.08;
  const double one = kFullSlot - kGap + kP + (t + kP) + 2 * (kAck + kP);
  EXPECT_NEAR(bound_of(c, WorkloadType::kTrace).steps.total_ns, 2 * one, 1e-6);
}

TEST(CollectiveBound, DependenciesOutsideTheCollectiveDoNotMakeItSteps) {
  Case c = make_case(3, 2, {{0, 1, 4096, {}}, {1, 2, 4096, {0}}});
  c.ids = {1};  // message 0 belongs to another collective
  EXPECT_EQ(bound_of(c, WorkloadType::kTrace).kind, BoundKind::kPerHost);
}

TEST(CollectiveBound, ARingAllReduceIsBoundedByItsSteps) {
  conf::WorkloadSpec spec;
  spec.type = WorkloadType::kAllReduce;
  spec.message_bytes = 1 << 20;
  const Schedule s = make_workload(spec, 4, 1);
  std::vector<uint32_t> hops(s.messages.size(), 4);
  std::vector<MessageId> ids(s.messages.size());
  std::iota(ids.begin(), ids.end(), 0);
  CollectiveBoundInput in{.workload = WorkloadType::kAllReduce,
                          .schedule = &s,
                          .messages = ids,
                          .hops = &hops,
                          .permutation_path = {},
                          .wire = kWire};
  const CollectiveBound b = collective_bound(in);
  EXPECT_EQ(b.kind, BoundKind::kSteps);
  EXPECT_EQ(b.steps.messages_on_path, 6u);  // 2(n-1) steps
}

TEST(CollectiveBound, BadInputIsRefusedWithWhatIsWrong) {
  Case c = make_case(2, 2, {{0, 1, 4096, {}}});
  BoundWire w = kWire;
  w.rate_bps = 0;
  EXPECT_THROW(
      {
        try {
          bound_of(c, WorkloadType::kIncast, w);
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "collective bound: the link rate must be > 0");
          throw;
        }
      },
      std::invalid_argument);
  c.ids = {7};
  try {
    bound_of(c, WorkloadType::kIncast);
    FAIL() << "an unknown message was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "collective bound: message 7 is not in the schedule (1 messages, 1 with hops)");
  }
}

}  // namespace
}  // namespace spraylab::gen

// Polarized in the switch's forwarder, on an MRLS spine driven by hand (no ports, no worker): a
// frame whose source is in no leaf's prefix is a counted `unknown_source` drop, never a read
// beyond the label tables; a port taken down is never chosen. `meson setup build-asan
// -Db_sanitize=address,undefined` runs this file under ASan/UBSan (docs/algorithms.md, polarized).
#include <gtest/gtest.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <string>
#include <vector>

#include "conf/loader.h"
#include "switch/dataplane/forwarder.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/switch_tables.h"
#include "tests/dataplane/ring_switch.h"
#include "topo/addressing.h"
#include "topo/build.h"
#include "topo/routing.h"

namespace spraylab::dataplane {
namespace {

// conf/examples/mrls-polarized.yaml's fabric: 14 leaves, 3 uplinks, 3 hosts each, 7 spines.
constexpr char kMrls[] = R"(
seed: 7
topology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3, max_tries: 1000}
links: {rate: 400Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: polarized, queue_unit: packets}
)";

class PolarizedSpine : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(test::init_eal("polarized_forwarder_test")) << "EAL init failed";
    pool_ =
        rte_pktmbuf_pool_create("pol_frames", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
  }

  void SetUp() override {
    exp_ = conf::load_experiment_string(kMrls, "mrls.yaml");
    topology_ = topo::build(exp_.topology, exp_.links);
    routing_ = std::make_unique<topo::Routing>(topology_);
    plan_ = std::make_unique<topo::AddressPlan>(*routing_);
    for (uint32_t sw = 0; sw < routing_->graph().size(); ++sw) {
      if (!routing_->is_leaf(sw)) {
        spine_ = routing_->graph().node_of(sw);
        break;
      }
    }
    for (topo::NodeId n = 0; n < topology_.nodes().size(); ++n) {
      if (topology_.node(n).kind == topo::NodeKind::kHost) hosts_.push_back(n);
    }
    ASSERT_NE(spine_, topo::kNoNode);
    ASSERT_GE(hosts_.size(), 2u);
    RuntimeOptions ro;
    ro.shaping = false;
    ro.routing = routing_.get();
    ro.queue_packets = 1024;
    rt_ = std::make_unique<SwitchRuntime>(
        build_switch_tables(exp_, *routing_, *plan_, topology_.node(spine_).name), ro);
  }

  void TearDown() override {
    drain();
    rt_.reset();
  }

  // Frees what the egress queues hold (nothing sends them in this test), depths back to 0.
  void drain() {
    for (uint16_t p = 0; p < rt_->ports(); ++p)
      rt_->egress(p).discard([](rte_mbuf* m) { rte_pktmbuf_free(m); });
  }

  uint64_t drops(DropReason r) const {
    uint64_t n = 0;
    for (uint16_t p = 0; p < rt_->ports(); ++p) n += rt_->sum_drops(p, r);
    return n;
  }

  static inline rte_mempool* pool_ = nullptr;
  conf::Experiment exp_;
  topo::Topology topology_;
  std::unique_ptr<topo::Routing> routing_;
  std::unique_ptr<topo::AddressPlan> plan_;
  topo::NodeId spine_ = topo::kNoNode;
  std::vector<topo::NodeId> hosts_;
  std::unique_ptr<SwitchRuntime> rt_;
};

TEST_F(PolarizedSpine, AFrameFromAnUnknownSourceIsACountedDrop) {
  Forwarder fw(*rt_, 0);
  const uint32_t dst = plan_->host_ip(hosts_.back());
  std::vector<rte_mbuf*> frames = {
      test::udp_frame(pool_, 0x0afa0001, dst, 1000),  // 10.250.0.1: in no leaf's /24
      test::udp_frame(pool_, plan_->host_ip(hosts_.front()), dst, 1001),
      test::udp_frame(pool_, 0xc0a80001, dst, 1002),  // 192.168.0.1
  };
  for (rte_mbuf* m : frames) ASSERT_NE(m, nullptr);
  fw.process(frames.data(), static_cast<uint16_t>(frames.size()), /*rx_port=*/0, 0, 0);
  EXPECT_EQ(rt_->sum_drops(0, DropReason::kUnknownSource), 2u);
  EXPECT_EQ(drops(DropReason::kUnknownSource), 2u);
  uint32_t queued = 0;
  for (uint16_t p = 0; p < rt_->ports(); ++p) queued += rt_->egress(p).ring_count();
  EXPECT_EQ(queued, 1u) << "the frame from a known host is forwarded";
  for (size_t r = 0; r < kDropReasons; ++r) {
    if (r != static_cast<size_t>(DropReason::kUnknownSource)) {
      EXPECT_EQ(drops(static_cast<DropReason>(r)), 0u) << kDropReasonNames[r];
    }
  }
}

TEST_F(PolarizedSpine, APortTakenDownIsNeverChosen) {
  Forwarder fw(*rt_, 0);
  // One frame from every host to 31 others: with port 1 up some of them take it.
  const auto send_all = [&] {
    for (topo::NodeId s : hosts_) {
      std::vector<rte_mbuf*> frames;
      for (topo::NodeId d : hosts_) {
        if (d == s || frames.size() == net::kBurst) continue;
        frames.push_back(test::udp_frame(pool_, plan_->host_ip(s), plan_->host_ip(d), 1000));
      }
      fw.process(frames.data(), static_cast<uint16_t>(frames.size()), 0, 0, 0);
      rt_->quiescent(0);
    }
  };
  send_all();
  ASSERT_GT(rt_->egress(1).ring_count(), 0u) << "port 1 carries traffic when up";
  drain();
  rt_->set_port_state(1, false);
  send_all();
  EXPECT_EQ(rt_->egress(1).ring_count(), 0u);
  // Frames whose only allowed hop was port 1 have no live hop (a corner): dropped as port_down,
  // never queued on the dead port. The rest still leave.
  uint32_t queued = 0;
  for (uint16_t p = 0; p < rt_->ports(); ++p) queued += rt_->egress(p).ring_count();
  EXPECT_GT(queued, 0u);
}

}  // namespace
}  // namespace spraylab::dataplane

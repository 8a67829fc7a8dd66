// Packet trimming in the switch (buffer.trim): the trim step on an mbuf (the frame's bytes after
// it), and the forwarder trimming beyond a port's threshold, counting per port, and sending the
// trimmed headers ahead of the data queued before them.
#include <gtest/gtest.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include <array>
#include <cstring>
#include <vector>

#include "conf/loader.h"
#include "switch/dataplane/forwarder.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/dataplane/trim_step.h"
#include "tests/dataplane/ring_switch.h"
#include "topo/addressing.h"
#include "topo/build.h"
#include "topo/routing.h"
#include "trafficgen/frame_template.h"
#include "trafficgen/host_plan.h"

namespace spraylab::dataplane {
namespace {

using spraylab::testing::ip_checksum;

rte_mempool* pool() {
  static rte_mempool* p = [] {
    EXPECT_TRUE(test::init_eal("trim_test")) << "EAL init failed";
    return rte_pktmbuf_pool_create("trim_frames", 4096, 0, 0, 8192 + RTE_PKTMBUF_HEADROOM,
                                   SOCKET_ID_ANY);
  }();
  return p;
}

// A generator frame as the host engine writes it: `payload` bytes after the testbed header.
rte_mbuf* gen_frame(uint32_t src, uint32_t dst, uint8_t flags, uint32_t payload = 4096) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool());
  if (m == nullptr) return nullptr;
  const uint32_t len = gen::kFrameHeaderBytes + payload;
  auto* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(len)));
  const gen::FrameTemplate t =
      gen::make_frame_template({2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}, src, dst, 4792, 0x02);
  gen::TestbedHeader h;
  h.flags = flags;
  h.entropy = 0xc123;
  h.message_id = 77;
  h.sequence = 5;
  h.offset = 5 * 4096;
  h.message_bytes = 1 << 20;
  h.send_ts_ns = 123456789;
  gen::write_frame(f, t, len, h.entropy, h);
  return m;
}

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

TEST(TrimStep, CutsADataFrameTo64WireBytesWithItsHeaderFieldsAndAValidChecksum) {
  ASSERT_NE(pool(), nullptr);
  rte_mbuf* m = gen_frame(0x0a000001, 0x0a000102, gen::kData);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(trim_data_frame(m));
  EXPECT_EQ(rte_pktmbuf_pkt_len(m), 60u);  // + 4 B FCS: 64 B on the wire
  EXPECT_EQ(rte_pktmbuf_data_len(m), 60u);
  EXPECT_EQ(rte_pktmbuf_pkt_len(m) + net::kFcsBytes, 64u);
  const auto* f = rte_pktmbuf_mtod(m, const uint8_t*);
  const uint8_t* ip = f + 14;
  EXPECT_EQ(be16(ip + 2), 20 + 8 + 16);  // IPv4 total length: headers + 16 B kept
  EXPECT_EQ(ip_checksum(ip, 20), 0) << "IPv4 header checksum";  // sums to 0 when right
  EXPECT_EQ(be16(ip + 24), 8 + 16);                             // UDP length
  EXPECT_EQ(be16(ip + 26), 0);                                  // no UDP checksum
  EXPECT_EQ(f[58], 0);                                          // Ethernet padding zeroed
  EXPECT_EQ(f[59], 0);
  // The receiver decodes what is left: flags, entropy, message and sequence.
  net::FrameInfo fi{};
  ASSERT_EQ(net::parse_frame(f, 60, fi), net::FrameError::kNone);
  const auto payload = net::udp_payload(f, fi);
  EXPECT_EQ(payload.size(), gen::kTrimmedHeaderBytes);
  gen::TestbedHeader h;
  ASSERT_TRUE(gen::decode(payload.data(), payload.size(), &h));
  EXPECT_EQ(h.flags, gen::kData | gen::kTrimmed);
  EXPECT_EQ(h.entropy, 0xc123);
  EXPECT_EQ(h.message_id, 77u);
  EXPECT_EQ(h.sequence, 5u);
  EXPECT_EQ(h.offset, 0u);  // cut off
  // Trimmed once: a second switch leaves it as it is.
  EXPECT_FALSE(trim_data_frame(m));
  EXPECT_EQ(rte_pktmbuf_pkt_len(m), 60u);
  rte_pktmbuf_free(m);
}

TEST(TrimStep, LeavesAcksNacksAndForeignFramesAlone) {
  for (uint8_t flags : {uint8_t{gen::kAck}, uint8_t{gen::kNack}}) {
    rte_mbuf* m = gen_frame(0x0a000001, 0x0a000102, flags, 0);
    ASSERT_NE(m, nullptr);
    EXPECT_FALSE(trim_data_frame(m)) << int{flags};
    EXPECT_EQ(rte_pktmbuf_pkt_len(m), gen::kFrameHeaderBytes);
    rte_pktmbuf_free(m);
  }
  rte_mbuf* foreign = test::udp_frame(pool(), 0x0a000001, 0x0a000102, 1234);
  ASSERT_NE(foreign, nullptr);
  EXPECT_FALSE(trim_data_frame(foreign));
  rte_pktmbuf_free(foreign);
}

// leaf0 of kLeafSpine with trimming beyond 10 KB: two 4 KB frames fit, the rest are trimmed.
class TrimmingLeaf : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(pool(), nullptr);
    std::string yaml = test::kLeafSpine;
    const std::string plain = "buffer: {bytes: 800KB}";
    yaml.replace(yaml.find(plain), plain.size(),
                 "buffer: {bytes: 800KB, trim: true, trim_threshold: 10KB}");
    exp_ = conf::load_experiment_string(yaml, "trim.yaml");
    topology_ = topo::build(exp_.topology, exp_.links);
    routing_ = std::make_unique<topo::Routing>(topology_);
    plan_ = std::make_unique<topo::AddressPlan>(*routing_);
    RuntimeOptions ro;
    ro.shaping = false;
    ro.routing = routing_.get();
    rt_ =
        std::make_unique<SwitchRuntime>(build_switch_tables(exp_, *routing_, *plan_, "leaf0"), ro);
    h0_ = plan_->host_ip(topology_.find("h0"));
    h1_ = plan_->host_ip(topology_.find("h1"));
  }
  void TearDown() override {
    if (!rt_) return;
    for (uint16_t p = 0; p < rt_->ports(); ++p)
      rt_->egress(p).discard([](rte_mbuf* m) { rte_pktmbuf_free(m); });
  }

  conf::Experiment exp_;
  topo::Topology topology_;
  std::unique_ptr<topo::Routing> routing_;
  std::unique_ptr<topo::AddressPlan> plan_;
  std::unique_ptr<SwitchRuntime> rt_;
  uint32_t h0_ = 0, h1_ = 0;
};

TEST_F(TrimmingLeaf, TrimsDataBeyondTheThresholdCountsPerPortAndSendsHeadersFirst) {
  Forwarder fwd(*rt_, 0);
  // Port 1 faces h1: five data frames and an ACK from h0, in one burst.
  std::array<rte_mbuf*, 6> burst{};
  for (int i = 0; i < 5; ++i) burst[i] = gen_frame(h0_, h1_, gen::kData);
  burst[5] = gen_frame(h0_, h1_, gen::kAck, 0);
  for (rte_mbuf* m : burst) ASSERT_NE(m, nullptr);
  fwd.process(burst.data(), burst.size(), 0, 0, 0);
  EXPECT_EQ(rt_->sum(1, &PortCounters::trims), 3u);  // frames 3, 4, 5 would pass 10 KB
  EXPECT_EQ(rt_->sum(0, &PortCounters::trims), 0u);
  EXPECT_EQ(rt_->sum_drops(1, DropReason::kQueueFull), 0u);
  EXPECT_EQ(rt_->depth_packets_now(1), 6u);  // two data, the ACK, three headers
  // Out of the port: the three trimmed headers first, then the data and the ACK in order.
  std::vector<uint32_t> lengths;
  std::vector<rte_mbuf*> sent;
  while (rt_->depth_packets_now(1) > 0) {
    const uint16_t n = fwd.drain(1, 0, [&](uint16_t, rte_mbuf** m, uint16_t k) -> uint16_t {
      for (uint16_t i = 0; i < k; ++i) sent.push_back(m[i]);
      return k;
    });
    ASSERT_GT(n, 0);
  }
  for (rte_mbuf* m : sent) {
    lengths.push_back(rte_pktmbuf_pkt_len(m));
    rte_pktmbuf_free(m);
  }
  const uint32_t data = gen::kFrameHeaderBytes + 4096;
  EXPECT_EQ(lengths, (std::vector<uint32_t>{60, 60, 60, data, data, gen::kFrameHeaderBytes}));
}

TEST_F(TrimmingLeaf, AFullPriorityQueueIsACountedDrop) {
  exp_.buffer.trim_threshold = 0;  // everything trimmed
  rt_.reset();                     // its rings' names are the new switch's
  RuntimeOptions ro;
  ro.shaping = false;
  ro.routing = routing_.get();
  ro.trim_queue_packets = 4;  // holds 3
  auto small =
      std::make_unique<SwitchRuntime>(build_switch_tables(exp_, *routing_, *plan_, "leaf0"), ro);
  Forwarder fwd(*small, 0);
  std::array<rte_mbuf*, 5> burst{};
  for (rte_mbuf*& m : burst) m = gen_frame(h0_, h1_, gen::kData);
  fwd.process(burst.data(), burst.size(), 0, 0, 0);
  EXPECT_EQ(small->sum(1, &PortCounters::trims), 5u);
  EXPECT_EQ(small->sum_drops(1, DropReason::kTrimQueueFull), 2u);
  EXPECT_EQ(small->depth_packets_now(1), 3u);
  small->egress(1).discard([](rte_mbuf* m) { rte_pktmbuf_free(m); });
}

}  // namespace
}  // namespace spraylab::dataplane

// spraylab-switch's data path on net_ring ports (rte_eth_from_rings): the same port set-up, worker
// loop and forwarder as the binary, on a DPDK device whose rings the test fills and empties
// itself. One worker thread forwards; the test is the hosts and the spines. One case drives a
// second runtime's Forwarder by hand.
#include <gtest/gtest.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "conf/loader.h"
#include "net/frame.h"
#include "net/ports.h"
#include "switch/dataplane/forwarder.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/dataplane/worker.h"
#include "tests/dataplane/ring_switch.h"
#include "topo/addressing.h"
#include "topo/build.h"
#include "topo/routing.h"

namespace spraylab::dataplane {
namespace {

constexpr uint16_t kPorts = test::kLeafPorts;

using spraylab::testing::ip_checksum;

// One switch for the whole suite: DPDK 22.11 does not let a closed ring port's name be reused.
class SwitchOnRings : public ::testing::Test {
 protected:
  struct Fabric {
    conf::Experiment exp;
    topo::Topology topology;
    std::unique_ptr<topo::Routing> routing;
    std::unique_ptr<topo::AddressPlan> plan;
    std::array<rte_ring*, kPorts> to_switch{}, from_switch{};
    rte_mempool* pool = nullptr;
    rte_mempool* switch_pool = nullptr;
    std::vector<net::PortState> ports;
    std::unique_ptr<SwitchRuntime> runtime;
    std::vector<WorkerPlan> plans;
    std::atomic<bool> stop{false};
    std::thread worker;
  };
  static inline Fabric* f_ = nullptr;

  static void SetUpTestSuite() {
    ASSERT_TRUE(test::init_eal("switch_ring_test")) << "EAL init failed";
    f_ = new Fabric;
    Fabric& f = *f_;
    f.exp = conf::load_experiment_string(test::kLeafSpine, "ring.yaml");
    f.topology = topo::build(f.exp.topology, f.exp.links);
    f.routing = std::make_unique<topo::Routing>(f.topology);
    f.plan = std::make_unique<topo::AddressPlan>(*f.routing);
    for (uint16_t p = 0; p < kPorts; ++p) {
      const std::string n = std::to_string(p);
      f.to_switch[p] = rte_ring_create(("to_sw" + n).c_str(), 1024, SOCKET_ID_ANY, 0);
      f.from_switch[p] = rte_ring_create(("from_sw" + n).c_str(), 8192, SOCKET_ID_ANY, 0);
      ASSERT_NE(f.to_switch[p], nullptr);
      ASSERT_NE(f.from_switch[p], nullptr);
      const int id = rte_eth_from_rings(("net_ring_sw" + n).c_str(), &f.to_switch[p], 1,
                                        &f.from_switch[p], 1, 0);
      ASSERT_EQ(id, p) << "ring ports must be DPDK ports 0..5, in order";
    }
    f.pool = rte_pktmbuf_pool_create("test_frames", 16384, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                     SOCKET_ID_ANY);
    ASSERT_NE(f.pool, nullptr);
    SwitchTables tables = build_switch_tables(f.exp, *f.routing, *f.plan, "leaf0");
    ASSERT_EQ(tables.ports.size(), kPorts);
    f.ports = net::start_ports(kPorts, net::PortSetup{}, &f.switch_pool);
    for (const auto& p : f.ports) ASSERT_EQ(p.driver, "net_ring");
    RuntimeOptions ro;
    ro.shaping = false;
    ro.routing = f.routing.get();
    f.runtime = std::make_unique<SwitchRuntime>(tables, ro);
    f.plans = plan_workers(1, kPorts, std::vector<uint16_t>(kPorts, 1));
    f.worker = std::thread([&f] { run_worker(*f.runtime, f.plans[0], f.stop); });
  }

  static void TearDownTestSuite() {
    if (f_ == nullptr) return;
    f_->stop.store(true);
    if (f_->worker.joinable()) f_->worker.join();
    f_->runtime.reset();
    net::stop_ports(f_->ports);
    delete f_;
    f_ = nullptr;
  }

  void SetUp() override { ASSERT_NE(f_, nullptr) << "the suite's switch did not start"; }

  // leaf1's tables and unshaped options on the suite's routing: a runtime of the tests that drive a
  // Forwarder themselves (no ring ports, no worker).
  static SwitchTables leaf1_tables() {
    return build_switch_tables(f_->exp, *f_->routing, *f_->plan, "leaf1");
  }
  // leaf1's ports: its hosts h2 and h3, and the first spine.
  static constexpr uint16_t kToH2 = 0, kToH3 = 1, kFromSpine = 2;
  // A worker of leaf1 that receives from the spine and drains the ports to its hosts.
  static WorkerPlan leaf1_plan() {
    WorkerPlan plan;
    plan.rx = {{kFromSpine, 0}};
    plan.tx = {kToH2, kToH3};
    return plan;
  }
  static RuntimeOptions unshaped() {
    RuntimeOptions ro;
    ro.shaping = false;
    ro.routing = f_->routing.get();
    return ro;
  }

  // A UDP frame from h0 (on port 0) to host `dst` with source port `sport`.
  static rte_mbuf* frame(const std::string& dst, uint16_t sport, uint8_t ttl = 64) {
    return test::udp_frame(f_->pool, f_->plan->host_ip(f_->topology.find("h0")),
                           f_->plan->host_ip(f_->topology.find(dst)), sport, ttl);
  }

  static void send(std::vector<rte_mbuf*> frames) {
    size_t done = 0;
    while (done < frames.size()) {
      done +=
          rte_ring_enqueue_burst(f_->to_switch[0], reinterpret_cast<void**>(frames.data() + done),
                                 static_cast<unsigned>(frames.size() - done), nullptr);
    }
  }

  // Waits until `expected` frames came out (or 10 s), then takes them: port -> frames.
  static std::map<uint16_t, std::vector<rte_mbuf*>> collect(size_t expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    auto total = [] {
      size_t n = 0;
      for (auto* r : f_->from_switch) n += rte_ring_count(r);
      return n;
    };
    while (total() < expected && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::map<uint16_t, std::vector<rte_mbuf*>> out;
    for (uint16_t p = 0; p < kPorts; ++p) {
      rte_mbuf* m;
      while (rte_ring_dequeue(f_->from_switch[p], reinterpret_cast<void**>(&m)) == 0)
        out[p].push_back(m);
    }
    return out;
  }
};

TEST_F(SwitchOnRings, OfanSpreadsOneDestinationOverTheUplinksWithRewrittenHeaders) {
  constexpr int kFrames = 4001;
  std::vector<rte_mbuf*> frames;
  for (int i = 0; i < kFrames; ++i) frames.push_back(frame("h2", static_cast<uint16_t>(1000 + i)));
  send(frames);
  auto out = collect(kFrames);
  size_t total = 0;
  std::vector<size_t> per_uplink;
  for (uint16_t p = 2; p < kPorts; ++p) per_uplink.push_back(out[p].size());
  for (auto& [p, ms] : out) {
    total += ms.size();
    const PortInfo& info = f_->runtime->tables().ports[p];
    for (rte_mbuf* m : ms) {
      const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
      EXPECT_EQ(std::memcmp(f, info.peer_mac.data(), 6), 0) << "destination MAC on port " << p;
      EXPECT_EQ(std::memcmp(f + 6, info.mac.data(), 6), 0) << "source MAC on port " << p;
      EXPECT_EQ(f[14 + 8], 63) << "TTL not decremented";
      EXPECT_EQ(ip_checksum(f + 14, 20), 0) << "IPv4 checksum wrong after the TTL update";
      rte_pktmbuf_free(m);
    }
  }
  EXPECT_EQ(total, static_cast<size_t>(kFrames));
  EXPECT_TRUE(out[0].empty() && out[1].empty()) << "frames went back down to hosts";
  const auto [lo, hi] = std::minmax_element(per_uplink.begin(), per_uplink.end());
  EXPECT_LE(*hi - *lo, 1u) << "Ofan spread " << per_uplink[0] << "/" << per_uplink[1] << "/"
                           << per_uplink[2] << "/" << per_uplink[3];
}

// A frame for a host of this leaf is routed like any other: as an IP router delivering to a
// directly attached host (RFC 1812 §5.3.1), the switch decrements its TTL, and drops it when the
// TTL would reach 0 (net/frame.h). The hosts count the switches a packet crossed by what is left
// of its TTL (docs/runner.md, hops), the last leaf included.
TEST_F(SwitchOnRings, LocalDeliveryAndCountedDrops) {
  const SwitchRuntime& rt = *f_->runtime;
  const uint64_t ttl0 = rt.sum_drops(0, DropReason::kTtlExpired);
  const uint64_t rx0 = rt.sum(0, &PortCounters::rx_packets);
  std::vector<rte_mbuf*> frames;
  for (int i = 0; i < 100; ++i) frames.push_back(frame("h1", 7));            // local: port 1
  for (int i = 0; i < 50; ++i) frames.push_back(frame("h2", 7, /*ttl=*/1));  // expires here
  for (int i = 0; i < 20; ++i) frames.push_back(frame("h1", 7, /*ttl=*/1));  // local, expires too
  send(frames);
  auto out = collect(100);
  EXPECT_EQ(out[1].size(), 100u);
  for (auto& [p, ms] : out) {
    if (p != 1) {
      EXPECT_TRUE(ms.empty()) << ms.size() << " frames on port " << p;
    }
    for (rte_mbuf* m : ms) {
      const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
      EXPECT_EQ(f[14 + 8], 63) << "a local frame's TTL not decremented";
      EXPECT_EQ(ip_checksum(f + 14, 20), 0) << "IPv4 checksum wrong after the TTL update";
      rte_pktmbuf_free(m);
    }
  }
  // The drop is counted by the worker; give it the moment it may still need.
  for (int i = 0; i < 500 && rt.sum_drops(0, DropReason::kTtlExpired) < ttl0 + 70; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(rt.sum_drops(0, DropReason::kTtlExpired) - ttl0, 70u);
  EXPECT_EQ(rt.sum(0, &PortCounters::rx_packets) - rx0, 170u);
}

// An 802.1Q-tagged frame (net/frame.h parses one tag): routed by the addresses behind the tag,
// its TTL decremented and checksum patched there, not at the untagged offset; the tag is kept.
TEST_F(SwitchOnRings, AVlanTaggedFrameIsRoutedAndItsTtlDecrementedBehindTheTag) {
  std::vector<rte_mbuf*> frames;
  for (const char* dst : {"h1", "h2"}) {
    for (int i = 0; i < 8; ++i) {
      rte_mbuf* m = frame(dst, static_cast<uint16_t>(100 + i), /*ttl=*/9);
      uint8_t* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, 4));
      ASSERT_NE(f, nullptr);
      std::memmove(f, f + 4, 12);  // the MACs forward, the tag (TPID 0x8100, VLAN 5) behind
      const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
      std::memcpy(f + 12, tag, 4);
      frames.push_back(m);
    }
  }
  send(frames);
  auto out = collect(16);
  size_t uplinks = 0;
  for (auto& [p, ms] : out) {
    if (p == 0) {
      EXPECT_TRUE(ms.empty()) << ms.size() << " frames back to h0";
    } else if (p == 1) {
      EXPECT_EQ(ms.size(), 8u) << "h1's frames";
    } else {
      uplinks += ms.size();
    }
    for (rte_mbuf* m : ms) {
      const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
      EXPECT_EQ(rte_pktmbuf_pkt_len(m), 64u);
      EXPECT_EQ(f[12] << 8 | f[13], 0x8100) << "tag lost on port " << p;
      EXPECT_EQ(f[16] << 8 | f[17], 0x0800) << "ethertype behind the tag on port " << p;
      EXPECT_EQ(f[18 + 8], 8) << "TTL behind the tag on port " << p;
      EXPECT_EQ(ip_checksum(f + 18, 20), 0) << "IPv4 checksum behind the tag on port " << p;
      rte_pktmbuf_free(m);
    }
  }
  EXPECT_EQ(uplinks, 8u) << "h2's frames go up";
}

// An egress ring smaller than its buffer: what the ring refuses is a counted queue_full drop and
// is not left in the queue's depth (flush() raises the depth before the enqueue, so that another
// worker draining the ring never subtracts first, and takes the refused back); the drain brings
// the depth back to 0. A second runtime beside the suite's, for leaf1, driven by hand.
TEST_F(SwitchOnRings, RingRefusalsAreCountedDropsAndLeaveTheDepthExact) {
  RuntimeOptions ro = unshaped();
  ro.queue_packets = 64;  // the smallest egress ring: 64 slots, which hold 63
  SwitchRuntime rt(leaf1_tables(), ro);
  Forwarder fw(rt, 0);
  uint32_t len = 0;
  for (int burst = 0; burst < 3; ++burst) {  // 96 frames from h0, arriving from a spine
    std::vector<rte_mbuf*> frames;
    for (uint16_t i = 0; i < net::kBurst; ++i) frames.push_back(frame("h3", 7));
    len = rte_pktmbuf_pkt_len(frames[0]);
    fw.process(frames.data(), net::kBurst, /*rx_port=*/2, 0, 0);
  }

  const uint32_t queued = rt.egress(kToH3).ring_count();
  EXPECT_EQ(queued, 63u);
  EXPECT_EQ(rt.sum_drops(kToH3, DropReason::kQueueFull), 3u * net::kBurst - queued);
  EXPECT_EQ(rt.depth_packets_now(kToH3), queued);
  EXPECT_EQ(rt.depth_bytes_now(kToH3), queued * len);

  std::vector<rte_mbuf*> sent;
  const auto tx = [&](uint16_t, rte_mbuf** m, uint16_t n) {
    sent.insert(sent.end(), m, m + n);
    return n;
  };
  while (fw.drain(kToH3, 0, tx) > 0) {
  }
  EXPECT_EQ(sent.size(), queued);
  EXPECT_EQ(rt.depth_packets_now(kToH3), 0u);
  EXPECT_EQ(rt.depth_bytes_now(kToH3), 0u);
  for (rte_mbuf* m : sent) rte_pktmbuf_free(m);
}

// WorkerPlan::tx_coalesce_turns: while an rx burst comes back full, a port holding fewer than
// kCoalesceBelow frames skips its drain, at most that many turns in a row; a port with more, or
// any port once the input runs dry, is drained at once. Nothing is lost or reordered.
TEST_F(SwitchOnRings, CoalescedDrainsWaitForFramesAtMostTheGivenTurns) {
  SwitchRuntime rt(leaf1_tables(), unshaped());
  Forwarder fw(rt, 0);
  WorkerPlan plan = leaf1_plan();
  plan.tx_coalesce_turns = 3;
  bool input = true;
  uint16_t to_h3 = 1;  // of each burst's 32 frames; the rest go to h2
  uint16_t next_sport = 0;
  // A full burst per turn while `input`, numbered by UDP source port.
  const auto rx = [&](uint16_t port, uint16_t, rte_mbuf** m, uint16_t n) -> uint16_t {
    if (!input || port != kFromSpine) return 0;
    for (uint16_t i = 0; i < n; ++i) m[i] = frame(i < to_h3 ? "h3" : "h2", next_sport++);
    return n;
  };
  std::map<uint16_t, std::vector<uint16_t>> sent;  // port -> source ports, in order
  std::map<uint16_t, uint32_t> sent_this_turn;
  const auto tx = [&](uint16_t port, rte_mbuf** m, uint16_t n) -> uint16_t {
    for (uint16_t i = 0; i < n; ++i) {
      const uint8_t* f = rte_pktmbuf_mtod(m[i], const uint8_t*);
      sent[port].push_back(static_cast<uint16_t>((f[34] << 8) | f[35]));
      rte_pktmbuf_free(m[i]);
    }
    sent_this_turn[port] += n;
    return n;
  };
  const auto turn = [&] {
    sent_this_turn.clear();
    worker_turn(rt, fw, plan, 0, rx, tx);
    return std::pair(sent_this_turn[kToH2], sent_this_turn[kToH3]);
  };
  static_assert(kCoalesceBelow == 16);
  // h2 gets 31 a turn (not fewer than 16: sent every turn); h3 gets 1 and waits three turns.
  EXPECT_EQ(turn(), std::pair(31u, 0u));
  EXPECT_EQ(turn(), std::pair(31u, 0u));
  EXPECT_EQ(turn(), std::pair(31u, 0u));
  EXPECT_EQ(turn(), std::pair(31u, 4u)) << "h3 sends after its third wait";
  // 6 a turn to h3: 6 and 12 wait, 18 goes (before its third wait).
  to_h3 = 6;
  EXPECT_EQ(turn(), std::pair(26u, 0u));
  EXPECT_EQ(turn(), std::pair(26u, 0u));
  EXPECT_EQ(turn(), std::pair(26u, 18u));
  EXPECT_EQ(turn(), std::pair(26u, 0u));
  input = false;
  EXPECT_EQ(turn(), std::pair(0u, 6u)) << "no input waiting: every port drains";
  EXPECT_EQ(rt.depth_packets_now(kToH2) + rt.depth_packets_now(kToH3), 0u);
  ASSERT_EQ(sent[kToH2].size() + sent[kToH3].size(), 8u * net::kBurst);
  for (const auto& [port, sports] : sent) {
    for (size_t i = 1; i < sports.size(); ++i) EXPECT_LT(sports[i - 1], sports[i]) << port;
  }

  plan.tx_coalesce_turns = 0;  // off: every port drains every turn
  input = true;
  EXPECT_EQ(turn(), std::pair(26u, 6u));
  input = false;
  EXPECT_EQ(turn(), std::pair(0u, 0u));
}

// Forwarder::set_direct_tx (spraylab-switch --no-shaping): a burst's frames for an owned,
// unshaped port whose queue is empty go straight to the device; what the device refuses is
// queued, not lost; while frames are queued, new ones queue behind them (FIFO); a port not owned,
// or one a rate request is about to shape, queues. The counters add up either way.
TEST_F(SwitchOnRings, DirectTxSkipsOnlyAnEmptyUnshapedQueueAndKeepsOrder) {
  SwitchRuntime rt(leaf1_tables(), unshaped());
  Forwarder fw(rt, 0);
  // The device: takes up to `room` frames per call, keeps each port's UDP source ports in order.
  struct Device {
    uint16_t room = net::kBurst;
    uint32_t calls = 0;
    std::map<uint16_t, std::vector<uint16_t>> sent;
    uint16_t take(uint16_t port, rte_mbuf** m, uint16_t n) {
      ++calls;
      n = std::min(n, room);
      for (uint16_t i = 0; i < n; ++i) {
        const uint8_t* f = rte_pktmbuf_mtod(m[i], const uint8_t*);
        sent[port].push_back(static_cast<uint16_t>((f[34] << 8) | f[35]));
        rte_pktmbuf_free(m[i]);
      }
      return n;
    }
  } dev;
  const std::vector<uint16_t> owned = {kToH3};  // h2's port belongs to another worker
  fw.set_direct_tx([](void* ctx, uint16_t port, rte_mbuf** m,
                      uint16_t n) { return static_cast<Device*>(ctx)->take(port, m, n); },
                   &dev, owned);
  uint16_t next_sport = 0;
  uint32_t len = 0;
  const auto burst = [&](const char* dst) {
    std::vector<rte_mbuf*> frames;
    for (uint16_t i = 0; i < net::kBurst; ++i) frames.push_back(frame(dst, next_sport++));
    len = rte_pktmbuf_pkt_len(frames[0]);
    fw.process(frames.data(), net::kBurst, kFromSpine, 0, 0);
  };
  const auto drain = [&](uint16_t port) {
    const auto tx = [&](uint16_t p, rte_mbuf** m, uint16_t n) { return dev.take(p, m, n); };
    while (fw.drain(port, 0, tx) > 0) {
    }
  };

  burst("h3");  // empty and unshaped: straight out, nothing queued
  EXPECT_EQ(dev.calls, 1u);
  EXPECT_EQ(dev.sent[kToH3].size(), net::kBurst);
  EXPECT_EQ(rt.depth_packets_now(kToH3), 0u);
  EXPECT_EQ(rt.egress(kToH3).ring_count(), 0u);

  dev.room = 10;  // the device takes 10: the other 22 are queued, not dropped
  burst("h3");
  EXPECT_EQ(dev.sent[kToH3].size(), net::kBurst + 10u);
  EXPECT_EQ(rt.depth_packets_now(kToH3), 22u);
  EXPECT_EQ(rt.depth_bytes_now(kToH3), 22u * len);

  dev.room = net::kBurst;  // frames queued: the next burst queues behind them
  const uint32_t calls = dev.calls;
  burst("h3");
  EXPECT_EQ(dev.calls, calls) << "sent past queued frames";
  EXPECT_EQ(rt.depth_packets_now(kToH3), 22u + net::kBurst);
  drain(kToH3);
  EXPECT_EQ(rt.depth_packets_now(kToH3), 0u);
  EXPECT_EQ(rt.depth_bytes_now(kToH3), 0u);

  burst("h2");  // not this worker's port: queued for its owner
  EXPECT_EQ(rt.depth_packets_now(kToH2), net::kBurst);
  EXPECT_TRUE(dev.sent[kToH2].empty());
  drain(kToH2);

  rt.set_port_rate(kToH3, 1e9);  // shaped from the next drain on: queued until then, and after
  burst("h3");
  EXPECT_EQ(rt.depth_packets_now(kToH3), net::kBurst);
  drain(kToH3);  // applies the rate: one slack's worth leaves now
  EXPECT_TRUE(rt.egress(kToH3).shaper().shaping());
  const size_t before = dev.sent[kToH3].size();
  const uint32_t depth = rt.depth_packets_now(kToH3);
  burst("h3");
  EXPECT_EQ(dev.sent[kToH3].size(), before) << "a shaped port sent past its shaper";
  EXPECT_EQ(rt.depth_packets_now(kToH3), depth + net::kBurst);
  drain(kToH3);
  // Whatever is still queued (the shaper at time 0) is freed with the runtime.

  const uint64_t queued = rt.depth_packets_now(kToH3);
  for (uint16_t p : {kToH2, kToH3}) {
    const auto& sports = dev.sent[p];
    for (size_t i = 1; i < sports.size(); ++i) EXPECT_LT(sports[i - 1], sports[i]) << p;
    EXPECT_EQ(rt.sum(p, &PortCounters::tx_packets), sports.size()) << p;
    EXPECT_EQ(rt.sum(p, &PortCounters::tx_bytes), sports.size() * len) << p;
    for (size_t r = 0; r < kDropReasons; ++r)
      EXPECT_EQ(rt.sum_drops(p, static_cast<DropReason>(r)), 0u) << p << " " << r;
  }
  EXPECT_EQ(rt.sum(kToH3, &PortCounters::egress_packets), dev.sent[kToH3].size() + queued);
  EXPECT_EQ(rt.sum(kToH2, &PortCounters::egress_packets), net::kBurst);
}

// WorkerPlan::rx_bursts: while bursts come back full, a turn reads up to that many and holds
// their frames staged (Forwarder::process's `hold`), so each port gets one device call for them
// all; a port whose staging fills (Forwarder::kStaged, two bursts) is flushed early. Every frame
// leaves once, in order.
TEST_F(SwitchOnRings, HeldBurstsLeaveTogetherInOrder) {
  SwitchRuntime rt(leaf1_tables(), unshaped());
  Forwarder fw(rt, 0);
  WorkerPlan plan = leaf1_plan();
  plan.rx_bursts = 4;
  uint32_t full = 0;    // full bursts the input still has this turn
  uint16_t to_h3 = 16;  // of each burst's 32 frames; the rest go to h2
  uint16_t next_sport = 0;
  const auto rx = [&](uint16_t port, uint16_t, rte_mbuf** m, uint16_t n) -> uint16_t {
    if (full == 0 || port != kFromSpine) return 0;
    --full;
    for (uint16_t i = 0; i < n; ++i) m[i] = frame(i < to_h3 ? "h3" : "h2", next_sport++);
    return n;
  };
  std::map<uint16_t, std::vector<uint16_t>> sent;   // port -> source ports, in order
  std::map<uint16_t, std::vector<uint16_t>> calls;  // port -> frames per device call
  const auto take = [&](uint16_t port, rte_mbuf** m, uint16_t n) -> uint16_t {
    for (uint16_t i = 0; i < n; ++i) {
      const uint8_t* f = rte_pktmbuf_mtod(m[i], const uint8_t*);
      sent[port].push_back(static_cast<uint16_t>((f[34] << 8) | f[35]));
      rte_pktmbuf_free(m[i]);
    }
    calls[port].push_back(n);
    return n;
  };
  fw.set_direct_tx([](void* ctx, uint16_t port, rte_mbuf** m,
                      uint16_t n) { return (*static_cast<decltype(take)*>(ctx))(port, m, n); },
                   const_cast<void*>(static_cast<const void*>(&take)), plan.tx);

  full = 3;  // three full bursts, then none: one turn takes them all, 48 frames a port
  EXPECT_EQ(worker_turn(rt, fw, plan, 0, rx, take), 3u * net::kBurst);
  EXPECT_EQ(calls[kToH2], std::vector<uint16_t>{48});
  EXPECT_EQ(calls[kToH3], std::vector<uint16_t>{48});

  calls.clear();
  full = 4;  // four, all to h3 but one each: h3's staging fills after two bursts
  to_h3 = 31;
  worker_turn(rt, fw, plan, 0, rx, take);
  EXPECT_EQ(calls[kToH3], (std::vector<uint16_t>{2 * net::kBurst, 60}));
  EXPECT_EQ(calls[kToH2], std::vector<uint16_t>{4});

  calls.clear();
  full = 6;  // more full bursts than rx_bursts: the turn stops at four
  to_h3 = 16;
  worker_turn(rt, fw, plan, 0, rx, take);
  EXPECT_EQ(calls[kToH3], std::vector<uint16_t>{64});
  EXPECT_EQ(full, 2u);
  worker_turn(rt, fw, plan, 0, rx, take);
  EXPECT_EQ(full, 0u);

  for (uint16_t p : {kToH2, kToH3}) {
    for (size_t i = 1; i < sent[p].size(); ++i) EXPECT_LT(sent[p][i - 1], sent[p][i]) << p;
    EXPECT_EQ(rt.depth_packets_now(p), 0u);
  }
  EXPECT_EQ(sent[kToH2].size() + sent[kToH3].size(), 13u * net::kBurst);
}

// Every switch draws its own random stream (lb::switch_seed): two leaves of one fabric, given the
// same frames (h0 to h6 on leaf3, so the same four uplink candidates), make different RPS choices;
// a second runtime of the same switch makes the same ones. (Not leaf0: the suite's switch holds
// its queue names.)
TEST_F(SwitchOnRings, TwoSwitchesOfOneFabricMakeDifferentRpsChoices) {
  const conf::Experiment exp = conf::load_experiment_string(R"(
seed: 7
topology: {generator: leaf-spine, leaves: 4, spines: 4, hosts_per_leaf: 2}
links: {rate: 100Gbps, delay: 500ns}
load_balancer: {algorithm: rps}
)",
                                                            "rps.yaml");
  const topo::Topology t = topo::build(exp.topology, exp.links);
  const topo::Routing r(t);
  const topo::AddressPlan plan(r);
  constexpr uint16_t kFrames = 4 * net::kBurst;
  // The uplink each frame (told apart by its UDP source port) leaves on.
  const auto choices = [&](const std::string& sw) {
    const SwitchTables tables = build_switch_tables(exp, r, plan, sw);
    RuntimeOptions ro;
    ro.shaping = false;
    ro.routing = &r;
    SwitchRuntime rt(tables, ro);
    Forwarder fw(rt, 0);
    for (uint16_t b = 0; b < kFrames / net::kBurst; ++b) {
      std::vector<rte_mbuf*> frames;
      for (uint16_t i = 0; i < net::kBurst; ++i) {
        frames.push_back(test::udp_frame(f_->pool, plan.host_ip(t.find("h0")),
                                         plan.host_ip(t.find("h6")),
                                         static_cast<uint16_t>(b * net::kBurst + i)));
      }
      fw.process(frames.data(), net::kBurst, /*rx_port=*/0, 0, 0);
    }
    std::vector<uint16_t> port_of(kFrames, UINT16_MAX);
    for (uint16_t p = 0; p < rt.ports(); ++p) {
      const auto tx = [&](uint16_t, rte_mbuf** m, uint16_t n) {
        for (uint16_t i = 0; i < n; ++i) {
          const uint8_t* f = rte_pktmbuf_mtod(m[i], const uint8_t*);
          port_of[(f[34] << 8) | f[35]] = p;
          rte_pktmbuf_free(m[i]);
        }
        return n;
      };
      while (fw.drain(p, 0, tx) > 0) {
      }
    }
    return port_of;
  };
  const std::vector<uint16_t> one = choices("leaf1");
  const std::vector<uint16_t> two = choices("leaf2");
  for (uint16_t p : one) ASSERT_TRUE(p >= 2 && p < 6) << "not an uplink: " << p;
  for (uint16_t p : two) ASSERT_TRUE(p >= 2 && p < 6) << "not an uplink: " << p;
  EXPECT_NE(one, two) << "two switches drew the same stream";
  size_t same = 0;
  for (size_t i = 0; i < one.size(); ++i) same += one[i] == two[i] ? 1 : 0;
  EXPECT_LT(same, one.size() / 2) << "independent streams agree on ~1/4 of the choices";
  EXPECT_EQ(choices("leaf1"), one) << "one switch, one seed: the same choices";
}

}  // namespace
}  // namespace spraylab::dataplane

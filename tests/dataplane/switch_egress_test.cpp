// Per-worker egress state (issue 44), the forwarder driven by hand on leaf0 of the test
// leaf-spine (no devices): two workers' frames for one port meet in no shared ring or depth word,
// yet the port's depth is their total, its shaper paces them both, and Ofan's one rotation per key
// still spreads the two workers' choices together within one packet of even.
#include <gtest/gtest.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
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

constexpr uint16_t kPorts = test::kLeafPorts;
constexpr uint16_t kFirstUplink = 2;  // ports 2-5 face the spines
constexpr uint16_t kUplinks = 4;

class TwoWorkers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(test::init_eal("switch_egress_test")) << "EAL init failed";
    pool_ = rte_pktmbuf_pool_create("egress_frames", 16384, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                    SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
  }

  void SetUp() override {
    exp_ = conf::load_experiment_string(test::kLeafSpine, "egress.yaml");
    topology_ = topo::build(exp_.topology, exp_.links);
    routing_ = std::make_unique<topo::Routing>(topology_);
    plan_ = std::make_unique<topo::AddressPlan>(*routing_);
    h_[0] = plan_->host_ip(topology_.find("h0"));
    h_[1] = plan_->host_ip(topology_.find("h1"));
    h_[2] = plan_->host_ip(topology_.find("h2"));
    h_[3] = plan_->host_ip(topology_.find("h3"));
  }

  void start(bool shaping, uint16_t tx_queues, uint64_t slack_bytes = 0) {
    RuntimeOptions ro;
    ro.shaper_slack_bytes = slack_bytes;
    ro.shaping = shaping;
    ro.routing = routing_.get();
    ro.workers = 2;
    ro.tx_queues = tx_queues;
    rt_ =
        std::make_unique<SwitchRuntime>(build_switch_tables(exp_, *routing_, *plan_, "leaf0"), ro);
    for (uint32_t w = 0; w < 2; ++w) fwd_[w] = std::make_unique<Forwarder>(*rt_, w);
  }

  void TearDown() override {
    for (auto& f : fwd_) f.reset();
    rt_.reset();
  }

  // A burst of `n` frames from host `from` (worker `from`'s rx port) to h2 or h3.
  void send(uint32_t w, uint16_t n, uint64_t now_ns = 0) {
    std::array<rte_mbuf*, net::kBurst> m;
    for (uint16_t i = 0; i < n; ++i) {
      m[i] = test::udp_frame(pool_, h_[w], h_[2 + w], static_cast<uint16_t>(1000 + i));
      ASSERT_NE(m[i], nullptr) << "mempool empty";
    }
    fwd_[w]->process(m.data(), n, static_cast<uint16_t>(w), 0, now_ns);
  }

  // Worker w drains every port it drains until nothing is left; counts frames sent per port.
  void drain(uint32_t w, std::array<uint64_t, kPorts>& sent, uint64_t now_ns = 0) {
    auto tx = [&sent](uint16_t port, rte_mbuf** m, uint16_t n) -> uint16_t {
      sent[port] += n;
      rte_pktmbuf_free_bulk(m, n);
      return n;
    };
    for (uint16_t p = 0; p < kPorts; ++p) {
      while (rt_->egress_queues().pending(p, w) > 0 && fwd_[w]->drain(p, now_ns, tx) > 0) {
      }
    }
  }

  static inline rte_mempool* pool_ = nullptr;
  conf::Experiment exp_;
  topo::Topology topology_;
  std::unique_ptr<topo::Routing> routing_;
  std::unique_ptr<topo::AddressPlan> plan_;
  std::array<uint32_t, 4> h_{};
  std::unique_ptr<SwitchRuntime> rt_;
  std::array<std::unique_ptr<Forwarder>, 2> fwd_;
};

// h0 → h2 on worker 0, h1 → h3 on worker 1, at once: both to leaf1, so one Ofan key, one shared
// rotation over the four uplinks. Every round (both workers' bursts, then each owner's drain of
// the ports it owns, the other worker's queues included) the key's pointer has handed out a run
// of consecutive positions, so the frames the uplinks sent in the round, and since the start,
// are within one of even. Also: every frame balanced is sent (no loss in the cross-worker rings).
TEST_F(TwoWorkers, OfanSpreadsEachKeyWithinOneOfEvenOverEveryWindow) {
  start(/*shaping=*/false, /*tx_queues=*/1);
  ASSERT_FALSE(rt_->per_worker_tx()) << "one tx queue: port owners drain every worker's queue";
  constexpr int kRounds = 200;
  std::array<std::array<uint64_t, kPorts>, 2> sent{};
  std::array<uint64_t, kPorts> before{};
  std::barrier sync(3);
  std::atomic<bool> failed{false};
  auto worker = [&](uint32_t w) {
    // Burst sizes of their own per worker, so that a round's frames are no multiple of the four
    // uplinks: two rotations (one per worker) would then put both workers' extra frames on the
    // same ports.
    std::mt19937 sizes(17 + w);
    for (int r = 0; r < kRounds; ++r) {
      sync.arrive_and_wait();  // start together: the two workers' bursts interleave
      for (int b = 0; b < 8; ++b) send(w, static_cast<uint16_t>(1 + sizes() % net::kBurst));
      sync.arrive_and_wait();  // every frame balanced and enqueued
      drain(w, sent[w]);
      sync.arrive_and_wait();  // every queue drained: the main thread checks
    }
  };
  std::thread t0(worker, 0), t1(worker, 1);
  uint64_t windows = 0;
  for (int r = 0; r < kRounds; ++r) {
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    uint64_t lo = UINT64_MAX, hi = 0, wlo = UINT64_MAX, whi = 0;
    for (uint16_t p = kFirstUplink; p < kFirstUplink + kUplinks; ++p) {
      const uint64_t n = sent[0][p] + sent[1][p];
      lo = std::min(lo, n);
      hi = std::max(hi, n);
      wlo = std::min(wlo, n - before[p]);
      whi = std::max(whi, n - before[p]);
      before[p] = n;
    }
    if (hi - lo > 1 || whi - wlo > 1) {
      ADD_FAILURE() << "round " << r << ": uplinks sent " << lo << ".." << hi << " in all and "
                    << wlo << ".." << whi << " in the round";
      failed = true;
    }
    ++windows;
  }
  t0.join();
  t1.join();
  EXPECT_EQ(windows, static_cast<uint64_t>(kRounds));
  uint64_t total = 0, decided = 0;
  for (uint16_t p = 0; p < kPorts; ++p) {
    total += sent[0][p] + sent[1][p];
    decided += rt_->sum(p, &PortCounters::lb_decisions);
    EXPECT_EQ(rt_->depth_packets_now(p), 0u) << "port " << p;
    for (size_t r = 0; r < kDropReasons; ++r)
      EXPECT_EQ(rt_->sum_drops(p, static_cast<DropReason>(r)), 0u) << kDropReasonNames[r];
  }
  EXPECT_EQ(total, decided) << "frames balanced but never sent";
  EXPECT_GT(total, 20000u);
  // Both workers sent on every uplink: each owner drained the other worker's queue too.
  for (uint16_t p = kFirstUplink; p < kFirstUplink + kUplinks; ++p) {
    const uint32_t owner = rt_->egress_queues().owner(p);
    EXPECT_GT(sent[owner][p], 0u);
    EXPECT_EQ(sent[1 - owner][p], 0u) << "only the owner sends on a port of one tx queue";
  }
}

// The depth balancers and metrics read is the port's total over both workers' queues, kept in
// tallies each worker writes alone; the maxima are of the total; draining brings it back to 0.
TEST_F(TwoWorkers, ThePortsDepthIsItsTotalOverWorkers) {
  start(/*shaping=*/true, /*tx_queues=*/1);
  // Shaped ports queue (no direct send). Worker 0's 32 frames to h2 and worker 1's 32 to h3 go to
  // the uplinks, 8 and 8 per uplink (Ofan's one rotation for leaf1).
  send(0, 32);
  send(1, 32);
  std::array<std::atomic<uint32_t>, kMaxPorts> snapshot{};
  const lb::QueueView view = rt_->queue_view(*rt_->balancers(), snapshot.data());
  uint32_t total = 0, bytes = 0;
  for (uint16_t p = kFirstUplink; p < kFirstUplink + kUplinks; ++p) {
    total += rt_->depth_packets_now(p);
    bytes += rt_->depth_bytes_now(p);
    EXPECT_EQ(rt_->depth_packets_now(p), 16u) << "port " << p;
    EXPECT_EQ(view.depth(p), 16u) << "port " << p << ": the balancers' view";
    EXPECT_EQ(rt_->egress_queues().queue(p, 1).ring_count(), 8u) << "worker 1's queue";
    EXPECT_EQ(rt_->take_max_depth(p, SwitchRuntime::MaxReader::kResults).first, 16u)
        << "port " << p;
  }
  EXPECT_EQ(total, 64u);
  EXPECT_EQ(bytes, 64u * 60u);
  std::array<uint64_t, kPorts> sent{};
  const uint64_t later = 1'000'000'000;  // a second on: the shapers let everything go
  drain(0, sent, later);
  drain(1, sent, later);
  for (uint16_t p = 0; p < kPorts; ++p) {
    EXPECT_EQ(rt_->depth_packets_now(p), 0u) << "port " << p;
    EXPECT_EQ(rt_->depth_bytes_now(p), 0u) << "port " << p;
  }
  uint64_t n = 0;
  for (uint64_t s : sent) n += s;
  EXPECT_EQ(n, 64u);
}

// Each reader of a port's maxima gets the deepest queue since its own last take: a metrics scrape
// does not take the interval a run's results read (a scrape of a namespaced switch took what its
// launcher's /spraylab/queue_max was to report), nor the reverse.
TEST_F(TwoWorkers, EachReaderTakesTheMaximaSinceItsOwnLastTake) {
  using R = SwitchRuntime::MaxReader;
  start(/*shaping=*/true, /*tx_queues=*/1);
  send(0, 32);  // 16 frames on each uplink (Ofan's rotation for leaf1, both workers)
  send(1, 32);
  std::array<uint64_t, kPorts> sent{};
  const uint64_t later = 1'000'000'000;
  drain(0, sent, later);
  drain(1, sent, later);
  for (uint16_t p = kFirstUplink; p < kFirstUplink + kUplinks; ++p) {
    EXPECT_EQ(rt_->take_max_depth(p, R::kScrape).first, 16u) << "port " << p;
  }
  send(0, 8);  // 2 on each uplink, still queued
  for (uint16_t p = kFirstUplink; p < kFirstUplink + kUplinks; ++p) {
    EXPECT_EQ(rt_->take_max_depth(p, R::kResults), std::make_pair(16u, 16u * 60u))
        << "port " << p << ": the results' interval, which the scrape did not take";
    EXPECT_EQ(rt_->take_max_depth(p, R::kScrape).first, 2u) << "port " << p;
    EXPECT_EQ(rt_->take_max_depth(p, R::kResults).first, 2u)
        << "port " << p << ": a new interval starts at the depth of the take";
  }
  drain(0, sent, later);
}

// One shaper per port, fed by both workers' queues: at one instant the port lets out what its
// slack allows, not that once per worker.
TEST_F(TwoWorkers, OneShaperPacesBothWorkersQueuesOfAPort) {
  constexpr uint64_t kWire = 60 + net::kWireOverhead;
  start(/*shaping=*/true, /*tx_queues=*/2, /*slack_bytes=*/4 * kWire);
  ASSERT_FALSE(rt_->per_worker_tx()) << "a shaped port has one drainer";
  send(0, 32);  // 8 frames per uplink from each worker
  send(1, 32);
  std::array<uint64_t, kPorts> sent{};
  drain(0, sent, 1);
  drain(1, sent, 1);
  // What one shaper of this port lets start at t = 1 ns out of 16 frames.
  Shaper one(100e9, 4 * kWire * 8 * 1'000'000'000 / 100'000'000'000);
  uint64_t allowed = 0;
  while (allowed < 16 && one.may_send(1)) {
    one.sent(60, 1);
    ++allowed;
  }
  ASSERT_LT(allowed, 8u) << "the test needs a slack shorter than one worker's frames";
  for (uint16_t p = kFirstUplink; p < kFirstUplink + kUplinks; ++p) {
    EXPECT_EQ(sent[p], allowed) << "port " << p;
    EXPECT_EQ(rt_->depth_packets_now(p), 16u - allowed) << "port " << p;
  }
}

// A worker's queues lie together in memory, port after port: no cache line holds the end of one
// worker's queue (what its enqueues read, its drains write) and the start of another's (the ring
// indices that worker writes on every burst), except where one worker's block ends.
TEST_F(TwoWorkers, EachWorkersQueuesLieTogether) {
  start(/*shaping=*/false, /*tx_queues=*/2);
  const EgressQueues& eq = rt_->egress_queues();
  for (uint32_t w = 0; w < 2; ++w) {
    for (uint16_t p = 0; p + 1 < kPorts; ++p) {
      EXPECT_EQ(&eq.queue(static_cast<uint16_t>(p + 1), w), &eq.queue(p, w) + 1)
          << "worker " << w << ", ports " << p << " and " << p + 1;
    }
  }
}

// Per-worker tx queues (unshaped, tx queues ≥ workers): each worker drains only its own queue of
// each port, and the port's depth still counts both.
TEST_F(TwoWorkers, PerWorkerTxQueuesDrainTheirOwnQueues) {
  start(/*shaping=*/false, /*tx_queues=*/2);
  ASSERT_TRUE(rt_->per_worker_tx());
  send(0, 32);
  send(1, 32);
  // Unshaped frames for an empty queue may go straight to the device only with set_direct_tx:
  // here they queue.
  uint32_t total = 0;
  for (uint16_t p = 0; p < kPorts; ++p) total += rt_->depth_packets_now(p);
  EXPECT_EQ(total, 64u);
  std::array<uint64_t, kPorts> sent0{}, sent1{};
  drain(0, sent0);
  uint32_t left = 0;
  for (uint16_t p = 0; p < kPorts; ++p) left += rt_->depth_packets_now(p);
  EXPECT_EQ(left, 32u) << "worker 0 drained worker 1's queues";
  drain(1, sent1);
  uint64_t n0 = 0, n1 = 0;
  for (uint16_t p = 0; p < kPorts; ++p) {
    n0 += sent0[p];
    n1 += sent1[p];
    EXPECT_EQ(rt_->depth_packets_now(p), 0u);
  }
  EXPECT_EQ(n0, 32u);
  EXPECT_EQ(n1, 32u);
  EXPECT_THROW(rt_->set_port_rate(2, 1e9), std::invalid_argument);
}

}  // namespace
}  // namespace spraylab::dataplane

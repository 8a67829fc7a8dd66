// spraylab-gen's host engine obeys 802.1Qbb pauses on a real DPDK port (net_ring, through
// rte_eth_rx_burst / rte_eth_tx_burst): the test is the host's leaf. It puts a PFC frame in the
// port's receive ring and reads the transmit ring while it polls the engine on a clock of its own
// (ns, no TSC), so "nothing sent until the pause ends" is exact, not a wall-clock guess.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "conf/loader.h"
#include "net/pfc_frame.h"
#include "net/ports.h"
#include "tests/integration/test_eal.h"
#include "topo/build.h"
#include "trafficgen/host_engine.h"
#include "trafficgen/host_plan.h"

namespace spraylab::gen {
namespace {

// h0 sends one 256 KB message to h2 (behind the spine) at 1 Gb/s links: a quantum is 512 ns.
constexpr char kExperiment[] = R"(
seed: 3
topology: {generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2}
links: {rate: 1Gbps, delay: 1us}
buffer: {bytes: 64KB}
load_balancer: {algorithm: ofan}
workload: {type: incast, fan_in: 1, message_size: 256KB, payload: 1000}
)";
constexpr uint64_t kStart = 1000;  // ns: the run's start on the test's clock
constexpr uint64_t kQuantumNs = 512;

// One ring port for the suite (a closed ring port's name cannot be reused in DPDK 22.11); each
// test a fresh engine on it.
class GenPfcOnRing : public ::testing::Test {
 protected:
  static inline rte_ring* to_gen_ = nullptr;
  static inline rte_ring* from_gen_ = nullptr;
  static inline rte_mempool* pool_ = nullptr;
  static inline std::vector<net::PortState>* ports_ = nullptr;
  static inline RunPlan* plan_ = nullptr;

  static void SetUpTestSuite() {
    ASSERT_TRUE(spraylab::testing::init_test_eal("pfc_ring_test", 256)) << "EAL init failed";
    to_gen_ = rte_ring_create("to_gen", 1024, SOCKET_ID_ANY, 0);
    from_gen_ = rte_ring_create("from_gen", 4096, SOCKET_ID_ANY, 0);
    ASSERT_TRUE(to_gen_ != nullptr && from_gen_ != nullptr);
    ASSERT_EQ(rte_eth_from_rings("net_ring_gen0", &to_gen_, 1, &from_gen_, 1, 0), 0);
    ports_ = new std::vector<net::PortState>(net::start_ports(1, net::PortSetup{}, &pool_));
    const conf::Experiment exp = conf::load_experiment_string(kExperiment, "pfc_ring.yaml");
    const topo::Topology t = topo::build(exp.topology, exp.links);
    HostPlanOptions o = options_from_experiment(exp, t);
    // Which host sends depends on the incast's draw: take the sender of message 0.
    plan_ = new RunPlan(make_run_plan(exp, o));
    const uint32_t sender = plan_->schedule.messages.at(0).src;
    char name[16];
    std::snprintf(name, sizeof(name), "h%u", sender);  // placement rank: rank r on host r
    o.hosts = {name};
    o.port_map = {0};
    o.rate_bps = 0;  // unpaced: every frame the engine has goes to its tx slots at once
    *plan_ = make_run_plan(exp, o);
  }
  static void TearDownTestSuite() {
    if (ports_ != nullptr) net::stop_ports(*ports_);
    delete ports_;
    delete plan_;
  }

  void SetUp() override {
    ASSERT_NE(plan_, nullptr);
    drain();
    EngineSetup s;
    s.plan = plan_;
    s.hosts = {0};
    s.pool = pool_;
    s.tsc_hz = 1'000'000'000;  // the clock is ns
    s.start_tsc = kStart;
    s.tsc_clock = false;
    engine_ = std::make_unique<HostEngine>(s);
  }
  void TearDown() override {
    engine_.reset();
    drain();
  }

  // The frames the engine sent since the last call (freed).
  static unsigned drain() {
    std::array<void*, 256> got;
    unsigned total = 0, n;
    while ((n = rte_ring_dequeue_burst(from_gen_, got.data(), got.size(), nullptr)) > 0) {
      for (unsigned i = 0; i < n; ++i) rte_pktmbuf_free(static_cast<rte_mbuf*>(got[i]));
      total += n;
    }
    return total;
  }
  // The leaf sends the host PFC frame `f`.
  static void receive(const net::PfcFrame& f) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    ASSERT_NE(m, nullptr);
    auto* b = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, net::kPfcFrameBytes));
    ASSERT_NE(b, nullptr);
    net::build_pfc(b, {0x06, 0, 0, 0, 0, 0}, f);
    ASSERT_EQ(rte_ring_enqueue(to_gen_, m), 0);
  }
  uint64_t counter(GenCounter c) const { return engine_->counter(c); }

  std::unique_ptr<HostEngine> engine_;
};

TEST_F(GenPfcOnRing, APauseHoldsEveryFrameForItsQuantaThenTheyGo) {
  constexpr uint16_t kQuanta = 100;  // 51.2 us at 1 Gb/s
  receive(net::PfcFrame::for_class(net::kPfcDataClass, kQuanta));
  const uint64_t until = kStart + kQuanta * kQuantumNs;
  engine_->poll(kStart);  // the pause arrives as the message starts
  EXPECT_EQ(counter(GenCounter::kRxPfcPause), 1u);
  EXPECT_GT(engine_->tx_pending(), 0u) << "the message's frames wait in the engine";
  EXPECT_EQ(engine_->next_wake(kStart), until) << "its next turn is the pause's end";
  for (uint64_t t = kStart; t < until; t += 1000) {
    engine_->poll(t);
    ASSERT_EQ(drain(), 0u) << "a frame left at " << t << " ns, the pause ends at " << until;
  }
  engine_->poll(until - 1);
  EXPECT_EQ(drain(), 0u);
  EXPECT_EQ(counter(GenCounter::kPfcPausedNs), until - 1 - kStart);
  engine_->poll(until);
  EXPECT_GT(drain(), 0u) << "the frames go when the pause ends";
  engine_->poll(until + 1'000'000);
  EXPECT_EQ(counter(GenCounter::kPfcPausedNs), kQuanta * kQuantumNs);
  EXPECT_EQ(counter(GenCounter::kRxPfcResume), 0u);
}

TEST_F(GenPfcOnRing, AResumeReleasesThePausedFramesAtOnce) {
  receive(net::PfcFrame::for_class(net::kPfcDataClass, net::kPfcMaxQuanta));
  engine_->poll(kStart);
  engine_->poll(kStart + 5000);
  EXPECT_EQ(drain(), 0u);
  receive(net::PfcFrame::for_class(net::kPfcDataClass, 0));
  engine_->poll(kStart + 7000);
  EXPECT_GT(drain(), 0u) << "resumed, 33 ms before the pause would have run out";
  EXPECT_EQ(counter(GenCounter::kRxPfcResume), 1u);
  EXPECT_EQ(counter(GenCounter::kPfcPausedNs), 7000u);
}

TEST_F(GenPfcOnRing, APauseOfAnotherClassStopsNothing) {
  receive(net::PfcFrame::for_class(3, net::kPfcMaxQuanta));
  engine_->poll(kStart);
  EXPECT_GT(drain(), 0u);
  EXPECT_EQ(counter(GenCounter::kRxPfcPause), 1u);
  EXPECT_EQ(counter(GenCounter::kPfcPausedNs), 0u);
}

TEST_F(GenPfcOnRing, AMacControlFrameThatIsNoPfcIsCountedAndConsumed) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  ASSERT_NE(m, nullptr);
  auto* b = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, net::kPfcFrameBytes));
  ASSERT_NE(b, nullptr);
  net::build_pfc(b, {6, 0, 0, 0, 0, 0}, net::PfcFrame::for_class(0, net::kPfcMaxQuanta));
  b[15] = 0x01;  // opcode 0x0101 -> 0x0001: 802.3x PAUSE, not PFC
  b[14] = 0x00;
  ASSERT_EQ(rte_ring_enqueue(to_gen_, m), 0);
  engine_->poll(kStart);
  EXPECT_EQ(counter(GenCounter::kRxBadControl), 1u);
  EXPECT_EQ(counter(GenCounter::kRxForeign), 0u);
  EXPECT_GT(drain(), 0u) << "not a pause: nothing held";
}

}  // namespace
}  // namespace spraylab::gen

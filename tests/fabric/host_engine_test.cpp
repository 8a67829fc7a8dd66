// The generator's host engine driven by hand: a clock the test sets, a tx that records every
// frame, no rx. Pins down the order in which one host sends its messages' packets.
#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "conf/loader.h"
#include "trafficgen/host_engine.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/packet.h"

namespace spraylab::gen {
namespace {

// h0 sends 64 KB to h1 from t = 0 and 64 KB to h2 from t = 1 us: 1000 packets of 64 B each.
constexpr char kTrace[] =
    "start_ns,src,dst,bytes,depends_on\n"
    "0,0,1,64000,\n"
    "1000,0,2,64000,\n";

// h0 of a three-host leaf running kTrace: the plan, a pool, and an engine setup whose tx
// records the message id of every data frame and whose clock is the test's (one tick per ns).
class EngineRig {
 public:
  explicit EngineRig(const std::string& tag)
      : trace_(testing::TempDir() + "/spraylab_host_engine_" + tag + "_" +
               std::to_string(getpid()) + ".csv") {
    std::ofstream(trace_) << kTrace;
    const conf::Experiment exp = conf::load_experiment_string(
        "topology: {generator: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 3}\n"
        "workload: {type: trace, trace_file: " +
            trace_ + ", payload: 64}\n",
        "engine.yaml");
    HostPlanOptions o;
    o.hosts = {"h0"};
    o.retransmit_timeout_ns = 1'000'000'000;  // no retransmissions while the test runs
    plan_ = make_run_plan(exp, o);
    pool_ = rte_pktmbuf_pool_create(("engine_" + tag).c_str(), 4096, 0, 0,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    setup.plan = &plan_;
    setup.hosts = {0};
    setup.pool = pool_;
    setup.tsc_hz = 1'000'000'000;
    setup.tsc_clock = false;
    setup.rx = [](uint16_t, rte_mbuf**, uint16_t) -> uint16_t { return 0; };
    setup.tx = [this](uint16_t, rte_mbuf** m, uint16_t n) {
      for (uint16_t i = 0; i < n; ++i) {
        TestbedHeader h;
        const auto* p = rte_pktmbuf_mtod(m[i], const uint8_t*);
        if (decode(p + 42, rte_pktmbuf_data_len(m[i]) - 42u, &h) && (h.flags & kData)) {
          sent.push_back(h.message_id);
        }
      }
      rte_pktmbuf_free_bulk(m, n);
      return n;
    };
  }
  ~EngineRig() {
    rte_mempool_free(pool_);
    std::remove(trace_.c_str());
  }
  bool ok() const { return pool_ != nullptr; }

  EngineSetup setup;
  std::vector<uint32_t> sent;  // message id of every data frame, in order

 private:
  std::string trace_;
  RunPlan plan_;
  rte_mempool* pool_ = nullptr;
};

// Round robin per packet across a host's active messages, and one rule for where it stands:
// a message that becomes active while another is sending goes next, whether the first sent its
// packets one by one or as a run (host_engine.cpp, next_run()).
TEST(HostEngine, AMessageStartingWhileAnotherSendsGoesNextThenTheyAlternate) {
  EngineRig rig("alternate");
  ASSERT_TRUE(rig.ok());
  HostEngine engine(rig.setup);
  std::vector<uint32_t>& sent = rig.sent;
  engine.poll(0);  // message 0 starts and sends a turn's worth, alone
  const size_t alone = sent.size();
  ASSERT_GT(alone, 1u);
  for (size_t i = 0; i < alone; ++i) ASSERT_EQ(sent[i], 0u) << "frame " << i;
  engine.poll(2000);  // message 1 has started: it goes first, then they alternate
  ASSERT_GT(sent.size(), alone + 4);
  for (size_t i = alone; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i], (i - alone) % 2 == 0 ? 1u : 0u) << "frame " << i;
  }
}

// spraylab-gen --start-file: the engines exist (and serve metrics) before the start is known;
// move_start() shifts the first messages and the pacer to it.
TEST(HostEngine, MovedStartSendsNothingBeforeItAndTheSameAfter) {
  EngineRig rig("move");
  ASSERT_TRUE(rig.ok());
  rig.setup.start_tsc = 100;
  HostEngine engine(rig.setup);
  std::vector<uint32_t>& sent = rig.sent;
  engine.move_start(50'000);
  EXPECT_EQ(engine.next_wake(100), 50'000u);  // message 0's start, not the setup's
  EXPECT_FALSE(engine.poll(49'999));
  EXPECT_TRUE(sent.empty());
  engine.poll(50'000);  // message 0 alone, as at t = 0 of the other test
  ASSERT_GT(sent.size(), 1u);
  for (uint32_t id : sent) EXPECT_EQ(id, 0u);
  const size_t alone = sent.size();
  engine.poll(50'999);  // message 1 starts 1 us after the moved start, not before
  for (size_t i = alone; i < sent.size(); ++i) EXPECT_EQ(sent[i], 0u);
  engine.poll(52'000);
  ASSERT_GT(sent.size(), alone + 2);
  EXPECT_NE(std::find(sent.begin() + alone, sent.end(), 1u), sent.end());
}

// The fabric's engines share one message table (EngineSetup::message_slots): each engine writes
// its own messages' entries and leaves the others' alone, so every message's entry names its
// sender's send state and its receiver's receive state, whatever the order the engines were built.
TEST(HostEngine, EnginesSharingAMessageTableEachFindTheirOwnMessages) {
  const std::string trace =
      testing::TempDir() + "/spraylab_host_engine_shared_" + std::to_string(getpid()) + ".csv";
  std::ofstream(trace) << "start_ns,src,dst,bytes,depends_on\n"
                          "0,0,1,6400,\n0,1,2,6400,\n0,2,0,6400,\n0,0,2,6400,\n";
  const conf::Experiment exp = conf::load_experiment_string(
      "topology: {generator: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 3}\n"
      "workload: {type: trace, trace_file: " +
          trace + ", payload: 64}\n",
      "engine.yaml");
  HostPlanOptions o;
  o.hosts = {"h0", "h1", "h2"};
  const RunPlan plan = make_run_plan(exp, o);
  std::remove(trace.c_str());
  rte_mempool* pool = rte_pktmbuf_pool_create("engine_shared", 1024, 0, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(pool, nullptr);
  MessageSlots shared;
  std::vector<std::unique_ptr<HostEngine>> engines;
  for (std::vector<uint32_t> hosts : {std::vector<uint32_t>{1}, {0, 2}}) {
    EngineSetup s;
    s.plan = &plan;
    s.hosts = hosts;
    s.pool = pool;
    s.tsc_hz = 1'000'000'000;
    s.tsc_clock = false;
    s.message_slots = &shared;
    s.rx = [](uint16_t, rte_mbuf**, uint16_t) -> uint16_t { return 0; };
    s.tx = [](uint16_t, rte_mbuf** m, uint16_t n) {
      rte_pktmbuf_free_bulk(m, n);
      return n;
    };
    engines.push_back(std::make_unique<HostEngine>(s));
  }
  ASSERT_EQ(shared.send.size(), 4u);
  ASSERT_EQ(shared.recv.size(), 4u);
  // Engine 0 has h1 (sends message 1, receives 0); engine 1 has h0 and h2 (the rest).
  const auto owner = [](uint32_t host) { return host == 1 ? 0u : 1u; };
  const uint32_t src[] = {0, 1, 2, 0}, dst[] = {1, 2, 0, 2};
  for (uint32_t m = 0; m < 4; ++m) {
    const HostEngine& se = *engines[owner(src[m])];
    const HostEngine& re = *engines[owner(dst[m])];
    ASSERT_GE(shared.send[m], 0) << "message " << m;
    ASSERT_LT(static_cast<size_t>(shared.send[m]), se.sends().size());
    EXPECT_EQ(se.sends()[shared.send[m]].id, m);
    ASSERT_GE(shared.recv[m], 0) << "message " << m;
    ASSERT_LT(static_cast<size_t>(shared.recv[m]), re.recvs().size());
    EXPECT_EQ(re.recvs()[shared.recv[m]].id, m);
  }
  engines.clear();
  rte_mempool_free(pool);
}

}  // namespace

// spraylab-gen's times are the realtime clock's (EngineSetup::epoch_tsc, epoch_ns): two
// generators of one fabric, whose TSC rate estimates differ a little, still agree on when a TSC
// reading was. Counted from boot, as before, the same reading an hour into the machine's uptime
// was 0.36 s apart in two such processes: the namespaced fabric's merged CCT took it for time.
TEST(HostEngine, TimesCountFromTheEpochSoProcessesWithSlightlyDifferentTscRatesAgree) {
  EngineRig a("epoch_a"), b("epoch_b");
  ASSERT_TRUE(a.ok() && b.ok());
  const uint64_t hz = 2'000'000'000;
  const uint64_t epoch_tsc = 3600 * hz;  // an hour after boot
  const uint64_t epoch_ns = 1'800'000'000'000'000'000;
  a.setup.tsc_hz = hz;
  b.setup.tsc_hz = hz + hz / 10'000;  // 0.01 % off
  for (EngineRig* r : {&a, &b}) {
    r->setup.epoch_tsc = epoch_tsc;
    r->setup.epoch_ns = epoch_ns;
  }
  HostEngine ea(a.setup), eb(b.setup);
  const uint64_t one_s_later = epoch_tsc + hz;
  EXPECT_EQ(ea.ns_of(epoch_tsc), epoch_ns);
  EXPECT_EQ(ea.ns_of(one_s_later), epoch_ns + 1'000'000'000);
  // One second after the epoch the two disagree by the rate error over that second only.
  const int64_t apart = static_cast<int64_t>(ea.ns_of(one_s_later) - eb.ns_of(one_s_later));
  EXPECT_LT(std::abs(apart), 200'000) << apart << " ns";
  // A reading before the epoch (a peer's timestamp) counts back from it.
  EXPECT_EQ(ea.ns_of(epoch_tsc - hz), epoch_ns - 1'000'000'000);
  // Without an epoch the emulated fabric's clock is its own ns, as ever.
  EngineRig c("epoch_c");
  ASSERT_TRUE(c.ok());
  c.setup.tsc_hz = 1'000'000'000;
  HostEngine ec(c.setup);
  EXPECT_EQ(ec.ns_of(123'456'789), 123'456'789u);
}

}  // namespace spraylab::gen

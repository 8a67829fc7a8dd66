// The generator's host engine driven by hand: a clock the test sets, a tx that records every
// frame, no rx. Pins down the order in which one host sends its messages' packets.
#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
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

// Round robin per packet across a host's active messages, and one rule for where it stands:
// a message that becomes active while another is sending goes next, whether the first sent its
// packets one by one or as a run (host_engine.cpp, next_run()).
TEST(HostEngine, AMessageStartingWhileAnotherSendsGoesNextThenTheyAlternate) {
  const std::string trace =
      testing::TempDir() + "/spraylab_host_engine_test_" + std::to_string(getpid()) + ".csv";
  std::ofstream(trace) << kTrace;
  const conf::Experiment exp = conf::load_experiment_string(
      "topology: {generator: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 3}\n"
      "workload: {type: trace, trace_file: " +
          trace + ", payload: 64}\n",
      "engine.yaml");
  GenOptions o;
  o.hosts = {"h0"};
  o.retransmit_timeout_ns = 1'000'000'000;  // no retransmissions while the test runs
  const RunPlan plan = make_run_plan(exp, o);
  rte_mempool* pool =
      rte_pktmbuf_pool_create("engine_test", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(pool, nullptr);

  std::vector<uint32_t> sent;  // message id of every data frame, in order
  EngineSetup s;
  s.plan = &plan;
  s.hosts = {0};
  s.pool = pool;
  s.tsc_hz = 1'000'000'000;  // one tick per ns
  s.tsc_clock = false;
  s.rx = [](uint16_t, rte_mbuf**, uint16_t) -> uint16_t { return 0; };
  s.tx = [&sent](uint16_t, rte_mbuf** m, uint16_t n) {
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
  {
    HostEngine engine(s);
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
  rte_mempool_free(pool);
  std::remove(trace.c_str());
}

}  // namespace
}  // namespace spraylab::gen

// Two switch workers on net_ring ports, both pinned to one CPU so that the scheduler preempts
// each in the middle of its loop, while traffic from both host ports crosses to uplinks the other
// worker owns (ports are owned by port % 2). With every buffer far from full nothing may be lost
// or dropped, and every queue's depth must come back to 0.
//
// This is the one multi-worker test without memif. It was written for the race Forwarder::flush()
// closes (a queue's depth raised after its packets were visible to the port's owner, which could
// send and subtract them first, wrap the unsigned depth and tail-drop its own traffic to that
// port), but it did not catch the old order in six runs of 2-8 s: that needs a preemption within
// a few instructions. It checks the cross-worker path, not that race.
#include <gtest/gtest.h>
#include <pthread.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <sched.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "conf/loader.h"
#include "net/ports.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/dataplane/worker.h"
#include "tests/dataplane/ring_switch.h"
#include "topo/addressing.h"
#include "topo/build.h"
#include "topo/routing.h"

namespace spraylab::dataplane {
namespace {

// leaf0 of test::kLeafSpine: ports 0-1 face h0 and h1, 2-5 the spines; h2 and h3 are on leaf1.
constexpr uint16_t kPorts = test::kLeafPorts;
constexpr uint32_t kInFlight = 1024;  // frames in the switch at most: 60 KB against 800 KB buffers
constexpr uint64_t kFrames = 20'000;  // every frame crosses two workers' scheduling

TEST(SwitchWorkers, CrossWorkerTrafficIsNeitherLostNorDroppedUnderPreemption) {
  ASSERT_TRUE(test::init_eal("switch_workers_test")) << "EAL init failed";

  const conf::Experiment exp = conf::load_experiment_string(test::kLeafSpine, "workers.yaml");
  const topo::Topology topology = topo::build(exp.topology, exp.links);
  const topo::Routing routing(topology);
  const topo::AddressPlan plan(routing);
  std::array<rte_ring*, kPorts> to_switch{}, from_switch{};
  for (uint16_t p = 0; p < kPorts; ++p) {
    const std::string n = std::to_string(p);
    to_switch[p] = rte_ring_create(("to_sw" + n).c_str(), 1024, SOCKET_ID_ANY, 0);
    from_switch[p] = rte_ring_create(("from_sw" + n).c_str(), 4096, SOCKET_ID_ANY, 0);
    ASSERT_NE(to_switch[p], nullptr);
    ASSERT_NE(from_switch[p], nullptr);
    ASSERT_EQ(
        rte_eth_from_rings(("net_ring_w" + n).c_str(), &to_switch[p], 1, &from_switch[p], 1, 0), p);
  }
  rte_mempool* pool =
      rte_pktmbuf_pool_create("test_frames", 8192, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(pool, nullptr);
  rte_mempool* switch_pool = nullptr;
  std::vector<net::PortState> ports = net::start_ports(kPorts, net::PortSetup{}, &switch_pool);
  RuntimeOptions ro;
  ro.shaping = false;
  ro.routing = &routing;
  ro.workers = 2;
  SwitchRuntime rt(build_switch_tables(exp, routing, plan, "leaf0"), ro);
  const std::vector<WorkerPlan> plans = plan_workers(2, kPorts, std::vector<uint16_t>(kPorts, 1));

  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  cpu_set_t one_cpu;
  CPU_ZERO(&one_cpu);
  CPU_SET(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1, &one_cpu);
  for (const WorkerPlan& wp : plans) {
    workers.emplace_back([&rt, &wp, &stop] { run_worker(rt, wp, stop); });
    ASSERT_EQ(pthread_setaffinity_np(workers.back().native_handle(), sizeof one_cpu, &one_cpu), 0)
        << "cannot pin the workers to one CPU: they would not preempt each other";
  }

  // h0 (port 0, worker 0) to h2 and h1 (port 1, worker 1) to h3: Ofan spreads both over the four
  // uplinks, two owned by each worker.
  const uint32_t h0 = plan.host_ip(topology.find("h0")), h1 = plan.host_ip(topology.find("h1"));
  const uint32_t h2 = plan.host_ip(topology.find("h2")), h3 = plan.host_ip(topology.find("h3"));
  uint64_t sent = 0, received = 0;
  const auto take = [&] {
    for (uint16_t p = 0; p < kPorts; ++p) {
      rte_mbuf* m[64];
      const unsigned n =
          rte_ring_dequeue_burst(from_switch[p], reinterpret_cast<void**>(m), 64, nullptr);
      received += n;
      rte_pktmbuf_free_bulk(m, n);
    }
  };
  // A fixed amount of traffic, however fast the machine: the property is about every frame, and
  // a preempted worker only makes the run longer. The deadline only turns a hang into a message.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (sent < kFrames && std::chrono::steady_clock::now() < give_up) {
    take();
    for (uint16_t in = 0; in < 2 && sent < kFrames && sent - received < kInFlight; ++in) {
      rte_mbuf* m = test::udp_frame(pool, in ? h1 : h0, in ? h3 : h2,
                                    static_cast<uint16_t>(1000 + sent % 50000));
      if (m == nullptr) break;
      if (rte_ring_enqueue(to_switch[in], m) == 0) {
        ++sent;
      } else {
        rte_pktmbuf_free(m);
      }
    }
  }
  for (; received < sent && std::chrono::steady_clock::now() < give_up;) {
    take();
  }
  stop.store(true);
  for (std::thread& t : workers) t.join();

  uint64_t drops[kDropReasons] = {};
  for (uint16_t p = 0; p < kPorts; ++p) {
    for (size_t r = 0; r < kDropReasons; ++r)
      drops[r] += rt.sum_drops(p, static_cast<DropReason>(r));
  }
  EXPECT_EQ(sent, kFrames) << "the workers stopped taking frames for 90 s";
  EXPECT_EQ(drops[static_cast<size_t>(DropReason::kQueueFull)], 0u)
      << "queue_full drops with every buffer under 8% full: a queue's depth was misread";
  for (size_t r = 0; r < kDropReasons; ++r) EXPECT_EQ(drops[r], 0u) << kDropReasonNames[r];
  EXPECT_EQ(received, sent);
  for (uint16_t p = 0; p < kPorts; ++p) EXPECT_EQ(rt.depth_packets_now(p), 0u) << "port " << p;
  net::stop_ports(ports);
}

}  // namespace
}  // namespace spraylab::dataplane

// Virtual time: determinism, completion against the CCT lower bound, and exact serialisation.
#include <gtest/gtest.h>

#include <rte_mbuf.h>

#include <cstring>
#include <vector>

#include "fabric/emu/fabric.h"
#include "fabric/emu/mbuf_pool.h"
#include "fabric/emu/run_fabric.h"
#include "fabric/emu/virtual_run.h"
#include "fabric/run/result.h"
#include "switch/dataplane/counters.h"
#include "tests/fabric/fabric_test_util.h"
#include "trafficgen/cct_bound.h"
#include "trafficgen/host_plan.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;
using testing::fat_tree_16;

std::string samples_text(const FabricResult& r) {
  std::string s;
  for (const QueueSample& q : r.samples) {
    s += std::to_string(q.t_ns) + "," + std::to_string(q.port_index) + "," +
         std::to_string(q.packets) + "," + std::to_string(q.bytes) + "\n";
  }
  return s;
}

TEST(VirtualFabric, TwoRunsWithOneSeedGiveIdenticalResults) {
  for (const char* alg : {"ofan", "rps", "jsq"}) {
    const conf::Experiment e = experiment(fat_tree_16(alg));
    const FabricResult a = testing::run_virtual(e);
    const FabricResult b = testing::run_virtual(e);
    ASSERT_TRUE(a.completed) << alg << ": " << gen::to_string(a.stopped_by);
    EXPECT_EQ(a.generator.dump(), b.generator.dump()) << alg;
    EXPECT_EQ(samples_text(a), samples_text(b)) << alg;
    EXPECT_EQ(a.clock_ns, b.clock_ns) << alg;
    EXPECT_EQ(a.events, b.events) << alg;
    ASSERT_EQ(a.ports.size(), b.ports.size());
    for (size_t i = 0; i < a.ports.size(); ++i) {
      EXPECT_EQ(a.ports[i].max_bytes, b.ports[i].max_bytes) << alg << " port " << i;
      EXPECT_EQ(a.ports[i].tx_packets, b.ports[i].tx_packets) << alg << " port " << i;
    }
  }
}

TEST(VirtualFabric, AnotherSeedGivesAnotherRun) {
  // The determinism test could pass with a fabric that ignores its seed; this one could not.
  const FabricResult a = testing::run_virtual(experiment(fat_tree_16("rps", 1)));
  const FabricResult b = testing::run_virtual(experiment(fat_tree_16("rps", 2)));
  EXPECT_NE(samples_text(a), samples_text(b));
}

TEST(VirtualFabric, EveryMessageIsAcknowledgedAndCctIsAboveTheBound) {
  for (const char* alg : {"ecmp", "rps", "rr", "ofan", "pofan", "jsq", "psp"}) {
    const FabricResult r = testing::run_virtual(experiment(fat_tree_16(alg)));
    ASSERT_TRUE(r.completed) << alg << ": " << gen::to_string(r.stopped_by);
    const auto& g = r.generator;
    EXPECT_TRUE(g["completed"].get<bool>());
    ASSERT_EQ(g["messages"].size(), 16u);
    for (const auto& m : g["messages"]) {
      EXPECT_TRUE(m["completed"].get<bool>()) << alg << " message " << m["id"];
    }
    EXPECT_EQ(g["reordering"]["messages_complete"].get<uint64_t>(), 16u) << alg;
    const auto& c = g["collectives"][0];
    const double cct = c["cct_ns"].get<double>();
    const double bound = c["bound_ns"].get<double>();
    EXPECT_GE(cct, bound) << alg;
    // A 64 KB permutation on an uncongested k = 4 fat tree: even ECMP's collisions cost at
    // most a few message times, not the retransmission timeout (1 ms).
    EXPECT_LT(cct, 4 * bound) << alg;
    EXPECT_EQ(g["loss"]["timeouts"].get<uint64_t>(), 0u) << alg;
    // Every frame the switches sent left on some port, and nothing was dropped.
    uint64_t tx = 0, drops = 0;
    for (const PortSummary& p : r.ports) {
      tx += p.tx_packets;
      drops += p.drops;
      EXPECT_LE(p.utilisation, 1.0 + 1e-9) << alg << " " << p.switch_name << ":" << p.port;
    }
    EXPECT_GT(tx, 0u);
    EXPECT_EQ(drops, 0u) << alg;
  }
}

// Two hosts exchanging one message each over one path (a leaf-spine with a single spine): the
// permutation bound's model exactly (each host link carries its data and the ACKs of the data
// it receives), so the CCT must equal the bound: within the whole-ns rounding of arrivals (at
// most 1 ns a hop: 4 data hops, 4 ACK hops) above, and within one gap (20 B) below: the bound
// has the last data frame's gap pass before it travels on, the link has the frame go first.
// Messages are whole packets: a short last packet queues behind the full one before it at every
// hop, which the bound leaves out.
TEST(VirtualFabric, SerialisationIsExactAtAnyRate) {
  for (const double gbps : {800.0, 100.0, 25.0, 3.0}) {
    for (const uint64_t packets : {256, 100, 3}) {
      const conf::Experiment e = experiment(R"(
seed: 3
topology: {generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 1}
links: {rate: )" + std::to_string(gbps) + R"(Gbps, delay: 500ns}
load_balancer: {algorithm: ofan}
workload: {type: permutation, message_size: )" +
                                            std::to_string(packets * 4096) + R"(, payload: 4096}
measurement: {queue_sample: 1us}
)");
      const FabricResult r = testing::run_virtual(e);
      ASSERT_TRUE(r.completed) << gbps;
      const auto& c = r.generator["collectives"][0];
      ASSERT_EQ(c["hops"].get<uint32_t>(), 4u);
      ASSERT_EQ(c["bound"]["packets"].get<uint64_t>(), packets);
      const double bound = c["bound_ns"].get<double>();
      const double cct = c["cct_ns"].get<double>();
      const double gap_ns = 20 * 8 / gbps;
      EXPECT_GE(cct, bound - gap_ns - 1) << gbps << " Gb/s, " << packets << " packets";
      EXPECT_LE(cct, bound + 8 + 1) << gbps << " Gb/s, " << packets << " packets";
    }
  }
}

TEST(VirtualFabric, QueueSamplesCoverEveryPortEveryPeriod) {
  const FabricResult r = testing::run_virtual(experiment(fat_tree_16("ofan")));
  ASSERT_FALSE(r.samples.empty());
  // k = 4, 3 levels: 20 switches of 4 ports.
  ASSERT_EQ(r.ports.size(), 80u);
  EXPECT_EQ(r.samples.size() % r.ports.size(), 0u);
  for (size_t i = 0; i < r.samples.size(); ++i) {
    EXPECT_EQ(r.samples[i].port_index, i % r.ports.size());
    EXPECT_EQ(r.samples[i].t_ns, (i / r.ports.size()) * 200);
  }
  // The exact maxima cannot be below what the samples saw.
  for (const QueueSample& q : r.samples) {
    EXPECT_LE(q.bytes, r.ports[q.port_index].max_bytes);
  }
}

// A run that never completes (a host cut off by failed links retransmits for ever) once grew to
// 9 GB of queue samples; past FabricOptions::max_queue_samples the series is thinned instead,
// still evenly spaced, and the run's results do not change.
TEST(VirtualFabric, QueueSamplesStayBelowTheirLimitAndEvenlySpaced) {
  const conf::Experiment e = experiment(fat_tree_16("ofan"));
  const FabricResult full = testing::run_virtual(e);
  FabricOptions o;
  o.mode = Mode::kVirtual;
  o.max_wall_seconds = 60;
  o.max_queue_samples = 80 * 10;  // ten sampling times of the 80 ports
  const FabricResult r = run_fabric(e, o);
  ASSERT_TRUE(r.completed);
  EXPECT_EQ(full.queue_sample_halvings, 0u);
  ASSERT_GT(r.queue_sample_halvings, 0u);
  EXPECT_LT(r.samples.size(), o.max_queue_samples);
  ASSERT_FALSE(r.samples.empty());
  EXPECT_EQ(r.samples.size() % r.ports.size(), 0u);
  const uint64_t every = uint64_t{200} << r.queue_sample_halvings;
  for (size_t i = 0; i < r.samples.size(); ++i) {
    EXPECT_EQ(r.samples[i].t_ns, (i / r.ports.size()) * every) << i;
  }
  EXPECT_EQ(r.generator.dump(), full.generator.dump());  // the workload ran the same
  for (size_t i = 0; i < r.ports.size(); ++i)
    EXPECT_EQ(r.ports[i].max_bytes, full.ports[i].max_bytes);
}

// Frames are dropped only where a queue is full: never for a loop (TTL), a missing route or a
// down port, whatever the topology and algorithm (a 3-level fat tree's aggregation switches once
// sent a pod's traffic down to a leaf of their own pod under Ofan).
TEST(VirtualFabric, FramesAreDroppedOnlyByFullQueues) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"topology: {generator: fat-tree, k: 4, levels: 3}\n",
       {"ofan", "pofan", "ecmp", "rps", "jsq"}},
      {"topology: {generator: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 3}\n",
       {"ofan", "rr", "psp"}},
      {"topology: {generator: mrls, leaves: 10, uplinks: 3, downlinks: 2}\n",
       {"polarized", "ofan", "ksp"}},
  };
  for (const auto& [topology, algorithms] : cases) {
    for (const std::string& alg : algorithms) {
      conf::Experiment e = experiment(topology + "load_balancer: {algorithm: " + alg + "}\n" +
                                      "workload: {type: all-to-all, message_size: 32KB}\n");
      Fabric f(e, Mode::kVirtual);
      FabricOptions o;
      const RunOutcome r = run_virtual(f, o, UINT64_MAX);
      EXPECT_TRUE(r.completed) << topology << alg;
      for (const auto& sw : f.switches()) {
        for (uint16_t p = 0; p < sw->runtime().ports(); ++p) {
          for (auto reason : {dataplane::DropReason::kTtlExpired, dataplane::DropReason::kNoRoute,
                              dataplane::DropReason::kPortDown}) {
            EXPECT_EQ(sw->runtime().sum_drops(p, reason), 0u)
                << topology << alg << " " << sw->runtime().tables().name << ":" << p << " "
                << dataplane::kDropReasonNames[static_cast<size_t>(reason)];
          }
        }
      }
    }
  }
}

// Every frame a switch dropped, for any reason, over the whole fabric.
uint64_t switch_drops(const Fabric& f) {
  uint64_t n = 0;
  for (const auto& sw : f.switches()) {
    for (uint16_t p = 0; p < sw->runtime().ports(); ++p) {
      for (size_t reason = 0; reason < dataplane::kDropReasons; ++reason) {
        n += sw->runtime().sum_drops(p, static_cast<dataplane::DropReason>(reason));
      }
    }
  }
  return n;
}

// The algorithms that route by the (source, destination) leaf pair need a route per destination
// leaf at every switch: a 3-level fat tree's aggregation switches once had one route per remote
// pod (Ofan's consolidation), which names no leaf, and KSP and Polarized dropped every frame
// leaving a pod (conf/examples/demo.yaml with ksp: 6 of 16 messages, 13.3 M switch drops). The
// demo's own fabric and workload first, then every generator's small shape; a clock limit far
// beyond the demo's 0.1 ms ends a run that would retransmit forever.
TEST(VirtualFabric, LeafPairRoutingsDeliverEveryMessageWithoutADropOnEveryGenerator) {
  const std::string demo =
      "topology: {generator: fat-tree, k: 4, levels: 3}\n"
      "workload: {type: permutation, message_size: 1MB, payload: 4096}\n";
  const std::string small = "workload: {type: permutation, message_size: 64KB, payload: 4096}\n";
  // Polarized needs a leveled graph: a Dragonfly's router links and a Dragonfly+'s spine links
  // join switches at one distance (a start-up error names it).
  const std::vector<std::string> both = {"ksp", "polarized"};
  const std::vector<std::string> ksp = {"ksp"};
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {demo, both},
      {"topology: {generator: fat-tree, k: 4, levels: 2}\n" + small, both},
      {"topology: {generator: leaf-spine, leaves: 4, spines: 3, hosts_per_leaf: 3}\n" + small,
       both},
      {"topology: {generator: mrls, leaves: 10, uplinks: 3, downlinks: 2}\n" + small, both},
      {"topology: {generator: oft, q: 2, hosts_per_leaf: 3}\n" + small, both},
      {"topology: {generator: dragonfly, hosts_per_router: 2, routers_per_group: 4, "
       "global_links_per_router: 1, groups: 2}\n" +
           small,
       ksp},
      {"topology: {generator: dragonfly-plus, leaves_per_group: 2, spines_per_group: 2, "
       "hosts_per_leaf: 2, global_links_per_spine: 1, groups: 3}\n" +
           small,
       ksp},
  };
  for (const auto& [yaml, algorithms] : cases) {
    for (const std::string& alg : algorithms) {
      const conf::Experiment e =
          experiment("seed: 1\nlinks: {rate: 100Gbps, delay: 500ns}\nbuffer: {bytes: 800KB}\n" +
                     yaml + "load_balancer: {algorithm: " + alg + "}\n");
      Fabric f(e, Mode::kVirtual);
      const RunOutcome r = run_virtual(f, FabricOptions{}, 10'000'000);
      EXPECT_TRUE(r.completed) << alg << " on " << yaml;
      EXPECT_EQ(switch_drops(f), 0u) << alg << " on " << yaml;
    }
  }
}

TEST(VirtualFabric, AClockLimitStopsTheRun) {
  conf::Experiment e = experiment(fat_tree_16("ecmp"));
  FabricOptions o;
  o.max_clock_ns = 2000;
  const FabricResult r = run_fabric(e, o);
  EXPECT_FALSE(r.completed);
  EXPECT_EQ(r.stopped_by, gen::StopReason::kDuration);
  EXPECT_LE(r.clock_ns, 2000u);
  EXPECT_FALSE(r.generator["completed"].get<bool>());
}

TEST(VirtualFabric, FramesHoldTheirHeadersAndKeepTheirWireLength) {
  // Virtual time carries no payload (Fabric::frame_room): the mbufs hold the headers, and every
  // length the data path reads is still the frame's on the wire.
  const conf::Experiment e = experiment(fat_tree_16("rps"));
  {
    const Fabric f(e, Mode::kVirtual);
    EXPECT_EQ(f.frame_room(), gen::kFrameHeaderBytes);
  }
  {
    const Fabric g(e, Mode::kInProcess, 0);
    EXPECT_EQ(g.frame_room(), gen::kFrameHeaderBytes + 4096);
  }
  const FabricResult r = testing::run_virtual(e);
  ASSERT_TRUE(r.completed);
  const auto& c = r.generator["counters"];
  // 16 messages of 64000 B in 16 packets, each sent once; every frame received whole.
  const uint64_t data_bytes = 16 * (16 * gen::kFrameHeaderBytes + 64000);
  EXPECT_EQ(c["tx_data_packets"].get<uint64_t>(), 256u);
  EXPECT_GT(c["tx_bytes"].get<uint64_t>(), data_bytes);
  EXPECT_EQ(c["rx_bytes"].get<uint64_t>(), c["tx_bytes"].get<uint64_t>());
  // Each data frame crosses at least one switch port with its wire length.
  uint64_t switch_bytes = 0;
  for (const PortSummary& p : r.ports) switch_bytes += p.tx_bytes;
  EXPECT_GT(switch_bytes, data_bytes);
}

// Issue 40: a virtual frame's headers start right after its mbuf (mbuf_pool.h,
// frame_data_offset): no 128 B headroom of its own in the pool, while DPDK's API still sees an
// ordinary mbuf (data_off, tailroom). Writing a whole frame room into every mbuf leaves the
// neighbours' mbufs intact. In-process frames keep the usual headroom.
TEST(VirtualFabric, FramesStartRightAfterTheirMbufWithNoHeadroomInThePool) {
  const conf::Experiment e = experiment(fat_tree_16("rps"));
  {
    const Fabric f(e, Mode::kVirtual);
    rte_mempool* pool = f.pool();
    EXPECT_GE(pool->elt_size, sizeof(rte_mbuf) + f.frame_room());
    EXPECT_LT(pool->elt_size, sizeof(rte_mbuf) + RTE_PKTMBUF_HEADROOM + f.frame_room());
    std::vector<rte_mbuf*> m(256);
    ASSERT_EQ(rte_pktmbuf_alloc_bulk(pool, m.data(), m.size()), 0);
    for (rte_mbuf* b : m) {
      EXPECT_EQ(rte_pktmbuf_mtod(b, uint8_t*), reinterpret_cast<uint8_t*>(b) + sizeof(rte_mbuf));
      EXPECT_EQ(rte_pktmbuf_mtod(b, uint8_t*),
                reinterpret_cast<uint8_t*>(b) + frame_data_offset(/*lazy=*/true));
      EXPECT_EQ(rte_pktmbuf_tailroom(b), f.frame_room());
      std::memset(rte_pktmbuf_append(b, f.frame_room()), 0xa5, f.frame_room());
    }
    for (rte_mbuf* b : m) {
      EXPECT_EQ(b->pool, pool);
      EXPECT_EQ(rte_mbuf_refcnt_read(b), 1);
      EXPECT_EQ(b->nb_segs, 1);
      EXPECT_EQ(b->next, nullptr);
    }
    rte_pktmbuf_free_bulk(m.data(), m.size());
  }
  const Fabric g(e, Mode::kInProcess, 0);
  rte_mbuf* b = rte_pktmbuf_alloc(g.pool());
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(rte_pktmbuf_mtod(b, uint8_t*),
            reinterpret_cast<uint8_t*>(b) + frame_data_offset(/*lazy=*/false));
  rte_pktmbuf_free(b);
}

// Issue 40: what every switch of a fabric would hold once per leaf, it holds once for the fabric
// (the leaves' prefixes) or not at all until it is needed (a group per route, only while some
// route's next hops are withdrawn).
TEST(VirtualFabric, SwitchesShareTheLeafTableAndKeepNoRouteGroupsUntilAWithdrawal) {
  for (const std::string& yaml :
       {fat_tree_16("ofan"),
        std::string("topology: {generator: mrls, leaves: 10, uplinks: 3, "
                    "downlinks: 2}\nload_balancer: {algorithm: polarized}\n")}) {
    const Fabric f(experiment(yaml), Mode::kVirtual);
    const auto& first = f.switches().front()->runtime();
    for (const auto& sw : f.switches()) {
      const dataplane::SwitchRuntime& rt = sw->runtime();
      EXPECT_EQ(rt.tables().leaf_prefixes.get(), first.tables().leaf_prefixes.get())
          << rt.tables().name;
      EXPECT_TRUE(rt.groups()->route_group.empty()) << rt.tables().name;
      for (uint32_t r = 0; r < rt.tables().routes.size(); ++r) {
        ASSERT_EQ(&rt.groups()->of_route(r), &rt.groups()->ports[rt.tables().routes[r].group]);
      }
    }
  }
}

TEST(VirtualFabric, MoreSwitchPortsThanEalHasMemzones) {
  // A k = 16 fat tree: 320 switches, 5120 egress queues (EAL has 2560 memzones; each queue took
  // one until their rings moved to the fabric's RingArena) and 6144 link directions.
  const conf::Experiment e = experiment(R"(
topology: {generator: fat-tree, k: 16, levels: 3}
links: {rate: 800Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: ofan}
workload: {type: permutation, message_size: 8KiB, payload: 4096}
measurement: {queue_sample: 1ms}
)");
  const FabricResult r = testing::run_virtual(e);
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  EXPECT_EQ(r.ports.size(), 5120u);
  EXPECT_EQ(r.generator["messages"].size(), 1024u);
}

}  // namespace
}  // namespace spraylab::fabric

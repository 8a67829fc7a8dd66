// Why lossless MRLS needs virtual channels (issue 39; MRLS paper §4.3, §5.1): credit-based links
// with one buffer per link, small buffers (9 KB: two 4 KB frames) and non-minimal routing (no
// deroute penalty) under an all-to-all deadlock on the paper's Figure 2 MRLS (14 leaves, 3
// uplinks, 3 hosts each), for Polarized and for KSP: the virtual clock runs out of events with
// frames stuck in full buffers, no message delivered, nothing dropped. The run's bound is virtual
// time's own watchdog: a run with nothing left to happen and the workload not done stops
// `stalled` (no hang). The same buffers and workload on a full leaf-spine (up/down routes only:
// no cycle of waits) complete. The routing's channel dependency graph
// (topo/channel_dependency.h) over the same wiring is cyclic with one VC and acyclic with one per
// up-down phase: the paper's cure, which the lossless links here do not have yet.
#include <gtest/gtest.h>

#include <string>

#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"
#include "topo/build.h"
#include "topo/channel_dependency.h"
#include "topo/ksp_paths.h"
#include "topo/routing.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;
using testing::generator_counter;
using testing::switch_drops;

constexpr const char* kMrls =
    "{generator: mrls, leaves: 14, uplinks: 3, downlinks: 3, max_tries: 1000}";

std::string all_to_all(const std::string& topology, const std::string& algorithm) {
  return "seed: 7\ntopology: " + topology + R"(
links: {rate: 400Gbps, delay: 500ns}
buffer: {bytes: 800KB, flow_control: credit, credit: {bytes: 9KB}}
load_balancer: {algorithm: )" +
         algorithm + R"(, deroute_penalty: 0, queue_unit: packets}
workload: {type: all-to-all, message_size: 16KB, payload: 4096}
)";
}

// Frames held in switch buffers at the end: credits spent by senders and not yet given back.
uint64_t credits_held(const FabricResult& r) {
  uint64_t n = 0;
  for (const PortSummary& p : r.ports) n += p.credits_outstanding;
  return n;
}

TEST(Deadlock, LosslessMrlsWithOneBufferPerLinkDeadlocksUnderNonMinimalRouting) {
  for (const char* algorithm : {"polarized", "ksp"}) {
    SCOPED_TRACE(algorithm);
    const conf::Experiment e = experiment(all_to_all(kMrls, algorithm));
    const FabricResult r = testing::run_virtual(e);
    EXPECT_FALSE(r.completed);
    EXPECT_EQ(r.stopped_by, gen::StopReason::kStalled) << gen::to_string(r.stopped_by);
    // A deadlock, not a loss: nothing dropped, no credit overrun, frames stuck in the buffers.
    EXPECT_EQ(switch_drops(r), 0u);
    EXPECT_EQ(r.host_credit.overruns, 0u);
    EXPECT_GT(credits_held(r), 0u);
    EXPECT_LT(generator_counter(r, "rx_data_packets"), generator_counter(r, "tx_data_packets"));
    std::printf(
        "%s on MRLS, 9 KB credit buffers: %s at %.1f us, %lu of %lu data frames delivered, %lu "
        "credits held in switch buffers, %lu drops\n",
        algorithm, std::string(gen::to_string(r.stopped_by)).c_str(),
        static_cast<double>(r.clock_ns) / 1e3,
        static_cast<unsigned long>(generator_counter(r, "rx_data_packets")),
        static_cast<unsigned long>(generator_counter(r, "tx_data_packets")),
        static_cast<unsigned long>(credits_held(r)), static_cast<unsigned long>(switch_drops(r)));

    // The wiring the run used: its waits close a cycle with one buffer per link, and none with
    // one per up-down phase.
    const topo::Topology t = topo::build(e.topology, e.links);
    const topo::Routing routing(t);
    const bool ksp = std::string(algorithm) == "ksp";
    const auto paths = routing.ksp_paths(topo::KspPaths::kDefaultK);
    auto dependencies = [&](uint32_t vcs) {
      return ksp ? topo::ksp_dependencies(routing, *paths, vcs)
                 : topo::polarized_dependencies(routing, vcs);
    };
    const topo::ChannelDependencyGraph one = dependencies(1);
    EXPECT_FALSE(one.cycle().empty());
    const uint32_t vcs = topo::phase_channels(one.longest_route());
    EXPECT_TRUE(dependencies(vcs).cycle().empty()) << vcs << " VCs";
  }
}

TEST(Deadlock, TheSameBuffersOnALeafSpineComplete) {
  // Up/down routes only (every leaf pair two hops apart): no cycle of waits, no deadlock.
  const FabricResult r = testing::run_virtual(experiment(all_to_all(
      "{generator: leaf-spine, leaves: 14, spines: 7, hosts_per_leaf: 3}", "polarized")));
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  EXPECT_EQ(switch_drops(r), 0u);
  EXPECT_EQ(credits_held(r), 0u);
  EXPECT_EQ(generator_counter(r, "rx_data_packets"), generator_counter(r, "tx_data_packets"));
}

}  // namespace
}  // namespace spraylab::fabric

// Why lossless MRLS needs virtual channels, and that they cure it (issue 39; MRLS paper §4.3,
// §5.1). Without: credit-based links with one buffer per link, small buffers (9 KB: two 4 KB
// frames) and non-minimal routing (no deroute penalty) under an all-to-all deadlock on the
// paper's Figure 2 MRLS (14 leaves, 3 uplinks, 3 hosts each), for Polarized and for KSP: the
// virtual clock runs out of events with frames stuck in full buffers, no message delivered,
// nothing dropped. The run's bound is virtual time's own watchdog: a run with nothing left to
// happen and the workload not done stops `stalled` (no hang). The same buffers and workload on a
// full leaf-spine (up/down routes only: no cycle of waits) complete. The routing's channel
// dependency graph (topo/channel_dependency.h) over the same wiring is cyclic with one VC and
// acyclic with one per up-down phase. With: the same run with that many virtual channels
// (buffer.virtual_channels, each VC a 9 KB buffer of its own), credit-based or PFC, completes.
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

// `buffer`: the lossless links' settings (a YAML map's body).
std::string all_to_all(const std::string& topology, const std::string& algorithm,
                       const std::string& buffer = "flow_control: credit, credit: {bytes: 9KB}") {
  return "seed: 7\ntopology: " + topology + R"(
links: {rate: 400Gbps, delay: 500ns}
buffer: {bytes: 800KB, )" +
         buffer + R"(}
load_balancer: {algorithm: )" +
         algorithm + R"(, deroute_penalty: 0, queue_unit: packets}
workload: {type: all-to-all, message_size: 16KB, payload: 4096}
)";
}

// The routing's channel dependency graph over experiment e's wiring, with `vcs` VCs.
topo::ChannelDependencyGraph dependencies(const conf::Experiment& e, bool ksp, uint32_t vcs) {
  const topo::Topology t = topo::build(e.topology, e.links);
  const topo::Routing routing(t);
  if (!ksp) return topo::polarized_dependencies(routing, vcs);
  return topo::ksp_dependencies(routing, *routing.ksp_paths(topo::KspPaths::kDefaultK), vcs);
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
    const bool ksp = std::string(algorithm) == "ksp";
    const topo::ChannelDependencyGraph one = dependencies(e, ksp, 1);
    EXPECT_FALSE(one.cycle().empty());
    const uint32_t vcs = topo::phase_channels(one.longest_route());
    EXPECT_TRUE(dependencies(e, ksp, vcs).cycle().empty()) << vcs << " VCs";
  }
}

// The same MRLS all-to-all with ceil(longest route / 2) VCs (the checker's count over this
// wiring), each VC a buffer as small as the single one above: every message delivered, nothing
// dropped, every credit back (or every pause resumed). Seen failing (stalled, as above) with the
// frame's VC taken as 0 always (net::vc_on_link returning 0).
TEST(Deadlock, OneVirtualChannelPerUpDownPhaseEndsIt) {
  const std::string lossless[] = {"flow_control: credit, credit: {bytes: 9KB}",
                                  "flow_control: pfc, pfc: {xoff: 9KB, xon: 1KB}"};
  for (const std::string& fc : lossless) {
    for (const char* algorithm : {"polarized", "ksp"}) {
      const bool ksp = std::string(algorithm) == "ksp";
      const uint32_t vcs = topo::phase_channels(
          dependencies(experiment(all_to_all(kMrls, algorithm)), ksp, 1).longest_route());
      SCOPED_TRACE(std::string(algorithm) + ", " + fc + ", " + std::to_string(vcs) + " VCs");
      // Polarized's bound on this MRLS: 6 hops (2D* - 2, D* = 4); KSP's longest stored path: 8.
      EXPECT_EQ(vcs, ksp ? 4u : 3u);
      const conf::Experiment e = experiment(all_to_all(
          kMrls, algorithm, fc + ", virtual_channels: " + std::to_string(vcs)));
      const FabricResult r = testing::run_virtual(e);
      ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
      EXPECT_EQ(switch_drops(r), 0u);
      EXPECT_EQ(generator_counter(r, "rx_data_packets"), generator_counter(r, "tx_data_packets"));
      uint64_t consumed = 0, freed = 0, pauses = 0, resumes = 0;
      for (const PortSummary& p : r.ports) {
        consumed += p.credits_consumed;
        freed += p.credits_freed;
        pauses += p.pause_sent;
        resumes += p.resume_sent;
      }
      if (r.credit) {
        EXPECT_EQ(credits_held(r), 0u);  // every sender back at its full credit
        EXPECT_EQ(consumed, freed);      // every buffer empty
        EXPECT_GT(consumed, 0u);
        EXPECT_EQ(r.host_credit.overruns, 0u);
      } else {
        EXPECT_TRUE(r.pfc);
        EXPECT_GT(pauses, 0u);  // the small buffers filled: the pauses did the work
      }
      std::printf("%s on MRLS, %s, %u VCs: completed at %.1f us, %lu data frames, %lu pauses\n",
                  algorithm, fc.c_str(), vcs, static_cast<double>(r.clock_ns) / 1e3,
                  static_cast<unsigned long>(generator_counter(r, "rx_data_packets")),
                  static_cast<unsigned long>(pauses));
    }
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

TEST(Deadlock, AFourLevelFatTreeUnderMinimalRoutingCompletes) {
  // Up/down routes across four levels (k = 6, 3 of 6 pods: mrls-100k's tree at its smallest
  // radix with level-1 and level-2 indexes past 20), one buffer per link, RPS on the minimal next
  // hops. When two of its switches shared a name one took the other's routes, frames took detours
  // and this stalled (session 31).
  const FabricResult r = testing::run_virtual(experiment(R"(seed: 7
topology: {generator: fat-tree, k: 6, levels: 4, pods: 3}
links: {rate: 400Gbps, delay: 500ns}
buffer: {bytes: 800KB, flow_control: credit, credit: {bytes: 9KB}}
load_balancer: {algorithm: rps}
workload: {type: all-to-all, message_size: 16KB, payload: 4096}
)"));
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  EXPECT_EQ(switch_drops(r), 0u);
  EXPECT_EQ(credits_held(r), 0u);
  EXPECT_EQ(generator_counter(r, "rx_data_packets"), generator_counter(r, "tx_data_packets"));
}

}  // namespace
}  // namespace spraylab::fabric

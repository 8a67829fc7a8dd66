// Deadlock freedom of lossless MRLS by virtual channels (issue 39; MRLS paper §4.3, §5.1): the
// channel dependency graph of Polarized and KSP routing over every leaf pair, with one buffer
// per link (one VC: cycles, so a lossless fabric can deadlock) and with one per up-down phase
// (acyclic: it cannot).
#include "topo/channel_dependency.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/topo/mrls_params.h"
#include "topo/generators.h"
#include "topo/ksp_paths.h"
#include "topo/routing.h"
#include "topo/stats.h"

namespace spraylab::topo {
namespace {

// "sw3>sw9 vc0 → ..." for a failure message.
std::string describe(const SwitchGraph& g, const std::vector<Channel>& cycle) {
  std::string s;
  for (const Channel& c : cycle) {
    uint32_t from = 0;
    while (g.end(from) <= c.edge) ++from;
    s += "sw" + std::to_string(from) + ">sw" + std::to_string(g.neighbour(c.edge)) + " vc" +
         std::to_string(c.vc) + " -> ";
  }
  return s + "(first)";
}

std::vector<MrlsParams> instances() {
  return {params(14, 3, 3, 1), params(14, 3, 3, 7), params(24, 4, 4, 3), params(40, 6, 6, 5)};
}

TEST(ChannelDependency, PhaseChannelsAreThePapersCounts) {
  // MRLS paper §5.1: 3 VCs for a hop bound of 6, 4 for 8; §4.3: one VC per two hops.
  EXPECT_EQ(phase_channels(2), 1u);
  EXPECT_EQ(phase_channels(4), 2u);
  EXPECT_EQ(phase_channels(6), 3u);
  EXPECT_EQ(phase_channels(8), 4u);
  // Hops 0, 1 (up, down) in VC 0; 2, 3 in VC 1; the last VC takes what lies beyond.
  EXPECT_EQ(phase_channel(0, 3), 0u);
  EXPECT_EQ(phase_channel(1, 3), 0u);
  EXPECT_EQ(phase_channel(2, 3), 1u);
  EXPECT_EQ(phase_channel(5, 3), 2u);
  EXPECT_EQ(phase_channel(7, 3), 2u);
}

TEST(ChannelDependency, UpDownUpRoutesAroundARingDeadlockInOneVcNotInOnePerPhase) {
  // A leaf-spine ring in miniature: links 0 (up), 1 (down), 2 (up), 3 (down), 0, ... and two
  // four-hop routes, from link 0 and from link 2 (routes start going up, as out of a leaf). One
  // buffer per link: 0 -> 1 -> 2 -> 3 -> 0, the classic cycle of waits. One VC per up-down phase:
  // each route moves to VC 1 on its second up hop, and no wait goes from a down link back to an
  // up link in the same VC.
  for (const uint32_t vcs : {1u, 2u}) {
    ChannelDependencyGraph ring(4, vcs);
    ring.add_route({0, 1, 2, 3});
    ring.add_route({2, 3, 0, 1});
    EXPECT_EQ(ring.longest_route(), 4u);
    EXPECT_EQ(ring.cycle().size(), vcs == 1 ? 4u : 0u) << vcs << " VCs";
  }
  // Two-hop routes (one up-down phase) cannot be helped by VCs: they never change VC.
  ChannelDependencyGraph short_routes(4, 2);
  for (uint32_t e = 0; e < 4; ++e) short_routes.add_route({e, (e + 1) % 4});
  EXPECT_EQ(short_routes.cycle().size(), 4u);
}

TEST(ChannelDependency, PolarizedOnMrlsIsCyclicWithOneVcAndAcyclicWithOnePerPhase) {
  for (const MrlsParams& p : instances()) {
    SCOPED_TRACE("N1 " + std::to_string(p.leaves) + " u " + std::to_string(p.uplinks) + " seed " +
                 std::to_string(p.seed));
    Topology topo = mrls(p);
    Routing r(topo);
    const ChannelDependencyGraph one = polarized_dependencies(r, 1);
    EXPECT_FALSE(one.cycle().empty()) << "Polarized on MRLS needs no VCs: the test shows nothing";
    // Theorem 4.2: at most 2D* - 2 hops; the paper's VCs: one per two of them.
    const uint32_t dstar = compute_stats(r).diameter_all;
    EXPECT_LE(one.longest_route(), 2 * dstar - 2);
    const uint32_t vcs = phase_channels(one.longest_route());
    const ChannelDependencyGraph phased = polarized_dependencies(r, vcs);
    EXPECT_EQ(phased.longest_route(), one.longest_route());
    const std::vector<Channel> c = phased.cycle();
    EXPECT_TRUE(c.empty()) << vcs << " VCs, longest route " << phased.longest_route()
                           << " hops: " << describe(r.graph(), c);
    std::printf("MRLS N1 %u u %u seed %lu: Polarized routes <= %u hops, %zu waits; %u VCs: %zu\n",
                p.leaves, p.uplinks, static_cast<unsigned long>(p.seed), one.longest_route(),
                one.arcs(), vcs, phased.arcs());
  }
}

TEST(ChannelDependency, KspOnMrlsIsCyclicWithOneVcAndAcyclicWithOnePerPhase) {
  for (const MrlsParams& p : instances()) {
    SCOPED_TRACE("N1 " + std::to_string(p.leaves) + " seed " + std::to_string(p.seed));
    Topology topo = mrls(p);
    Routing r(topo);
    const KspPaths paths(r, 16, 1);
    const ChannelDependencyGraph one = ksp_dependencies(r, paths, 1);
    EXPECT_FALSE(one.cycle().empty());
    const uint32_t vcs = phase_channels(one.longest_route());
    const std::vector<Channel> c = ksp_dependencies(r, paths, vcs).cycle();
    EXPECT_TRUE(c.empty()) << vcs << " VCs: " << describe(r.graph(), c);
  }
}

TEST(ChannelDependency, UpDownOnALeafSpineNeedsNoVc) {
  // Every leaf pair two hops apart (one up, one down): Polarized takes only minimal routes and
  // the one buffer per link has no cycle, as up/down routing never has.
  LeafSpineParams p;
  p.leaves = 6;
  p.spines = 3;
  Topology topo = leaf_spine(p);
  Routing r(topo);
  const ChannelDependencyGraph one = polarized_dependencies(r, 1);
  EXPECT_EQ(one.longest_route(), 2u);
  EXPECT_GT(one.arcs(), 0u);
  EXPECT_TRUE(one.cycle().empty());
}

}  // namespace
}  // namespace spraylab::topo

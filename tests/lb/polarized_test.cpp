// Polarized routing on generated MRLS topologies (MRLS paper §4.3, Theorem 4.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <span>
#include <tuple>

#include "lb_test_util.h"
#include "switch/lb/factory.h"
#include "switch/lb/polarized.h"
#include "topo/generators.h"
#include "topo/routing.h"

namespace spraylab::lb {
namespace {

using topo::PolarizedLabel;

topo::MrlsParams params(uint32_t leaves, uint32_t uplinks, uint32_t downlinks, uint64_t seed) {
  topo::MrlsParams p;
  p.leaves = leaves;
  p.uplinks = uplinks;
  p.downlinks = downlinks;
  p.seed = seed;
  return p;
}

// One MRLS fabric with a Polarized balancer and egress queues at every switch.
class Fabric {
 public:
  Fabric(uint32_t leaves, uint32_t uplinks, uint32_t downlinks, uint64_t seed)
      : topo_(topo::mrls(params(leaves, uplinks, downlinks, seed))), routing_(topo_) {
    conf::BalancerSpec spec;
    spec.algorithm = Algorithm::kPolarized;
    const topo::SwitchGraph& g = routing_.graph();
    for (uint32_t sw = 0; sw < g.size(); ++sw) {
      SwitchContext ctx;
      ctx.seed = seed;
      ctx.ports = topo_.degree(g.node_of(sw));
      ctx.routing = &routing_;
      ctx.switch_index = sw;
      balancers_.push_back(BalancerFactory(spec, ctx).make(0));
      queues_.push_back(std::make_unique<testing::Queues>(ctx.ports));
    }
    for (uint32_t a = 0; a < g.size(); ++a) {
      for (uint32_t b = 0; b < g.size(); ++b) d_star_ = std::max<uint32_t>(d_star_, dist(a, b));
    }
  }

  const topo::Routing& routing() const { return routing_; }
  uint32_t dist(uint32_t a, uint32_t b) const { return routing_.distance(a, b); }
  uint32_t d_star() const { return d_star_; }
  testing::Queues& queues(uint32_t sw) { return *queues_[sw]; }

  // The next switch from `sw` for a packet from leaf rank s to leaf rank t.
  uint32_t next(uint32_t sw, uint32_t s, uint32_t t, Rng& rng) {
    Packet p;
    p.src_leaf = s;
    p.dst_leaf = t;
    p.bytes = 1000;
    const PortId port = testing::choose_one(*balancers_[sw], p, queues_[sw]->view(), rng);
    EXPECT_NE(port, kNoPort) << "corner at switch " << sw;
    if (port == kNoPort) return UINT32_MAX;
    const topo::PortRef peer = topo_.peer(routing_.graph().node_of(sw), port);
    return routing_.graph().index_of(peer.node);
  }

 private:
  topo::Topology topo_;
  topo::Routing routing_;
  std::vector<std::unique_ptr<Balancer>> balancers_;
  std::vector<std::unique_ptr<testing::Queues>> queues_;
  uint32_t d_star_ = 0;
};

struct WalkCheck {
  uint32_t hops = 0;
  bool ok = true;
};

// Walks s -> t, checking every hop against the MRLS paper's rules. `randomise` sets random queue
// depths at each switch before it chooses.
WalkCheck walk(Fabric& f, uint32_t s, uint32_t t, Rng& rng, Rng* randomise) {
  const uint32_t src = f.routing().leaves()[s], dst = f.routing().leaves()[t];
  WalkCheck w;
  for (uint32_t c = src; c != dst && w.hops <= 4 * f.d_star(); ++w.hops) {
    if (randomise != nullptr) {
      for (auto& d : f.queues(c).depth) d = randomise->below(12);
    }
    const uint32_t n = f.next(c, s, t, rng);
    if (n == UINT32_MAX) {
      w.ok = false;
      break;
    }
    const bool expanding = f.dist(src, c) < f.dist(c, dst);
    switch (f.routing().label(src, c, n, dst)) {
      case PolarizedLabel::kForward:
        break;
      case PolarizedLabel::kExpansion:
        EXPECT_TRUE(expanding) << "Expansion once d(s,c) >= d(c,t) at " << c;
        w.ok &= expanding;
        break;
      case PolarizedLabel::kContraction:
        EXPECT_FALSE(expanding) << "Contraction while d(s,c) < d(c,t) at " << c;
        w.ok &= !expanding;
        break;
      case PolarizedLabel::kBacktrack:
        ADD_FAILURE() << "Backtrack at " << c;
        w.ok = false;
        break;
    }
    c = n;
  }
  return w;
}

class PolarizedOnMrls : public ::testing::TestWithParam<uint64_t> {};

TEST_P(PolarizedOnMrls, RoutesAreMinimalWhenQueuesAreEmpty) {
  Fabric f(14, 3, 3, GetParam());
  Rng rng(1);
  const uint32_t leaves = static_cast<uint32_t>(f.routing().leaves().size());
  for (uint32_t s = 0; s < leaves; ++s) {
    for (uint32_t t = 0; t < leaves; ++t) {
      if (s == t) continue;
      const WalkCheck w = walk(f, s, t, rng, nullptr);
      EXPECT_EQ(w.hops, f.dist(f.routing().leaves()[s], f.routing().leaves()[t]));
    }
  }
}

TEST_P(PolarizedOnMrls, RandomQueueWalksFollowTheRulesAndEndWithin2DStarMinus2) {
  Fabric f(14, 3, 3, GetParam());
  Rng rng(2), states(GetParam() + 100);
  const uint32_t leaves = static_cast<uint32_t>(f.routing().leaves().size());
  uint32_t longest = 0, derouted = 0;
  for (int round = 0; round < 20; ++round) {
    for (uint32_t s = 0; s < leaves; ++s) {
      for (uint32_t t = 0; t < leaves; ++t) {
        if (s == t) continue;
        const WalkCheck w = walk(f, s, t, rng, &states);
        EXPECT_TRUE(w.ok);
        EXPECT_LE(w.hops, 2 * f.d_star() - 2);
        EXPECT_EQ(w.hops % 2, 0u);  // leaf to leaf in a bipartite graph
        longest = std::max(longest, w.hops);
        derouted += w.hops > f.dist(f.routing().leaves()[s], f.routing().leaves()[t]);
      }
    }
  }
  EXPECT_GT(derouted, 0u);  // the random states did exercise deroutes
}

INSTANTIATE_TEST_SUITE_P(Seeds, PolarizedOnMrls, ::testing::Values(1, 2, 3, 4));

// The labels are the routing's distances: bit f of closer(leaf) says fabric port f's neighbour is
// nearer the leaf than this switch, distance(leaf) is this switch's; a switch of at most 64 fabric
// ports keeps them once, as labels (16 B a leaf; issue 40).
TEST(PolarizedTable, LabelsAreTheRoutingsDistancesKeptOnce) {
  for (const auto& [leaves, up, down] : {std::tuple{14u, 3u, 3u}, std::tuple{40u, 24u, 8u}}) {
    const topo::Topology topology = topo::mrls(params(leaves, up, down, 1));
    const topo::Routing routing(topology);
    const topo::SwitchGraph& gr = routing.graph();
    for (uint32_t sw = 0; sw < gr.size(); ++sw) {
      const PolarizedTable t(routing, sw);
      ASSERT_EQ(t.leaves(), routing.leaves().size());
      ASSERT_EQ(t.words(), 1u);
      EXPECT_LE(t.leaf_bytes(), 16u * t.leaves()) << "switch " << sw;
      for (uint32_t l = 0; l < t.leaves(); ++l) {
        const uint32_t leaf = routing.leaves()[l];
        ASSERT_EQ(t.distance(l), routing.distance(sw, leaf)) << sw << " " << l;
        ASSERT_EQ(t.labels()[l].distance, routing.distance(sw, leaf)) << sw << " " << l;
        for (uint32_t e = gr.begin(sw), f = 0; e < gr.end(sw); ++e, ++f) {
          const bool closer = routing.distance(gr.neighbour(e), leaf) < routing.distance(sw, leaf);
          ASSERT_EQ((t.closer(l)[0] >> f) & 1, closer ? 1u : 0u) << sw << " " << l << " " << f;
          ASSERT_EQ((t.labels()[l].closer >> f) & 1, closer ? 1u : 0u) << sw << " " << l;
        }
      }
    }
  }
}

TEST(Polarized, LowestScoreWinsWithTheDeroutePenaltyAndTiesAreUniform) {
  Fabric f(14, 3, 3, 5);
  Rng rng(3);
  const auto& r = f.routing();
  // A spine c and leaves s, t with both a Forward and a deroute allowed at c.
  for (uint32_t s = 0; s < r.leaves().size(); ++s) {
    for (uint32_t t = 0; t < r.leaves().size(); ++t) {
      for (uint32_t c = 0; c < r.graph().size(); ++c) {
        if (s == t || r.is_leaf(c)) continue;
        const auto hops = r.polarized_hops(r.leaves()[s], c, r.leaves()[t]);
        std::vector<topo::PolarizedHop> fwd, der;
        for (const auto& h : hops) (h.deroute ? der : fwd).push_back(h);
        if (fwd.size() < 2 || der.empty()) continue;
        auto& q = f.queues(c);
        for (auto& d : q.depth) d = 0;
        // Forward hops at 4 and 5 packets, a deroute at 0: 0 + 5 > 4, the Forward at 4 wins.
        q.depth[fwd[0].port] = 4;
        for (size_t i = 1; i < fwd.size(); ++i) q.depth[fwd[i].port] = 5;
        EXPECT_EQ(f.next(c, s, t, rng), fwd[0].next);
        // Forward hops at 6: the deroute (0 + 5) wins.
        for (const auto& h : fwd) q.depth[h.port] = 6;
        for (const auto& h : der) q.depth[h.port] = 0;
        const uint32_t n = f.next(c, s, t, rng);
        EXPECT_TRUE(std::any_of(der.begin(), der.end(), [&](auto& h) { return h.next == n; }));
        // All Forward hops empty and tied: each is chosen equally often.
        for (auto& d : q.depth) d = 0;
        std::vector<uint64_t> n_fwd(fwd.size());
        for (int i = 0; i < 6000; ++i) {
          const uint32_t x = f.next(c, s, t, rng);
          for (size_t j = 0; j < fwd.size(); ++j) n_fwd[j] += fwd[j].next == x;
        }
        EXPECT_EQ(std::accumulate(n_fwd.begin(), n_fwd.end(), uint64_t{0}), 6000u);
        EXPECT_TRUE(testing::uniform_fit(n_fwd));
        return;
      }
    }
  }
  FAIL() << "no switch with two Forward hops and a deroute";
}

// Issue 19: Polarized reads the live candidates (the route group's live fabric ports), so a port
// taken down is never chosen, even when it is the emptiest.
TEST(Polarized, NeverChoosesAPortThatIsNotALiveCandidate) {
  const topo::Topology topology = topo::mrls(params(14, 3, 3, 5));
  const topo::Routing routing(topology);
  conf::BalancerSpec spec;
  spec.algorithm = Algorithm::kPolarized;
  const topo::SwitchGraph& g = routing.graph();
  Rng rng(9), states(10);
  uint32_t checked = 0;
  for (uint32_t sw = 0; sw < g.size(); ++sw) {
    SwitchContext ctx;
    ctx.ports = topology.degree(g.node_of(sw));
    ctx.routing = &routing;
    ctx.switch_index = sw;
    auto b = BalancerFactory(spec, ctx).make(0);
    testing::Queues q(ctx.ports);
    std::vector<PortId> fabric;
    for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) fabric.push_back(g.port(e));
    for (PortId down : fabric) {
      std::vector<PortId> live;
      for (PortId p : fabric) {
        if (p != down) live.push_back(p);
      }
      for (uint32_t s = 0; s < routing.leaves().size(); ++s) {
        for (uint32_t t = 0; t < routing.leaves().size(); ++t) {
          if (s == t) continue;
          for (auto& d : q.depth) d = 1 + states.below(8);
          q.depth[down] = 0;  // the dead port looks the most attractive
          Packet p = testing::packet(live);
          p.src_leaf = s;
          p.dst_leaf = t;
          const PortId got = testing::choose_one(*b, p, q.view(), rng);
          EXPECT_NE(got, down) << "switch " << sw << " s " << s << " t " << t;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

// A leaf rank beyond the table (an unknown source, a route without a destination leaf) gets
// kNoPort instead of a read past the label tables.
TEST(Polarized, AnUnknownLeafGetsNoPort) {
  const topo::Topology topology = topo::mrls(params(14, 3, 3, 1));
  const topo::Routing routing(topology);
  conf::BalancerSpec spec;
  spec.algorithm = Algorithm::kPolarized;
  uint32_t spine = 0;
  while (routing.is_leaf(spine)) ++spine;
  SwitchContext ctx;
  ctx.ports = topology.degree(routing.graph().node_of(spine));
  ctx.routing = &routing;
  ctx.switch_index = spine;
  auto b = BalancerFactory(spec, ctx).make(0);
  testing::Queues q(ctx.ports);
  Rng rng(1);
  Packet p;
  p.src_leaf = UINT32_MAX;  // what the forwarder's old fallback gave a spine
  p.dst_leaf = 0;
  EXPECT_EQ(testing::choose_one(*b, p, q.view(), rng), kNoPort);
  p.src_leaf = 0;
  p.dst_leaf = static_cast<uint32_t>(routing.leaves().size());
  EXPECT_EQ(testing::choose_one(*b, p, q.view(), rng), kNoPort);
}

// Under queue_unit: bytes the deroute penalty is `deroute_penalty` data frames, not bytes: a
// Forward hop 4 frames deep still beats an empty deroute (4 < 0 + 5 frames).
TEST(Polarized, DeroutePenaltyIsInFramesUnderTheByteUnit) {
  const topo::Topology topology = topo::mrls(params(14, 3, 3, 5));
  const topo::Routing routing(topology);
  conf::BalancerSpec spec;
  spec.algorithm = Algorithm::kPolarized;
  spec.queue_unit = QueueUnit::kBytes;
  const auto& r = routing;
  Rng rng(3);
  constexpr uint32_t kFrame = 4096 + 82;
  for (uint32_t s = 0; s < r.leaves().size(); ++s) {
    for (uint32_t t = 0; t < r.leaves().size(); ++t) {
      for (uint32_t c = 0; c < r.graph().size(); ++c) {
        if (s == t || r.is_leaf(c)) continue;
        const auto hops = r.polarized_hops(r.leaves()[s], c, r.leaves()[t]);
        std::vector<topo::PolarizedHop> fwd, der;
        for (const auto& h : hops) (h.deroute ? der : fwd).push_back(h);
        if (fwd.size() != 1 || der.empty()) continue;
        SwitchContext ctx;
        ctx.ports = topology.degree(r.graph().node_of(c));
        ctx.routing = &routing;
        ctx.switch_index = c;
        ctx.frame_bytes = kFrame;
        auto b = BalancerFactory(spec, ctx).make(0);
        testing::Queues q(ctx.ports, 800'000);
        q.depth[fwd[0].port] = 4 * kFrame;
        Packet p;
        p.src_leaf = s;
        p.dst_leaf = t;
        p.bytes = kFrame;
        EXPECT_EQ(testing::choose_one(*b, p, q.view(), rng), fwd[0].port);
        q.depth[fwd[0].port] = 6 * kFrame;
        EXPECT_NE(testing::choose_one(*b, p, q.view(), rng), fwd[0].port);
        return;
      }
    }
  }
  FAIL() << "no switch with one Forward hop and a deroute";
}

}  // namespace
}  // namespace spraylab::lb

namespace spraylab::lb {
namespace {

// The choices of a burst, packet at a time as the MRLS paper states them: the lowest depth (this
// burst's own choices counted, live view, packets) + the penalty on deroutes among the allowed
// live ports, one draw among the ties in fabric-port order (none for one tie).
std::vector<PortId> reference_burst(const PolarizedTable& t, double penalty,
                                    const std::vector<uint32_t>& depth,
                                    std::span<const Packet> burst, Rng& rng) {
  std::vector<uint32_t> now = depth;
  std::vector<PortId> out;
  const auto pen = static_cast<uint64_t>(std::llround(penalty * 256));
  for (const Packet& p : burst) {
    if (p.src_leaf >= t.leaves() || p.dst_leaf >= t.leaves()) {
      out.push_back(kNoPort);
      continue;
    }
    std::vector<bool> live(t.ports(), p.candidates == nullptr);
    for (uint32_t i = 0; i < p.num_candidates; ++i) {
      const uint16_t f = t.fabric_index(p.candidates[i]);
      if (f != PolarizedTable::kNoFabric) live[f] = true;
    }
    const bool expanding = t.distance(p.src_leaf) < t.distance(p.dst_leaf);
    std::vector<uint32_t> ties;
    uint64_t best = UINT64_MAX;
    for (uint32_t f = 0; f < t.ports(); ++f) {
      const bool to_s = (t.closer(p.src_leaf)[f / 64] >> (f % 64)) & 1;
      const bool to_t = (t.closer(p.dst_leaf)[f / 64] >> (f % 64)) & 1;
      const bool deroute = expanding ? !to_s && !to_t : to_s && to_t;
      if (!live[f] || !((!to_s && to_t) || deroute)) continue;
      const uint64_t score = (uint64_t{now[t.port(f)]} << 8) + (deroute ? pen : 0);
      if (score < best) {
        ties.clear();
        best = score;
      }
      if (score == best) ties.push_back(f);
    }
    if (ties.empty()) {
      out.push_back(kNoPort);
      continue;
    }
    const auto n = static_cast<uint32_t>(ties.size());
    out.push_back(t.port(ties[n == 1 ? 0 : rng.below(n)]));
    ++now[out.back()];
  }
  return out;
}

// Bursts through every switch of MRLS fabrics against reference_burst: queues empty or shallow at
// each burst's start, packets from one source leaf (as at the null case's spine, where a port no
// packet may take holds the lowest depth) or from many, in runs of bursts (what a burst learns
// about such ports is kept for the next), some with a live subset or an unknown leaf.
TEST(Polarized, BurstChoicesAreThoseOfPacketAtATime) {
  Rng g(77);
  uint64_t packets = 0;
  for (const auto& [leaves, up, down] : {std::tuple{20u, 3u, 1u}, std::tuple{20u, 12u, 4u},
                                         std::tuple{14u, 3u, 3u}, std::tuple{40u, 24u, 8u}}) {
    const topo::Topology topology = topo::mrls(params(leaves, up, down, 1));
    const topo::Routing routing(topology);
    const topo::SwitchGraph& gr = routing.graph();
    for (uint32_t sw = 0; sw < gr.size(); ++sw) {
      auto table = std::make_shared<PolarizedTable>(routing, sw);
      const auto ports = static_cast<uint32_t>(topology.degree(gr.node_of(sw)));
      for (const double penalty : {5.0, 0.0, 1.5}) {
        Polarized b(table, penalty, BurstQueues(ports, 0, false));
        testing::Queues q(ports);
        std::vector<PortId> fabric, some;
        for (uint32_t f = 0; f < table->ports(); ++f) fabric.push_back(table->port(f));
        for (PortId p : fabric) {
          if (g.below(4) != 0) some.push_back(p);
        }
        Rng mine(sw, 1), ref(sw, 1);
        for (uint32_t burst = 0; burst < 24; ++burst) {
          std::vector<uint32_t> depth(ports);
          const uint32_t spread = burst % 3 == 0 ? 0 : burst % 3 == 1 ? 3 : 300;
          for (uint32_t p = 0; p < ports; ++p) q.depth[p] = depth[p] = g.below(spread + 1);
          const uint32_t src = g.below(table->leaves());
          const bool one_source = burst < 16;
          std::vector<Packet> pk(32);
          for (Packet& p : pk) {
            const std::vector<PortId>& set = g.below(8) == 0 ? some : fabric;
            p.candidates = set.data();
            p.num_candidates = static_cast<uint16_t>(set.size());
            p.src_leaf = one_source ? src : g.below(table->leaves());
            p.dst_leaf = g.below(table->leaves() + (g.below(50) == 0 ? 1 : 0));
            p.bytes = 1000;
          }
          std::vector<PortId> out(pk.size());
          b.choose(pk, BurstContext{q.view(), &mine, 0}, out.data());
          ASSERT_EQ(out, reference_burst(*table, penalty, depth, pk, ref))
              << "switch " << sw << " penalty " << penalty << " burst " << burst;
          ASSERT_EQ(mine.next(), ref.next());
          packets += pk.size();
        }
      }
    }
  }
  EXPECT_GT(packets, 100000u);
}

}  // namespace
}  // namespace spraylab::lb

// KSP routing on generated MRLS topologies (MRLS paper §4.3.1): the source leaf's choice among
// one random path of each length, scored by first-hop depth plus the non-minimal penalty, and
// the path then followed by its label at every later switch.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "lb_test_util.h"
#include "switch/lb/factory.h"
#include "switch/lb/ksp.h"
#include "topo/generators.h"
#include "topo/ksp_paths.h"
#include "topo/routing.h"

namespace spraylab::lb {
namespace {

topo::MrlsParams params(uint32_t leaves, uint32_t uplinks, uint32_t downlinks, uint64_t seed) {
  topo::MrlsParams p;
  p.leaves = leaves;
  p.uplinks = uplinks;
  p.downlinks = downlinks;
  p.seed = seed;
  p.check_corners = false;  // KSP needs no Polarized corner freedom
  return p;
}

// One MRLS fabric with a KSP balancer and egress queues at every switch.
class Fabric {
 public:
  Fabric(const topo::MrlsParams& p, uint32_t k, double penalty)
      : topo_(topo::mrls(p)), routing_(topo_) {
    conf::BalancerSpec spec;
    spec.algorithm = Algorithm::kKsp;
    spec.k = k;
    spec.deroute_penalty = penalty;
    const topo::SwitchGraph& g = routing_.graph();
    for (uint32_t sw = 0; sw < g.size(); ++sw) {
      SwitchContext ctx;
      ctx.seed = p.seed + sw;
      ctx.ports = topo_.degree(g.node_of(sw));
      ctx.routing = &routing_;
      ctx.switch_index = sw;
      balancers_.push_back(BalancerFactory(spec, ctx).make(0));
      queues_.push_back(std::make_unique<testing::Queues>(ctx.ports));
    }
  }

  const topo::Routing& routing() const { return routing_; }
  const topo::KspPaths& paths(uint32_t k) const { return *routing_.ksp_paths(k); }
  testing::Queues& queues(uint32_t sw) { return *queues_[sw]; }
  uint32_t peer(uint32_t sw, PortId port) const {
    return routing_.graph().index_of(topo_.peer(routing_.graph().node_of(sw), port).node);
  }

  // One packet from leaf rank s to leaf rank t at switch `sw` carrying `label`: the port chosen
  // (kNoPort: none) and the label it leaves with.
  PortId choose(uint32_t sw, uint32_t s, uint32_t t, uint16_t& label, Rng& rng) {
    Packet p;
    p.src_leaf = s;
    p.dst_leaf = t;
    p.bytes = 1000;
    p.path_label = label;
    PortId out = kNoPort;
    BurstContext ctx{queues_[sw]->view(), &rng, 0, &label};
    balancers_[sw]->choose({&p, 1}, ctx, &out);
    return out;
  }

  // Walks s -> t; the switches visited, s and t included (stops at a drop or after 64 hops).
  std::vector<uint32_t> walk(uint32_t s, uint32_t t, Rng& rng, uint16_t& label) {
    const uint32_t dst = routing_.leaves()[t];
    std::vector<uint32_t> visited{routing_.leaves()[s]};
    label = 0;
    while (visited.back() != dst && visited.size() < 64) {
      const PortId port = choose(visited.back(), s, t, label, rng);
      if (port == kNoPort) break;
      visited.push_back(peer(visited.back(), port));
    }
    return visited;
  }

 private:
  topo::Topology topo_;
  topo::Routing routing_;
  std::vector<std::unique_ptr<Balancer>> balancers_;
  std::vector<std::unique_ptr<testing::Queues>> queues_;
};

// Every packet follows exactly the path its label names, from the source leaf to the
// destination; with empty queues and a penalty only shortest paths are taken, and every shortest
// path of the set is taken for some draw.
TEST(Ksp, FollowsTheLabelledPathAndPrefersTheShortestOnEmptyQueues) {
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    Fabric f(params(14, 3, 3, seed), 16, 5);
    const topo::KspPaths& paths = f.paths(16);
    Rng rng(seed);
    for (uint32_t s = 0; s < paths.leaves(); ++s) {
      for (uint32_t t = 0; t < paths.leaves(); ++t) {
        if (s == t) continue;
        const topo::KspPaths::Set& set = paths.set(s, t);
        std::set<uint16_t> labels;
        for (int n = 0; n < 200; ++n) {
          uint16_t label = 0;
          const std::vector<uint32_t> visited = f.walk(s, t, rng, label);
          ASSERT_GE(label, 1u);
          ASSERT_LE(label, set.count);
          EXPECT_EQ(visited, paths.path(s, t, label - 1u)) << s << "->" << t;
          EXPECT_EQ(topo::KspPaths::length(set, label - 1u), set.len[0]) << "a longer path";
          labels.insert(label);
        }
        EXPECT_EQ(labels.size(), set.end[0]) << "every shortest path drawn in 200 tries";
      }
    }
  }
}

// The adaptive first hop: a first-hop queue deeper than the penalty for the extra hops sends the
// packet to a longer path (when the one drawn of that length starts elsewhere); one within the
// penalty never does.
TEST(Ksp, TakesALongerPathOnlyWhenTheShortOnesQueueBeyondThePenalty) {
  Fabric f(params(14, 3, 3, 4), 250, 5);
  const topo::KspPaths& paths = f.paths(250);
  Rng rng(9);
  uint32_t pairs = 0;
  for (uint32_t s = 0; s < paths.leaves(); ++s) {
    for (uint32_t t = 0; t < paths.leaves(); ++t) {
      const topo::KspPaths::Set& set = paths.set(s, t);
      if (s == t || set.lengths < 2) continue;
      const uint32_t src = f.routing().leaves()[s];
      const uint32_t extra = set.len[1] - set.len[0];
      const auto first_port = [&](uint32_t i) {
        const uint32_t first = paths.path(s, t, i)[1];
        for (PortId port = 0; port < f.queues(src).depth.size(); ++port) {
          if (f.peer(src, port) == first) return port;
        }
        return kNoPort;
      };
      // The ports that start a shortest path; some path one length up must start elsewhere.
      std::set<PortId> shortest_ports;
      for (uint32_t i = 0; i < set.end[0]; ++i) shortest_ports.insert(first_port(i));
      bool elsewhere = false;
      for (uint32_t i = set.end[0]; i < set.end[1]; ++i)
        elsewhere |= shortest_ports.count(first_port(i)) == 0;
      if (!elsewhere) continue;
      ++pairs;
      for (PortId port : shortest_ports) f.queues(src).depth[port] = 5 * extra - 1;
      for (int n = 0; n < 20; ++n) {
        uint16_t label = 0;
        ASSERT_NE(f.choose(src, s, t, label, rng), kNoPort);
        EXPECT_LE(label, set.end[0]) << "a longer path within the penalty";
      }
      for (PortId port : shortest_ports) f.queues(src).depth[port] = 5 * extra + 1;
      uint32_t longer = 0;
      for (int n = 0; n < 100; ++n) {
        uint16_t label = 0;
        const PortId port = f.choose(src, s, t, label, rng);
        ASSERT_NE(port, kNoPort);
        if (label <= set.end[0]) continue;
        ++longer;
        EXPECT_EQ(shortest_ports.count(port), 0u) << "a longer path on a deep port";
      }
      EXPECT_GT(longer, 0u) << "the shortest paths beyond the penalty";
      for (PortId port : shortest_ports) f.queues(src).depth[port] = 0;
    }
  }
  EXPECT_GT(pairs, 10u);
}

// A label that names no path through this switch is no route: kNoPort, which the forwarder
// counts as a drop.
TEST(Ksp, DropsAPacketWhoseLabelNamesNoPathHere) {
  Fabric f(params(14, 3, 3, 5), 8, 5);
  const topo::KspPaths& paths = f.paths(8);
  Rng rng(1);
  const topo::KspPaths::Set& set = paths.set(0, 1);
  const uint32_t spine = paths.path(0, 1, 0)[1];
  uint16_t label = 0;  // none: a later switch has no path to follow
  EXPECT_EQ(f.choose(spine, 0, 1, label, rng), kNoPort);
  label = static_cast<uint16_t>(set.count + 1);  // beyond the set
  EXPECT_EQ(f.choose(spine, 0, 1, label, rng), kNoPort);
  // A path that does not pass this switch.
  bool tested = false;
  for (uint32_t i = 0; i < set.count && !tested; ++i) {
    const std::vector<uint32_t> p = paths.path(0, 1, i);
    if (std::find(p.begin(), p.end(), spine) != p.end()) continue;
    label = static_cast<uint16_t>(i + 1);
    EXPECT_EQ(f.choose(spine, 0, 1, label, rng), kNoPort);
    tested = true;
  }
  EXPECT_TRUE(tested);
  label = 1;  // unknown leaves
  EXPECT_EQ(f.choose(spine, 0, paths.leaves(), label, rng), kNoPort);
}

// The choice as ksp.h states it, one packet at a time and nothing cached: the reference the
// balancer's bursts must match (its quick run, its per-slot single ports, its lazily counted
// depths). `depth`: the view plus this burst's choices so far.
PortId reference_choice(const topo::Topology& topo, const topo::Routing& routing, uint32_t sw,
                        const topo::KspPaths& paths, uint64_t penalty, const Packet& p,
                        const std::vector<uint32_t>& depth, Rng& rng, uint16_t& label) {
  const topo::SwitchGraph& g = routing.graph();
  const auto live = [&](PortId port) {
    if (p.candidates == nullptr) return true;
    return std::find(p.candidates, p.candidates + p.num_candidates, port) !=
           p.candidates + p.num_candidates;
  };
  // The least deep live port to switch n, the lowest numbered of equals; its depth in `d`.
  const auto port_to = [&](uint32_t n, uint32_t& d) {
    PortId best = kNoPort;
    for (PortId port = 0; port < topo.degree(g.node_of(sw)); ++port) {
      const topo::PortRef peer = topo.peer(g.node_of(sw), port);
      if (g.index_of(peer.node) != n || !live(port)) continue;  // a host's index: UINT32_MAX
      if (best == kNoPort || depth[port] < d) {
        best = port;
        d = depth[port];
      }
    }
    return best;
  };
  if (p.src_leaf >= paths.leaves() || p.dst_leaf >= paths.leaves() || p.src_leaf == p.dst_leaf)
    return kNoPort;
  const topo::KspPaths::Set& set = paths.set(p.src_leaf, p.dst_leaf);
  if (p.src_leaf != routing.leaf_rank(sw)) {  // a later switch: the label's next hop
    if (label == 0 || label > set.count) return kNoPort;
    const std::vector<uint32_t> path = paths.path(p.src_leaf, p.dst_leaf, label - 1u);
    for (size_t j = 1; j + 1 < path.size(); ++j) {
      uint32_t d = 0;
      if (path[j] == sw) return port_to(path[j + 1], d);
    }
    return kNoPort;
  }
  PortId best = kNoPort;
  uint64_t best_score = 0;
  uint32_t ties = 0;
  for (uint32_t c = 0, start = 0; c < set.lengths; start = set.end[c++]) {
    const uint32_t i = start + rng.below(set.end[c] - start);
    uint32_t d = 0;
    const PortId port = port_to(paths.path(p.src_leaf, p.dst_leaf, i)[1], d);
    if (port == kNoPort) continue;
    const uint64_t score = (uint64_t{d} << 8) + penalty * (set.len[c] - set.len[0]);
    if (best == kNoPort || score < best_score) {
      best = port;
      best_score = score;
      label = static_cast<uint16_t>(i + 1);
      ties = 1;
    } else if (score == best_score && rng.below(++ties) == 0) {
      best = port;
      label = static_cast<uint16_t>(i + 1);
    }
  }
  return best;
}

// Bursts at a source leaf and at a spine against the reference: pairs with one length class
// (the quick run) and several, a leaf with parallel links to one spine (chosen by depth, before
// and after the burst's first depth read), candidate sets that change between bursts and within
// one (a link down: the per-slot single ports must follow), packets without candidates, labels
// from other leaves, the queue unit in packets and bytes, live and stale views.
TEST(Ksp, BurstsChooseAsThePacketAtATimeReference) {
  for (const uint32_t k : {2u, 16u}) {
    for (const bool bytes : {false, true}) {
      for (const uint64_t state_update : {uint64_t{0}, uint64_t{1000}}) {
        SCOPED_TRACE(::testing::Message()
                     << "k " << k << " bytes " << bytes << " stale " << state_update);
        topo::Topology topo = topo::mrls(params(14, 3, 3, 7));
        topo::Routing first(topo);  // to find leaf 0's first spine
        const uint32_t leaf = first.leaves()[0];
        const topo::SwitchGraph& g0 = first.graph();
        const topo::NodeId spine_node = g0.node_of(g0.neighbour(g0.begin(leaf)));
        topo.add_link(g0.node_of(leaf), spine_node, 100e9, 500);  // a second link: parallel
        const topo::Routing routing(topo);
        const topo::SwitchGraph& g = routing.graph();
        const topo::KspPaths& paths = *routing.ksp_paths(k);
        const uint32_t spine = g.index_of(spine_node);
        for (const uint32_t sw : {routing.leaves()[0], spine}) {
          const size_t ports = topo.degree(g.node_of(sw));
          const uint64_t penalty = 5 * 256;
          Ksp ksp(std::make_shared<KspTable>(routing, sw, routing.ksp_paths(k)), 5, ports,
                  BurstQueues(ports, state_update, bytes));
          testing::Queues queues(ports);
          const std::vector<PortId> all = testing::ports(static_cast<uint32_t>(ports));
          // Link-down sets: one of the parallel pair, and one fabric link elsewhere.
          const uint32_t other = sw == spine ? routing.leaves()[0] : spine;
          PortId parallel = kNoPort, elsewhere = kNoPort;
          for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
            (g.neighbour(e) == other ? parallel : elsewhere) = g.port(e);
          }
          std::vector<PortId> down, down2;
          for (PortId port : all) {
            if (port != parallel) down.push_back(port);
            if (port != elsewhere) down2.push_back(port);
          }
          const std::vector<PortId>* sets[] = {&all, &down, &down2, nullptr};
          Rng draw(k * 10 + bytes);
          Rng rng(3), ref_rng(3);
          std::vector<uint32_t> view(ports);  // the snapshot a stale view keeps
          for (uint64_t burst_no = 0; burst_no < 300; ++burst_no) {
            const uint64_t now = burst_no * 400;
            for (size_t q = 0; q < ports; ++q) queues.depth[q] = draw.below(bytes ? 3000 : 3);
            if (state_update == 0 || now % state_update < 400) {
              for (size_t q = 0; q < ports; ++q) view[q] = queues.depth[q];
            }
            std::vector<Packet> burst(32);
            const std::vector<PortId>* set = sets[draw.below(4)];
            for (Packet& p : burst) {
              if (draw.below(8) == 0) set = sets[draw.below(4)];  // within the burst too
              p.candidates = set != nullptr ? set->data() : nullptr;
              p.num_candidates = set != nullptr ? static_cast<uint16_t>(set->size()) : 0;
              p.src_leaf = draw.below(4) != 0 ? 0 : draw.below(paths.leaves() + 1);
              p.dst_leaf = draw.below(paths.leaves());
              p.bytes = draw.below(2) != 0 ? 64 : 1500;
              const uint32_t count = p.src_leaf < paths.leaves() && p.dst_leaf < paths.leaves()
                                         ? paths.set(p.src_leaf, p.dst_leaf).count
                                         : 1;
              p.path_label = static_cast<uint16_t>(draw.below(count + 2));
            }
            std::vector<PortId> out(32, 0);
            std::vector<uint16_t> labels(32, 0);
            ksp.choose(burst, BurstContext{queues.view(), &rng, now, labels.data()}, out.data());
            std::vector<uint32_t> depth = view;
            for (size_t i = 0; i < burst.size(); ++i) {
              uint16_t label = burst[i].path_label;
              const PortId want = reference_choice(topo, routing, sw, paths, penalty, burst[i],
                                                   depth, ref_rng, label);
              ASSERT_EQ(out[i], want) << "burst " << burst_no << " packet " << i;
              ASSERT_EQ(labels[i], label) << "burst " << burst_no << " packet " << i;
              if (state_update == 0 && want != kNoPort) depth[want] += bytes ? burst[i].bytes : 1;
            }
            ASSERT_EQ(rng.next(), ref_rng.next()) << "the same draws, burst " << burst_no;
          }
        }
      }
    }
  }
}

TEST(Ksp, ConfigurationErrorsNameTheKey) {
  const topo::Topology topo = topo::mrls(params(8, 2, 2, 1));
  const topo::Routing routing(topo);
  SwitchContext ctx;
  ctx.ports = 4;
  conf::BalancerSpec spec;
  spec.algorithm = Algorithm::kKsp;
  spec.k = 8;
  const auto message = [&](const SwitchContext& c, const conf::BalancerSpec& s) -> std::string {
    try {
      BalancerFactory factory(s, c);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  // No routing data: a switch with no topology behind it has no path sets.
  EXPECT_NE(message(ctx, spec).find("load_balancer.algorithm: ksp needs"), std::string::npos);
  ctx.routing = &routing;
  spec.k = 0;
  EXPECT_NE(message(ctx, spec).find("load_balancer.k: ksp needs 1 to"), std::string::npos);
  spec.k = topo::KspPaths::kMaxK + 1;
  EXPECT_NE(message(ctx, spec).find("load_balancer.k"), std::string::npos);
  spec.k = 8;
  spec.deroute_penalty = -1;
  EXPECT_NE(message(ctx, spec).find("load_balancer.deroute_penalty"), std::string::npos);
  spec.deroute_penalty = 5;
  EXPECT_EQ(message(ctx, spec), "");
}

}  // namespace
}  // namespace spraylab::lb

// KSP routing on generated MRLS topologies (MRLS paper §4.3.1): the source leaf's choice among
// one random path of each length, scored by first-hop depth plus the non-minimal penalty, and
// the path then followed by its label at every later switch.
#include <gtest/gtest.h>

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

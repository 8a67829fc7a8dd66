// The Dragonfly routings (MRLS paper §5, Table 2; switch/lb/dragonfly_min.h, ugal.h, fpar.h) on
// small generated Dragonflies and Dragonflies+: minimal routes cross one global link and at most
// three switches' links, UGAL leaves the minimal path exactly when its queue is deep and follows
// the Valiant path its label names, FPAR derouted at the source leaf, and the precise errors on
// topologies they cannot route.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb_test_util.h"
#include "switch/lb/factory.h"
#include "switch/lb/ugal.h"
#include "topo/dragonfly_groups.h"
#include "topo/generators.h"
#include "topo/routing.h"

namespace spraylab::lb {
namespace {

topo::Topology dragonfly(uint32_t a, uint32_t h, uint32_t groups) {
  topo::DragonflyParams p;
  p.hosts_per_router = 1;
  p.routers_per_group = a;
  p.global_links_per_router = h;
  p.groups = groups;
  return topo::dragonfly(p);
}

topo::Topology dragonfly_plus(uint32_t groups) {
  topo::DragonflyPlusParams p;
  p.leaves_per_group = 2;
  p.spines_per_group = 4;
  p.hosts_per_leaf = 1;
  p.global_links_per_spine = 1;
  p.groups = groups;
  return topo::dragonfly_plus(p);
}

// One fabric with a balancer and egress queues at every switch.
class Fabric {
 public:
  Fabric(topo::Topology t, Algorithm algorithm)
      : topo_(std::move(t)), routing_(topo_), groups_(routing_) {
    conf::BalancerSpec spec;
    spec.algorithm = algorithm;
    const topo::SwitchGraph& g = routing_.graph();
    for (uint32_t sw = 0; sw < g.size(); ++sw) {
      SwitchContext ctx;
      ctx.seed = sw + 1;
      ctx.ports = topo_.degree(g.node_of(sw));
      ctx.routing = &routing_;
      ctx.switch_index = sw;
      balancers_.push_back(BalancerFactory(spec, ctx).make(0));
      queues_.push_back(std::make_unique<testing::Queues>(ctx.ports));
    }
  }

  const topo::Routing& routing() const { return routing_; }
  const topo::DragonflyGroups& groups() const { return groups_; }
  testing::Queues& queues(uint32_t sw) { return *queues_[sw]; }
  topo::PortRef peer(uint32_t sw, PortId port) const {
    return topo_.peer(routing_.graph().node_of(sw), port);
  }
  uint32_t switch_of(const topo::PortRef& r) const { return routing_.graph().index_of(r.node); }
  bool global(uint32_t sw, PortId port) const {
    return groups().group_of_switch(sw) != groups().group_of_switch(switch_of(peer(sw, port)));
  }

  // One packet from leaf rank s to leaf rank t at switch `sw`, arrived on `ingress`, carrying
  // `label`: the port chosen (kNoPort: none) and the label it leaves with.
  PortId choose(uint32_t sw, uint32_t s, uint32_t t, PortId ingress, uint16_t& label, Rng& rng) {
    Packet p;
    p.src_leaf = s;
    p.dst_leaf = t;
    p.bytes = 1000;
    p.ingress_port = ingress;
    p.path_label = label;
    PortId out = kNoPort;
    BurstContext ctx{queues_[sw]->view(), &rng, 0, &label};
    balancers_[sw]->choose({&p, 1}, ctx, &out);
    return out;
  }

  struct Walk {
    std::vector<uint32_t> switches;  // s and t included
    uint32_t globals = 0;
    uint16_t first_label = 0;
  };
  // Walks leaf s -> leaf t from host port 0 of s (stops at a drop or after 16 hops).
  Walk walk(uint32_t s, uint32_t t, Rng& rng) {
    Walk w;
    const uint32_t dst = routing_.leaves()[t];
    w.switches.push_back(routing_.leaves()[s]);
    PortId ingress = 0;  // a leaf's host ports come first
    uint16_t label = 0;
    while (w.switches.back() != dst && w.switches.size() < 16) {
      const uint32_t at = w.switches.back();
      const PortId port = choose(at, s, t, ingress, label, rng);
      if (port == kNoPort) break;
      if (w.switches.size() == 1) w.first_label = label;
      w.globals += global(at, port);
      const topo::PortRef next = peer(at, port);
      w.switches.push_back(switch_of(next));
      ingress = next.port;
    }
    return w;
  }

 private:
  topo::Topology topo_;
  topo::Routing routing_;
  topo::DragonflyGroups groups_;
  std::vector<std::unique_ptr<Balancer>> balancers_;
  std::vector<std::unique_ptr<testing::Queues>> queues_;
};

// Kim et al.'s minimal route, as the paper's MIN: local - global - local, never two global links
// (on this balanced Dragonfly two global hops through a third group are often hop-shorter), and
// up - global - down on a Dragonfly+; every pair reached in at most 3 hops, several draws each.
TEST(DragonflyMin, RoutesCrossOneGlobalLinkInAtMostThreeHops) {
  for (bool plus : {false, true}) {
    SCOPED_TRACE(plus ? "dragonfly-plus" : "dragonfly");
    Fabric f(plus ? dragonfly_plus(5) : dragonfly(4, 2, 9), Algorithm::kDragonflyMin);
    Rng rng(7);
    const uint32_t leaves = static_cast<uint32_t>(f.routing().leaves().size());
    for (uint32_t s = 0; s < leaves; ++s) {
      for (uint32_t t = 0; t < leaves; ++t) {
        if (s == t) continue;
        const bool same = f.groups().group_of_leaf(s) == f.groups().group_of_leaf(t);
        for (int draw = 0; draw < 4; ++draw) {
          const Fabric::Walk w = f.walk(s, t, rng);
          ASSERT_EQ(w.switches.back(), f.routing().leaves()[t]) << s << " -> " << t;
          EXPECT_LE(w.switches.size() - 1, 3u) << s << " -> " << t;
          EXPECT_EQ(w.globals, same ? 0u : 1u) << s << " -> " << t;
        }
      }
    }
  }
}

// UGAL-L at the entry switch: on empty queues always the minimal path (label 0); with the
// minimal ports 10 packets deep mostly the Valiant path (2 x 0 + 1 packet < 10), whose label
// names a leaf outside both groups, and whose walk passes that leaf and ends at the destination within
// 6 hops (two local - global - local legs).
TEST(Ugal, LeavesTheMinimalPathExactlyWhenItsQueueIsDeep) {
  Fabric f(dragonfly(4, 2, 9), Algorithm::kUgal);
  Rng rng(11);
  const uint32_t s = 0, t = 5;  // router 0 of group 0, router 1 of group 1
  const uint32_t src = f.routing().leaves()[s];
  const topo::DragonflyGroups& g = f.groups();
  ASSERT_NE(g.group_of_leaf(s), g.group_of_leaf(t));
  for (int draw = 0; draw < 50; ++draw) {
    const Fabric::Walk w = f.walk(s, t, rng);
    EXPECT_EQ(w.first_label, 0);
    EXPECT_LE(w.switches.size() - 1, 3u);
  }
  // Every minimal port of the entry switch 10 packets deep.
  std::vector<PortId> minimal;
  for (uint32_t e = f.routing().graph().begin(src); e < f.routing().graph().end(src); ++e) {
    if (g.minimal(src, e, t)) minimal.push_back(f.routing().graph().port(e));
  }
  ASSERT_FALSE(minimal.empty());
  for (PortId p : minimal) f.queues(src).depth[p].store(10);
  int valiant = 0;
  for (int draw = 0; draw < 50; ++draw) {
    const Fabric::Walk w = f.walk(s, t, rng);
    // A Valiant path whose first hop is the minimal port itself scores 2 x 10 + 1: minimal then
    // (the router with the link to the destination group may link to m's group too).
    if (w.first_label == 0) continue;
    ++valiant;
    const uint32_t middle = w.first_label - 1u;
    ASSERT_LT(middle, f.routing().leaves().size());
    EXPECT_NE(g.group_of_leaf(middle), g.group_of_leaf(s));
    EXPECT_NE(g.group_of_leaf(middle), g.group_of_leaf(t));
    EXPECT_NE(std::find(w.switches.begin(), w.switches.end(), f.routing().leaves()[middle]),
              w.switches.end());
    EXPECT_EQ(w.switches.back(), f.routing().leaves()[t]);
    EXPECT_LE(w.switches.size() - 1, 6u);
    EXPECT_EQ(w.globals, 2u);
  }
  EXPECT_GE(valiant, 25);  // about 6 middles in 7 share no first hop with the minimal path
}

// A label no entry switch writes (beyond the leaves) is a drop, not a route.
TEST(Ugal, DropsAPacketWhoseLabelNamesNoLeaf) {
  Fabric f(dragonfly(4, 2, 9), Algorithm::kUgal);
  Rng rng(3);
  const uint32_t sw = f.routing().leaves()[1];
  const PortId fabric_port = 1;  // router ports: 1 host, then local links
  uint16_t label = static_cast<uint16_t>(f.routing().leaves().size() + 1);
  EXPECT_EQ(f.choose(sw, 0, 20, fabric_port, label, rng), kNoPort);
}

// FPAR at the source leaf of a Dragonfly+: on empty queues a minimal spine (one with a global
// link to the destination group); with those spines' up ports 10 packets deep, another spine.
TEST(Fpar, DeroutesAtTheSourceLeafWhenTheMinimalSpinesAreDeep) {
  Fabric f(dragonfly_plus(5), Algorithm::kFpar);
  Rng rng(5);
  const topo::DragonflyGroups& g = f.groups();
  const uint32_t s = 0;
  const uint32_t src = f.routing().leaves()[s];
  for (uint32_t t = 0; t < f.routing().leaves().size(); ++t) {
    if (g.group_of_leaf(t) == g.group_of_leaf(s)) continue;
    std::vector<PortId> minimal, other;
    for (uint32_t e = f.routing().graph().begin(src); e < f.routing().graph().end(src); ++e) {
      (g.minimal(src, e, t) ? minimal : other).push_back(f.routing().graph().port(e));
    }
    if (other.empty()) continue;  // every spine reaches that group
    for (PortId p : minimal) f.queues(src).depth[p].store(0);
    uint16_t label = 0;
    for (int draw = 0; draw < 20; ++draw) {
      const PortId port = f.choose(src, s, t, 0, label, rng);
      EXPECT_NE(std::find(minimal.begin(), minimal.end(), port), minimal.end()) << t;
    }
    for (PortId p : minimal) f.queues(src).depth[p].store(10);
    for (int draw = 0; draw < 20; ++draw) {
      const PortId port = f.choose(src, s, t, 0, label, rng);
      EXPECT_NE(std::find(other.begin(), other.end(), port), other.end()) << t;
    }
    for (PortId p : minimal) f.queues(src).depth[p].store(0);
    // And every walk arrives within 6 hops.
    for (int draw = 0; draw < 20; ++draw) {
      const Fabric::Walk w = f.walk(s, t, rng);
      EXPECT_EQ(w.switches.back(), f.routing().leaves()[t]);
      EXPECT_LE(w.switches.size() - 1, 6u);
    }
  }
}

std::string factory_error(const topo::Topology& t, Algorithm algorithm) {
  const topo::Routing routing(t);
  SwitchContext ctx;
  ctx.ports = t.degree(routing.graph().node_of(0));
  ctx.routing = &routing;
  conf::BalancerSpec spec;
  spec.algorithm = algorithm;
  try {
    BalancerFactory factory(spec, ctx);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(DragonflyRoutings, RefuseTopologiesTheyCannotRoute) {
  topo::FatTreeParams ft;
  const topo::Topology fat_tree = topo::fat_tree(ft);
  EXPECT_NE(factory_error(fat_tree, Algorithm::kUgal)
                .find("load_balancer.algorithm: ugal: the Dragonfly routings need a topology made "
                      "by the dragonfly or dragonfly-plus generator"),
            std::string::npos);
  EXPECT_NE(factory_error(fat_tree, Algorithm::kDragonflyMin).find("not fat-tree"),
            std::string::npos);
  EXPECT_NE(factory_error(dragonfly(4, 2, 9), Algorithm::kFpar)
                .find("fpar routes a Dragonfly+ (topology.generator: dragonfly-plus)"),
            std::string::npos);
  EXPECT_NE(factory_error(dragonfly(4, 1, 2), Algorithm::kUgal).find("ugal needs at least 3 groups"),
            std::string::npos);
  EXPECT_EQ(factory_error(dragonfly(4, 2, 9), Algorithm::kUgal), "");
  EXPECT_EQ(factory_error(dragonfly_plus(5), Algorithm::kFpar), "");
  EXPECT_EQ(factory_error(dragonfly(4, 1, 2), Algorithm::kDragonflyMin), "");
}

}  // namespace
}  // namespace spraylab::lb

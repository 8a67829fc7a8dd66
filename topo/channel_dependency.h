// The channel dependency graph of a routing on a lossless fabric (Dally and Seitz; Duato): its
// nodes are channels, a (directed switch-to-switch link, virtual channel) pair, that is one
// receiver buffer (a credit pool, or a PFC class's share of an ingress port); an arc a → b says
// some route holds a buffer in a while it waits for room in b. A lossless fabric is free of
// deadlock when this graph has no cycle, and may deadlock when it has one.
//
// Virtual channels as the MRLS paper gives them (§4.3: "MRLS requires 1VC per two hops (Up-Down
// phase)"; §5.1: 3 VCs for routes of at most 6 hops, 4 for 8): the hop with index h of a route
// (h = 0 the first switch-to-switch link, out of the source leaf) uses channel h / 2, its up-down
// phase. In a leaf-spine graph every even hop goes up (leaf → spine) and every odd hop down, so
// within one VC a route only ever waits from an up link on a down link: a down link never waits
// on an up link of its own VC, and every arc leaves a VC for the same or the next one. No cycle
// can form, whatever the routing (Polarized, KSP, or a failed link's reroute), as long as the
// routes are no longer than 2 × VCs hops. With one VC the up-down-up routes of Polarized and KSP
// on MRLS close cycles.
//
// Host links are left out: a host's injection buffer waits on the fabric but nothing waits on it,
// and a host consumes what it receives, so neither can lie on a cycle.
//
// A build-time checker (tests, tools): plain vectors, not for the data path.
#pragma once

#include <cstdint>
#include <vector>

#include "topo/routing.h"

namespace spraylab::topo {

class KspPaths;

// The VC of hop index h with `vcs` channels: its up-down phase, the last channel holding the
// rest (which then has no guarantee: phase_channels() says how many a route length needs).
inline uint32_t phase_channel(uint32_t hop, uint32_t vcs) {
  const uint32_t phase = hop / 2;
  return phase < vcs ? phase : vcs - 1;
}
// The VCs that routes of at most `max_hops` switch-to-switch hops need (the paper's 3 for 6).
inline uint32_t phase_channels(uint32_t max_hops) { return max_hops <= 2 ? 1 : (max_hops + 1) / 2; }

// One receiver buffer: the switch link `edge` (an index into SwitchGraph's neighbour()/port()),
// virtual channel `vc`.
struct Channel {
  uint32_t edge;
  uint32_t vc;
  bool operator==(const Channel&) const = default;
};

class ChannelDependencyGraph {
 public:
  // Over the `edges` switch links of a graph, with `vcs` virtual channels each (1: none).
  ChannelDependencyGraph(uint32_t edges, uint32_t vcs);

  uint32_t vcs() const { return vcs_; }
  // A route, as the switch links it takes in order (edge indices): each consecutive pair holds
  // the first buffer while waiting on the second. The VC of each is phase_channel(its index).
  void add_route(const std::vector<uint32_t>& edges);
  // One turn of a route: hop `hop` over link `from`, then hop + 1 over `to`.
  void add_turn(uint32_t hop, uint32_t from, uint32_t to);

  // The longest route added, in hops (phase_channels() of it is what deadlock freedom needs).
  uint32_t longest_route() const { return longest_; }
  size_t arcs() const;
  // A cycle of waits, as its channels in order (the last waits on the first); empty when the
  // graph has none.
  std::vector<Channel> cycle() const;

 private:
  uint32_t node(Channel c) const { return c.edge * vcs_ + c.vc; }
  uint32_t edges_, vcs_;
  uint32_t longest_ = 0;
  std::vector<uint64_t> arcs_;  // from << 32 | to, node numbers; deduplicated by cycle()
};

// Every turn Polarized routing allows (Routing::polarized_hops, every choice at every switch) for
// every ordered pair of leaves, as routes' turns with their hop indices.
ChannelDependencyGraph polarized_dependencies(const Routing& r, uint32_t vcs);
// Every path of every ordered leaf pair of `paths` (KSP routing follows the path chosen at the
// source leaf).
ChannelDependencyGraph ksp_dependencies(const Routing& r, const KspPaths& paths, uint32_t vcs);

}  // namespace spraylab::topo

// Everything one switch needs, computed once at start-up from the experiment, the topology and
// its routing data: ports with their peers and MACs, the routes (prefix → local port, or a group of
// candidate uplinks and the load balancer's key), and the balancer's spec. Plain C++, no DPDK,
// so the standalone switch, the in-process fabric and the tests build the same tables.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "switch/dataplane/credit.h"
#include "switch/dataplane/pfc.h"
#include "topo/addressing.h"
#include "topo/routing.h"

namespace spraylab::dataplane {

struct PortInfo {
  topo::PortId id;
  std::string peer;    // the peer node's name
  bool to_host;        // the peer is a host
  topo::Mac mac;       // this port's MAC (source MAC of what it sends)
  topo::Mac peer_mac;  // destination MAC of what it sends
  double rate_bps;
  double delay_ns;
  uint32_t peer_switch;  // the peer's switch index, or UINT32_MAX for a host
};

// A route's action: deliver on one port, or choose among a group of candidate ports.
struct RouteEntry {
  topo::Prefix prefix;
  uint32_t group;     // index into SwitchTables::groups
  uint32_t dest;      // Ofan key destination: the leaf rank, or the pod at an aggregation switch
  uint32_t dst_leaf;  // destination leaf rank (Polarized); UINT32_MAX for a pod route
  bool local;         // a host on this switch: its one port, no balancing
};

struct SwitchTables {
  std::string name;
  uint32_t sw = 0;  // switch index in the routing graph
  uint32_t level = 0;
  bool is_leaf = false;
  uint32_t leaf_rank = UINT32_MAX;
  std::vector<PortInfo> ports;
  std::vector<RouteEntry> routes;
  // Candidate port sets; groups[0..] deduplicated. A group of one port is a plain next hop.
  std::vector<std::vector<topo::PortId>> groups;
  // The source-leaf lookup Polarized needs: the /24 of every leaf → its rank. The same for every
  // switch of a fabric, so one copy (leaf_prefixes_of) serves them all: a copy each was
  // O(switches x leaves), 1.5 GB at 100 K hosts (issue 40). Never null once built.
  struct LeafPrefix {
    topo::Prefix prefix;
    uint32_t rank;
  };
  std::shared_ptr<const std::vector<LeafPrefix>> leaf_prefixes =
      std::make_shared<const std::vector<LeafPrefix>>();
  uint32_t num_dests = 0;  // size of the Ofan key space (leaves, or pods at aggregation)
  conf::BalancerSpec balancer;
  uint64_t buffer_bytes = 0;
  // The workload's data frame (payload + Ethernet, IPv4, UDP and testbed headers): the packet a
  // balancer's packet-denominated defaults mean in bytes (band thresholds, deroute penalty).
  uint32_t frame_bytes = 1514;
  // ECN: frames queued beyond ecn_threshold_bytes are CE-marked (0: none); when
  // ecn_high_bytes is above it, with a probability rising linearly from 0 there to 1 at
  // ecn_high_bytes (RED-like, the UEC reference's marking between its low and high thresholds).
  uint64_t ecn_threshold_bytes = 0;
  uint64_t ecn_high_bytes = 0;
  // buffer.trim: a generator data frame that would queue beyond trim_threshold_bytes is cut to
  // its headers (net/trim.h) and queued in the port's priority class.
  bool trim = false;
  uint64_t trim_threshold_bytes = 0;
  // buffer.flow_control: pfc: 802.1Qbb pause per ingress port at these thresholds (pfc.h); off
  // (pfc false), the egress tail drop of buffer_bytes.
  bool pfc = false;
  PfcThresholds pfc_thresholds;
  // buffer.flow_control: credit: credit-based links, every receiver's buffer these limits
  // (credit.h); off, the egress tail drop of buffer_bytes.
  bool credit = false;
  CreditLimits credit_limits;
  // buffer.virtual_channels (pfc or credit): a buffer, credits (or a PFC class) and an egress
  // queue per VC, a frame's VC from its TTL (net/virtual_channel.h); 1: none beyond the link's.
  uint8_t virtual_channels = 1;
  // lb::switch_seed(experiment seed, sw): the seed of this switch's forwarder and balancer
  // generators, ECMP salt and Ofan/pOfan orders, the same in a fabric and standalone.
  uint64_t seed = 1;
};

// A route to addresses outside the topology (a tester such as testpmd or TRex behind some
// ports): `--route 10.253.0.0/16=0,1` on the command line.
struct StaticRoute {
  topo::Prefix prefix;
  std::vector<topo::PortId> ports;
};
// Parses "A.B.C.D/LEN=P[,P...]"; throws std::invalid_argument saying what is wrong.
StaticRoute parse_static_route(const std::string& text);
// Adds a static route as a destination of its own (its own balancer key). Throws
// std::invalid_argument for a port the switch does not have.
void add_static_route(SwitchTables& t, const StaticRoute& r);

// The leaves' prefixes and ranks (SwitchTables::leaf_prefixes), in leaf order.
std::shared_ptr<const std::vector<SwitchTables::LeafPrefix>> leaf_prefixes_of(
    const topo::Routing& r, const topo::AddressPlan& plan);

// Throws std::invalid_argument naming the switch when it is not in the topology. `leaves`, when
// given, is leaf_prefixes_of(r, plan), shared with the other switches of a fabric.
SwitchTables build_switch_tables(
    const conf::Experiment& e, const topo::Routing& r, const topo::AddressPlan& plan,
    const std::string& switch_name,
    std::shared_ptr<const std::vector<SwitchTables::LeafPrefix>> leaves = nullptr);

}  // namespace spraylab::dataplane

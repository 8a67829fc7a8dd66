// The topology model: switches and hosts joined by bidirectional links.
//
// Port numbers are stable: a node's ports are numbered 0, 1, ... in the order its links were
// added. Generators add a leaf's host links first, then its uplinks, so on every leaf port p < d
// faces a host and ports d.. face the fabric.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "topo/kind.h"

namespace spraylab::topo {

using NodeId = uint32_t;
using PortId = uint16_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

enum class NodeKind : uint8_t { kHost, kSwitch };

struct Node {
  NodeKind kind;
  // Switch level: 0 = leaf / edge (has hosts), 1 = spine / aggregation, 2 = core. Hosts: 0.
  uint8_t level;
  // Index within its level (switches) or among hosts (hosts).
  uint32_t index;
  // Pod of a 3-level fat tree (edge and aggregation switches, hosts); 0 elsewhere.
  uint32_t pod;
  std::string name;
  std::vector<uint32_t> links;  // link id per port
};

struct PortRef {
  NodeId node;
  PortId port;
  bool operator==(const PortRef&) const = default;
};

struct Link {
  PortRef a;
  PortRef b;
  double rate_bps;
  double delay_ns;
};

struct LinkDefaults {
  double rate_bps = 100e9;
  double delay_ns = 500;
};

class Topology {
 public:
  Kind kind = Kind::kExplicit;  // how it was made

  // Both throw std::invalid_argument for a name some node already has.
  NodeId add_switch(uint8_t level, uint32_t index, std::string name, uint32_t pod = 0);
  NodeId add_host(std::string name, uint32_t pod = 0);
  // Adds a link and gives each end its next free port.
  uint32_t add_link(NodeId a, NodeId b, double rate_bps, double delay_ns);

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const std::vector<NodeId>& switches() const { return switches_; }
  const std::vector<NodeId>& hosts() const { return hosts_; }
  // Switches with at least one host, in id order.
  std::vector<NodeId> leaves() const;

  // The far end of a port.
  PortRef peer(NodeId node, PortId port) const;
  size_t degree(NodeId node) const { return nodes_[node].links.size(); }
  // Node id by name (the first node of that name), or kNoNode. O(1): a scan of the nodes was
  // O(nodes) a call, and fabrics call it for every switch and every host (O(nodes^2): seconds
  // at 17 K hosts, minutes at 100 K).
  NodeId find(const std::string& name) const;

 private:
  std::vector<Node> nodes_;
  std::unordered_map<std::string, NodeId> by_name_;
  std::vector<Link> links_;
  std::vector<NodeId> switches_;
  std::vector<NodeId> hosts_;
};

// The reference host link: the lowest rate and the longest delay over every host's link. The
// generators give every host link the same; explicit topologies may not. Zeros without hosts.
struct HostLinkBound {
  double rate_bps = 0;
  double delay_ns = 0;
};
HostLinkBound slowest_host_link(const Topology& t);

}  // namespace spraylab::topo

#include "topo/topology.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace spraylab::topo {

namespace {

// A node's name is its identity everywhere after the build: find() gives the switch its tables
// (build_switch_tables), and metrics and results name ports by it. Two nodes of one name made the
// second build the first's tables (the 4-level fat tree's "agg" 28 and "agg2" 8: detours, and on
// lossless links a deadlock).
[[noreturn]] void duplicate(const std::string& name) {
  throw std::invalid_argument("topology: two nodes named '" + name + "'");
}

}  // namespace

NodeId Topology::add_switch(uint8_t level, uint32_t index, std::string name, uint32_t pod) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  if (!by_name_.try_emplace(name, id).second) duplicate(name);
  nodes_.push_back(Node{NodeKind::kSwitch, level, index, pod, std::move(name), {}});
  switches_.push_back(id);
  return id;
}

NodeId Topology::add_host(std::string name, uint32_t pod) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  uint32_t index = static_cast<uint32_t>(hosts_.size());
  if (!by_name_.try_emplace(name, id).second) duplicate(name);
  nodes_.push_back(Node{NodeKind::kHost, 0, index, pod, std::move(name), {}});
  hosts_.push_back(id);
  return id;
}

uint32_t Topology::add_link(NodeId a, NodeId b, double rate_bps, double delay_ns) {
  if (a >= nodes_.size() || b >= nodes_.size() || a == b) {
    throw std::invalid_argument("add_link: bad endpoints");
  }
  if (nodes_[a].links.size() >= UINT16_MAX || nodes_[b].links.size() >= UINT16_MAX) {
    throw std::invalid_argument("add_link: too many ports on one node");
  }
  uint32_t id = static_cast<uint32_t>(links_.size());
  PortRef pa{a, static_cast<PortId>(nodes_[a].links.size())};
  PortRef pb{b, static_cast<PortId>(nodes_[b].links.size())};
  nodes_[a].links.push_back(id);
  nodes_[b].links.push_back(id);
  links_.push_back(Link{pa, pb, rate_bps, delay_ns});
  return id;
}

std::vector<NodeId> Topology::leaves() const {
  std::vector<NodeId> out;
  for (NodeId s : switches_) {
    for (uint32_t l : nodes_[s].links) {
      const Link& link = links_[l];
      NodeId other = link.a.node == s ? link.b.node : link.a.node;
      if (nodes_[other].kind == NodeKind::kHost) {
        out.push_back(s);
        break;
      }
    }
  }
  return out;
}

PortRef Topology::peer(NodeId node, PortId port) const {
  const Link& link = links_[nodes_[node].links[port]];
  return link.a.node == node && link.a.port == port ? link.b : link.a;
}

NodeId Topology::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? kNoNode : it->second;
}

HostLinkBound slowest_host_link(const Topology& t) {
  HostLinkBound b;
  for (const NodeId n : t.hosts()) {
    const Link& l = t.links()[t.node(n).links[0]];
    b.rate_bps = b.rate_bps == 0 ? l.rate_bps : std::min(b.rate_bps, l.rate_bps);
    b.delay_ns = std::max(b.delay_ns, l.delay_ns);
  }
  return b;
}

}  // namespace spraylab::topo

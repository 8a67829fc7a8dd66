#include "topo/addressing.h"

#include <fmt/format.h>

#include "topo/generators.h"

namespace spraylab::topo {

AddressPlan::AddressPlan(const Routing& r) : routing_(r) {
  const Topology& t = r.topology();
  pods_ = t.kind == Kind::kFatTree && !t.switches().empty() && t.node(t.switches().back()).level == 2;
  if (r.leaves().size() > 65536) throw TopologyError("address plan: more than 65536 leaves");
  host_leaf_.assign(t.nodes().size(), UINT32_MAX);
  host_octet_.assign(t.nodes().size(), 0);
  for (uint32_t leaf : r.leaves()) {
    NodeId n = r.graph().node_of(leaf);
    uint32_t j = 0;
    for (PortId p = 0; p < t.degree(n); ++p) {
      NodeId far = t.peer(n, p).node;
      if (t.node(far).kind != NodeKind::kHost) continue;
      if (++j > 254) {
        throw TopologyError(
            fmt::format("address plan: leaf {} has more than 254 hosts", t.node(n).name));
      }
      host_leaf_[far] = leaf;
      host_octet_[far] = j;
    }
    if (pods_ && t.node(n).pod > 255) throw TopologyError("address plan: more than 256 pods");
  }
  // A k-ary fat-tree edge switch has k/2 hosts and k/2 uplinks: k/2 edges per pod.
  if (pods_) pod_width_ = static_cast<uint32_t>(t.degree(r.graph().node_of(r.leaves()[0]))) / 2;
}

Prefix AddressPlan::leaf_prefix(uint32_t leaf_sw) const {
  const Topology& t = routing_.topology();
  const Node& n = t.node(routing_.graph().node_of(leaf_sw));
  if (pods_) {
    // Edge switches of pod q are numbered q·k/2 .. q·k/2 + k/2 − 1 (generators.cpp).
    return {(10u << 24) | (n.pod << 16) | ((n.index % pod_width_) << 8), 24};
  }
  const uint32_t rank = routing_.leaf_rank(leaf_sw);
  return {(10u << 24) | (rank << 8), 24};
}

Prefix AddressPlan::pod_prefix(uint32_t pod) const { return {(10u << 24) | (pod << 16), 16}; }

uint32_t AddressPlan::host_ip(NodeId host) const {
  return leaf_prefix(host_leaf_[host]).addr | host_octet_[host];
}

Mac AddressPlan::host_mac(NodeId host) {
  return {0x02,
          0x00,
          static_cast<uint8_t>(host >> 24),
          static_cast<uint8_t>(host >> 16),
          static_cast<uint8_t>(host >> 8),
          static_cast<uint8_t>(host)};
}

Mac AddressPlan::port_mac(NodeId sw, PortId port) {
  // 0x06 = locally administered, unicast, and distinct from host MACs (0x02).
  return {0x06,
          static_cast<uint8_t>(sw >> 16),
          static_cast<uint8_t>(sw >> 8),
          static_cast<uint8_t>(sw),
          static_cast<uint8_t>(port >> 8),
          static_cast<uint8_t>(port)};
}

std::string ip_to_string(uint32_t ip) {
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

std::string mac_to_string(const Mac& m) {
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4],
                     m[5]);
}

}  // namespace spraylab::topo

// The address plan (DESIGN.md "Addressing and packets"): one /24 per leaf switch, one /16 per pod
// of a 3-level fat tree, so a switch's routing is a short LPM table and the Ofan key (destination
// leaf, or destination pod at an aggregation switch) falls out of the matched route.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "topo/routing.h"

namespace spraylab::topo {

using Mac = std::array<uint8_t, 6>;

struct Prefix {
  uint32_t addr;  // host byte order
  uint8_t len;
};

class AddressPlan {
 public:
  // Throws TopologyError when the topology does not fit the plan (more than 254 hosts on a leaf,
  // more than 65536 leaves, a 3-level fat tree with more than 256 pods).
  explicit AddressPlan(const Routing& r);

  // Host j (0-based, in port order) under leaf l:
  //   3-level fat tree: 10.<pod>.<edge within pod>.<j+1>
  //   otherwise:        10.<rank(l) / 256>.<rank(l) % 256>.<j+1>
  uint32_t host_ip(NodeId host) const;
  // The leaf a host hangs from, and the switch index of that leaf.
  uint32_t leaf_of_host(NodeId host) const { return host_leaf_[host]; }
  Prefix leaf_prefix(uint32_t leaf_sw) const;  // /24
  Prefix pod_prefix(uint32_t pod) const;       // /16, 3-level fat trees only
  bool has_pods() const { return pods_; }

  // Locally administered MACs: a host's from its node id, a switch port's from (node, port).
  static Mac host_mac(NodeId host);
  static Mac port_mac(NodeId sw, PortId port);

 private:
  const Routing& routing_;
  bool pods_ = false;
  uint32_t pod_width_ = 1;            // edge switches per pod
  std::vector<uint32_t> host_leaf_;   // NodeId → leaf switch index (hosts only)
  std::vector<uint32_t> host_octet_;  // NodeId → last octet
};

std::string ip_to_string(uint32_t ip);
std::string mac_to_string(const Mac& m);

}  // namespace spraylab::topo

#include "switch/dataplane/switch_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "conf/yaml_value.h"
#include "switch/lb/rng.h"
#include "topo/upgrade.h"

namespace spraylab::dataplane {
namespace {

// Ethernet, IPv4, UDP and the testbed header before a data packet's payload (as
// gen::kFrameHeaderBytes, which this layer does not link).
constexpr uint32_t kFrameHeaderBytes = 14 + 20 + 8 + 40;

uint32_t group_of(SwitchTables& t, std::map<std::vector<topo::PortId>, uint32_t>& ids,
                  std::vector<topo::PortId> ports) {
  // try_emplace: a group already known (most routes' at most switches) costs no node.
  auto [it, added] = ids.try_emplace(ports, static_cast<uint32_t>(t.groups.size()));
  if (added) t.groups.push_back(std::move(ports));
  return it->second;
}

void add_ports(SwitchTables& t, const topo::Routing& r, topo::NodeId node) {
  const topo::Topology& topo = r.topology();
  for (topo::PortId p = 0; p < topo.degree(node); ++p) {
    const topo::PortRef far = topo.peer(node, p);
    const topo::Node& peer = topo.node(far.node);
    const topo::Link& link = topo.links()[topo.node(node).links[p]];
    const bool host = peer.kind == topo::NodeKind::kHost;
    t.ports.push_back(PortInfo{p, peer.name, host, topo::AddressPlan::port_mac(node, p),
                               host ? topo::AddressPlan::host_mac(far.node)
                                    : topo::AddressPlan::port_mac(far.node, far.port),
                               link.rate_bps, link.delay_ns,
                               host ? UINT32_MAX : r.graph().index_of(far.node)});
  }
}

std::vector<topo::PortId> ports_of(const std::vector<topo::PolarizedHop>& hops) {
  std::vector<topo::PortId> out;
  for (const auto& h : hops) out.push_back(h.port);
  return out;
}

}  // namespace

std::shared_ptr<const std::vector<SwitchTables::LeafPrefix>> leaf_prefixes_of(
    const topo::Routing& r, const topo::AddressPlan& plan) {
  std::vector<SwitchTables::LeafPrefix> out;
  for (uint32_t leaf : r.leaves()) out.push_back({plan.leaf_prefix(leaf), r.leaf_rank(leaf)});
  return std::make_shared<const std::vector<SwitchTables::LeafPrefix>>(std::move(out));
}

SwitchTables build_switch_tables(
    const conf::Experiment& e, const topo::Routing& r, const topo::AddressPlan& plan,
    const std::string& switch_name,
    std::shared_ptr<const std::vector<SwitchTables::LeafPrefix>> leaves) {
  const topo::Topology& topo = r.topology();
  const topo::NodeId node = topo.find(switch_name);
  if (node == topo::kNoNode || topo.node(node).kind != topo::NodeKind::kSwitch) {
    // --switch's typo (`lef0`) or a host's name (`h0`): the nearest switch name, or where the
    // names come from.
    std::vector<std::string_view> names;
    for (topo::NodeId s : topo.switches()) names.push_back(topo.node(s).name);
    std::string message = fmt::format("no switch named '{}' in the topology", switch_name);
    if (node != topo::kNoNode) message += " (it is a host)";
    if (const auto guess = conf::nearest(switch_name, names)) {
      message += fmt::format("; did you mean '{}'?", *guess);
    } else {
      message += fmt::format("; its {} switches are named {} .. {}", names.size(),
                             names.empty() ? "" : names.front(), names.empty() ? "" : names.back());
    }
    throw std::invalid_argument(message);
  }
  SwitchTables t;
  t.name = switch_name;
  t.sw = r.graph().index_of(node);
  t.level = topo.node(node).level;
  t.frame_bytes = e.workload.payload_bytes + kFrameHeaderBytes;
  t.is_leaf = r.is_leaf(t.sw);
  t.leaf_rank = r.leaf_rank(t.sw);
  t.balancer = e.balancer.for_switch(switch_name, t.level);
  // Incremental deployment: an upgraded switch runs the upgrade's balancer unless it has its own
  // entry in load_balancer.switches.
  if (e.balancer.upgrade && !e.balancer.per_switch.count(switch_name) &&
      topo::upgraded_switches(*e.balancer.upgrade, topo, e.seed)[node]) {
    t.balancer = e.balancer.upgrade->balancer;
  }
  t.buffer_bytes = e.buffer.bytes;
  t.ecn_threshold_bytes = e.buffer.ecn_threshold;
  t.ecn_high_bytes = e.buffer.ecn_high;
  t.trim = e.buffer.trim;
  t.trim_threshold_bytes = e.buffer.trim_threshold;
  t.pfc = e.buffer.flow_control == conf::FlowControl::kPfc;
  t.pfc_thresholds = {e.buffer.pfc.xoff, e.buffer.pfc.xon, e.buffer.pfc.headroom};
  t.credit = e.buffer.flow_control == conf::FlowControl::kCredit;
  static_assert(conf::BufferSpec::kMaxVirtualChannels <= net::kPfcClasses);  // a class per VC
  t.virtual_channels = e.buffer.virtual_channels;
  t.credit_limits = {e.buffer.credit.bytes, e.buffer.credit.unit, t.virtual_channels};
  t.seed = lb::switch_seed(e.seed, t.sw);  // this switch's own stream (rng.h)
  add_ports(t, r, node);
  t.leaf_prefixes = leaves ? std::move(leaves) : leaf_prefixes_of(r, plan);

  std::map<std::vector<topo::PortId>, uint32_t> ids;
  // Hosts on this switch: one /32 each.
  for (const PortInfo& p : t.ports) {
    if (!p.to_host) continue;
    const topo::NodeId host = topo.peer(node, p.id).node;
    t.routes.push_back(
        {{plan.host_ip(host), 32}, group_of(t, ids, {p.id}), t.leaf_rank, t.leaf_rank, true});
  }
  const bool every_fabric_port = lb::traits(t.balancer.algorithm).every_fabric_port;
  std::vector<topo::PortId> fabric;
  for (const PortInfo& p : t.ports) {
    if (!p.to_host) fabric.push_back(p.id);
  }
  // Ofan §4.1: an aggregation switch of a 3-level fat tree keys traffic leaving its pod by the
  // destination pod, so those leaves collapse into one /16 per pod (`consolidate: leaf` keeps one
  // route and key per destination leaf instead). Not for Polarized and KSP: they route by the
  // (source, destination) leaf pair, and a pod route names no destination leaf
  // (RouteEntry::dst_leaf), so they would drop every frame leaving the pod.
  const bool by_leaf_pair = lb::traits(t.balancer.algorithm).source_leaf;
  const bool pod_keys = plan.has_pods() && t.level == 1 && !by_leaf_pair &&
                        t.balancer.consolidate == lb::Consolidate::kPod;
  const uint32_t my_pod = topo.node(node).pod;
  std::map<uint32_t, bool> pods_done;
  // Polarized's group, every fabric port, is the same for every leaf: found once, when the first
  // route needs it (so group numbers are as before), not looked up in `ids` a leaf.
  uint32_t fabric_group = UINT32_MAX;
  for (uint32_t leaf : r.leaves()) {
    const uint32_t rank = r.leaf_rank(leaf);
    if (leaf == t.sw) continue;
    const uint32_t pod = topo.node(r.graph().node_of(leaf)).pod;
    if (pod_keys && pod != my_pod) {
      if (pods_done[pod]) continue;
      pods_done[pod] = true;
      t.routes.push_back({plan.pod_prefix(pod),
                          group_of(t, ids, ports_of(r.minimal_hops(t.sw, leaf))), pod, UINT32_MAX,
                          false});
      continue;
    }
    // Polarized picks among every fabric port by its labels; the others among the minimal hops.
    uint32_t group;
    if (every_fabric_port) {
      if (fabric_group == UINT32_MAX) fabric_group = group_of(t, ids, fabric);
      group = fabric_group;
    } else {
      group = group_of(t, ids, ports_of(r.minimal_hops(t.sw, leaf)));
    }
    // A leaf of this switch's own pod is keyed by the pod too: by its leaf rank its key would be
    // some other pod's, and the balancer would send that pod's traffic down to this leaf.
    const uint32_t key = pod_keys ? my_pod : rank;
    t.routes.push_back({plan.leaf_prefix(leaf), group, key, rank, false});
  }
  uint32_t pods = 0;
  for (uint32_t leaf : r.leaves())
    pods = std::max(pods, topo.node(r.graph().node_of(leaf)).pod + 1);
  t.num_dests = static_cast<uint32_t>(pod_keys ? pods : r.leaves().size());
  return t;
}

StaticRoute parse_static_route(const std::string& text) {
  auto fail = [&](const std::string& why) {
    return std::invalid_argument("--route " + text + ": " + why +
                                 " (expected A.B.C.D/LEN=PORT[,PORT...])");
  };
  const auto eq = text.find('=');
  const auto slash = text.find('/');
  if (eq == std::string::npos || slash == std::string::npos || slash > eq) throw fail("malformed");
  unsigned a, b, c, d, len;
  char tail;
  if (std::sscanf(text.substr(0, eq).c_str(), "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &len, &tail) !=
          5 ||
      a > 255 || b > 255 || c > 255 || d > 255 || len > 32) {
    throw fail("bad prefix");
  }
  StaticRoute r;
  const uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);
  const uint32_t addr = (a << 24) | (b << 16) | (c << 8) | d;
  if ((addr & ~mask) != 0) {
    throw fail(fmt::format("host bits set beyond /{} (did you mean {}/{}?)", len,
                           topo::ip_to_string(addr & mask), len));
  }
  r.prefix = {addr, static_cast<uint8_t>(len)};
  size_t pos = eq + 1;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    char* end = nullptr;
    const unsigned long port = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || port > 65535) throw fail("bad port '" + item + "'");
    r.ports.push_back(static_cast<topo::PortId>(port));
    pos = comma + 1;
  }
  return r;
}

void add_static_route(SwitchTables& t, const StaticRoute& r) {
  // A prefix the topology's routes cover (or another static route has) would take their traffic
  // or replace their ports in the LPM table (rte_lpm_add of an existing prefix replaces it). A
  // shorter one around the topology's is fine: the longest match keeps the topology's.
  for (const RouteEntry& e : t.routes) {
    const uint32_t mask = e.prefix.len == 0 ? 0 : ~0u << (32 - e.prefix.len);
    if (r.prefix.len >= e.prefix.len && (r.prefix.addr & mask) == e.prefix.addr) {
      throw std::invalid_argument(fmt::format(
          "static route {}/{}: inside {}/{}, which switch {} already routes: a static route is "
          "for addresses outside the topology",
          topo::ip_to_string(r.prefix.addr), r.prefix.len, topo::ip_to_string(e.prefix.addr),
          e.prefix.len, t.name));
    }
  }
  for (topo::PortId p : r.ports) {
    if (p >= t.ports.size()) {
      throw std::invalid_argument("static route " + topo::ip_to_string(r.prefix.addr) + "/" +
                                  std::to_string(r.prefix.len) + ": switch " + t.name +
                                  " has no port " + std::to_string(p) + " (it has " +
                                  std::to_string(t.ports.size()) + ")");
    }
  }
  t.groups.push_back(r.ports);
  t.routes.push_back(
      {r.prefix, static_cast<uint32_t>(t.groups.size() - 1), t.num_dests++, UINT32_MAX, false});
}

}  // namespace spraylab::dataplane

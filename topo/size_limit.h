// How large a generated topology may be, checked before anything is built: a mistyped k or leaf
// count would otherwise spend minutes and gigabytes (a 3-level fat tree of k = 1000 has 250 M
// hosts) before failing. Header-only, so the config loader (which does not link topo) reports the
// same limits at the key that set them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace spraylab::topo {

// 4 M hosts is a k = 256 fat tree (the address plan's 256 pods; about 4.5 GB to build); a port
// number is a PortId (uint16_t). Switches and links are bounded too, since a generator's switches
// need not have hosts (a leaf-spine's spines, a Dragonfly's group links): the routing table holds
// a byte per pair of switches (topo/routing.h: 17 GB at the bound, the k = 256 fat tree's 81 920
// switches take 6.7 GB) and a link is 32 bytes (the k = 256 fat tree has 12.6 M).
inline constexpr uint64_t kMaxHosts = uint64_t{1} << 22;
inline constexpr uint64_t kMaxPorts = UINT16_MAX;
inline constexpr uint64_t kMaxSwitches = uint64_t{1} << 17;
inline constexpr uint64_t kMaxLinks = uint64_t{1} << 24;

struct GeneratedSize {
  uint64_t ports = 0;  // on the switch with the most
  uint64_t hosts = 0;
  uint64_t switches = 0;
  uint64_t links = 0;  // host links included
};

// a·b, or UINT64_MAX when that overflows: the counts below multiply up to four parameters.
constexpr uint64_t saturating_product(uint64_t a, uint64_t b) {
  return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}
constexpr uint64_t saturating_sum(uint64_t a, uint64_t b) {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

// pods: the 4-level tree's populated pods (0: all k), each with (k/2)³ hosts.
constexpr GeneratedSize fat_tree_size(uint32_t k, uint32_t levels, uint32_t pods = 0) {
  const uint64_t kk = std::min<uint64_t>(k, kMaxPorts + 1);  // no overflow; the ports fail first
  const uint64_t h = kk / 2;
  if (levels == 4) {
    // At most k pods (the loader and fat_tree4 refuse more): pods past it would overflow here.
    const uint64_t p = pods != 0 ? std::min<uint64_t>(pods, kk) : kk;
    // Three levels of h² switches a pod, h³ cores; a pod's hosts and three layers of links.
    return {k, p * h * h * h, 3 * p * h * h + h * h * h, 4 * p * h * h * h};
  }
  if (levels == 2) return {k, kk * h, kk + h, 2 * kk * h};  // k leaves, k/2 spines
  return {k, kk * kk * kk / 4, 5 * kk * kk / 4, 3 * kk * kk * kk / 4};
}
constexpr GeneratedSize leaf_spine_size(uint32_t leaves, uint32_t spines, uint32_t hosts_per_leaf) {
  return {std::max<uint64_t>(leaves, uint64_t{spines} + hosts_per_leaf),
          uint64_t{leaves} * hosts_per_leaf, uint64_t{leaves} + spines,
          uint64_t{leaves} * hosts_per_leaf + uint64_t{leaves} * spines};
}
// N2 = u·N1 / (u + d) spines (the generator refuses a remainder).
constexpr GeneratedSize mrls_size(uint32_t leaves, uint32_t uplinks, uint32_t downlinks) {
  const uint64_t radix = uint64_t{uplinks} + downlinks;
  const uint64_t spines = radix == 0 ? 0 : uint64_t{uplinks} * leaves / radix;
  return {radix, uint64_t{leaves} * downlinks, leaves + spines, uint64_t{leaves} * radix};
}
// groups = 0 stands for the balanced maximum (generators.h). Each group's routers are all linked
// to each other; a global link joins two routers.
constexpr GeneratedSize dragonfly_size(uint32_t hosts_per_router, uint32_t routers_per_group,
                                       uint32_t global_links, uint32_t groups) {
  const uint64_t g = groups != 0 ? groups : uint64_t{routers_per_group} * global_links + 1;
  const uint64_t routers = saturating_product(routers_per_group, g);
  const uint64_t hosts = saturating_product(hosts_per_router, routers);
  const uint64_t local = saturating_product(
      g, uint64_t{routers_per_group} * (routers_per_group - (routers_per_group > 0)) / 2);
  const uint64_t global = saturating_product(routers, global_links) / 2;
  return {uint64_t{hosts_per_router} + routers_per_group - 1 + global_links, hosts, routers,
          saturating_sum(saturating_sum(hosts, local), global)};
}
// A group's leaves and spines fully linked; a global link joins two spines.
constexpr GeneratedSize dragonfly_plus_size(uint32_t leaves, uint32_t spines,
                                            uint32_t hosts_per_leaf, uint32_t global_links,
                                            uint32_t groups) {
  const uint64_t g = groups != 0 ? groups : uint64_t{spines} * global_links + 1;
  const uint64_t hosts = saturating_product(saturating_product(leaves, hosts_per_leaf), g);
  const uint64_t local = saturating_product(uint64_t{leaves} * spines, g);
  const uint64_t global = saturating_product(saturating_product(spines, global_links), g) / 2;
  return {std::max(uint64_t{hosts_per_leaf} + spines, uint64_t{leaves} + global_links), hosts,
          saturating_product(uint64_t{leaves} + spines, g),
          saturating_sum(saturating_sum(hosts, local), global)};
}
// q² + q + 1 points: two leaves and a spine per point, a leaf's q + 1 uplinks.
constexpr GeneratedSize oft_size(uint32_t q, uint32_t hosts_per_leaf) {
  const uint64_t points = uint64_t{q} * q + q + 1;  // below 2^65: q < 2^32
  const uint64_t hosts = saturating_product(saturating_product(2, points), hosts_per_leaf);
  return {std::max(uint64_t{hosts_per_leaf} + q + 1, 2 * (uint64_t{q} + 1)), hosts,
          saturating_product(3, points),
          saturating_sum(hosts, saturating_product(saturating_product(2, points), q + uint64_t{1}))};
}

// Empty when it fits, else why not (ports first: with them in range the counts are exact).
inline std::string size_problem(const GeneratedSize& s) {
  if (s.ports > kMaxPorts) {
    return fmt::format("a switch would have {} ports, more than the {} supported", s.ports,
                       kMaxPorts);
  }
  if (s.hosts > kMaxHosts) {
    return fmt::format("{} hosts, more than the {} supported", s.hosts, kMaxHosts);
  }
  if (s.switches > kMaxSwitches) {
    return fmt::format(
        "{} switches, more than the {} supported (the routing table holds a byte per pair of "
        "switches)",
        s.switches, kMaxSwitches);
  }
  if (s.links > kMaxLinks) {
    return fmt::format("{} links, more than the {} supported", s.links, kMaxLinks);
  }
  return {};
}

}  // namespace spraylab::topo

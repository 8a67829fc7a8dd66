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
// number is a PortId (uint16_t).
inline constexpr uint64_t kMaxHosts = uint64_t{1} << 22;
inline constexpr uint64_t kMaxPorts = UINT16_MAX;

struct GeneratedSize {
  uint64_t ports = 0;  // on the switch with the most
  uint64_t hosts = 0;
};

// pods: the 4-level tree's populated pods (0: all k), each with (k/2)³ hosts.
constexpr GeneratedSize fat_tree_size(uint32_t k, uint32_t levels, uint32_t pods = 0) {
  const uint64_t kk = std::min<uint64_t>(k, kMaxPorts + 1);  // no overflow; the ports fail first
  if (levels == 4) return {k, (pods != 0 ? pods : kk) * (kk / 2) * (kk / 2) * (kk / 2)};
  return {k, levels == 2 ? kk * kk / 2 : kk * kk * kk / 4};
}
constexpr GeneratedSize leaf_spine_size(uint32_t leaves, uint32_t spines, uint32_t hosts_per_leaf) {
  return {std::max<uint64_t>(leaves, uint64_t{spines} + hosts_per_leaf),
          uint64_t{leaves} * hosts_per_leaf};
}
constexpr GeneratedSize mrls_size(uint32_t leaves, uint32_t uplinks, uint32_t downlinks) {
  return {uint64_t{uplinks} + downlinks, uint64_t{leaves} * downlinks};
}

// a·b, or UINT64_MAX when that overflows: the host counts below multiply three parameters.
constexpr uint64_t saturating_product(uint64_t a, uint64_t b) {
  return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}
// groups = 0 stands for the balanced maximum (generators.h).
constexpr GeneratedSize dragonfly_size(uint32_t hosts_per_router, uint32_t routers_per_group,
                                       uint32_t global_links, uint32_t groups) {
  const uint64_t g = groups != 0 ? groups : uint64_t{routers_per_group} * global_links + 1;
  return {uint64_t{hosts_per_router} + routers_per_group - 1 + global_links,
          saturating_product(saturating_product(hosts_per_router, routers_per_group), g)};
}
constexpr GeneratedSize dragonfly_plus_size(uint32_t leaves, uint32_t spines,
                                            uint32_t hosts_per_leaf, uint32_t global_links,
                                            uint32_t groups) {
  const uint64_t g = groups != 0 ? groups : uint64_t{spines} * global_links + 1;
  return {std::max(uint64_t{hosts_per_leaf} + spines, uint64_t{leaves} + global_links),
          saturating_product(saturating_product(leaves, hosts_per_leaf), g)};
}
constexpr GeneratedSize oft_size(uint32_t q, uint32_t hosts_per_leaf) {
  const uint64_t points = uint64_t{q} * q + q + 1;  // below 2^65: q < 2^32
  return {std::max(uint64_t{hosts_per_leaf} + q + 1, 2 * (uint64_t{q} + 1)),
          saturating_product(saturating_product(2, points), hosts_per_leaf)};
}

// Empty when it fits, else why not (ports first: with them in range the host count is exact).
inline std::string size_problem(const GeneratedSize& s) {
  if (s.ports > kMaxPorts) {
    return fmt::format("a switch would have {} ports, more than the {} supported", s.ports,
                       kMaxPorts);
  }
  if (s.hosts > kMaxHosts) {
    return fmt::format("{} hosts, more than the {} supported", s.hosts, kMaxHosts);
  }
  return {};
}

}  // namespace spraylab::topo

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

constexpr GeneratedSize fat_tree_size(uint32_t k, uint32_t levels) {
  const uint64_t kk = std::min<uint64_t>(k, kMaxPorts + 1);  // no overflow; the ports fail first
  return {k, levels == 2 ? kk * kk / 2 : kk * kk * kk / 4};
}
constexpr GeneratedSize leaf_spine_size(uint32_t leaves, uint32_t spines, uint32_t hosts_per_leaf) {
  return {std::max<uint64_t>(leaves, uint64_t{spines} + hosts_per_leaf),
          uint64_t{leaves} * hosts_per_leaf};
}
constexpr GeneratedSize mrls_size(uint32_t leaves, uint32_t uplinks, uint32_t downlinks) {
  return {uint64_t{uplinks} + downlinks, uint64_t{leaves} * downlinks};
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

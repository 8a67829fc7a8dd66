// The palm-tree arrangement of a Dragonfly's global links (Kim et al. 2008 as CAMINOS builds it,
// M. García's arrangement, extended by Camarero et al. to g − 1 dividing the ports per group):
// global port k of group G (k = router·h + j over the group's a·h global ports) joins group
// G + 1 + ((a·h − 1 − k) mod (g − 1)) at its port a·h − 1 − k. The map is an involution, never
// joins a group to itself, and gives every pair of groups a·h / (g − 1) links. Dragonfly+ uses
// it over its spines' global ports.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace spraylab::topo {

struct GlobalPort {
  uint32_t group;
  uint32_t index;  // among the group's global ports, router-major
};

// `per_group` = the group's global ports (a·h); requires groups ≥ 2 and (groups − 1) | per_group.
constexpr GlobalPort palm_tree_peer(GlobalPort from, uint32_t groups, uint32_t per_group) {
  const uint32_t index = per_group - 1 - from.index;
  const uint32_t offset = 1 + index % (groups - 1);
  return {static_cast<uint32_t>((uint64_t{from.group} + offset) % groups), index};
}

// Why `groups` cannot be arranged over `per_group` global ports per group, or empty when it can:
// 0 (the balanced maximum per_group + 1) or 2 .. per_group + 1 with g − 1 dividing per_group.
// `what` names per_group for the message. Header-only: the config loader reports it at the key.
inline std::string palm_tree_groups_problem(uint32_t groups, uint64_t per_group, const char* what) {
  if (groups == 0) {
    if (per_group + 1 > UINT32_MAX) {
      return fmt::format("{} + 1 = {} groups is too many", what, per_group + 1);
    }
    return {};
  }
  if (groups < 2 || groups > per_group + 1) {
    return fmt::format(
        "groups must be between 2 and {} + 1 = {} (one global link per pair of groups), got {}",
        what, per_group + 1, groups);
  }
  if (per_group % (groups - 1) != 0) {
    return fmt::format(
        "groups - 1 = {} must divide {} = {}, so that every pair of groups gets the same number "
        "of global links",
        groups - 1, what, per_group);
  }
  return {};
}

// q is prime: the OFT's projective plane is built over the integers mod q (oft.cpp).
constexpr bool is_prime(uint32_t q) {
  if (q < 2) return false;
  for (uint64_t d = 2; d * d <= q; ++d) {
    if (q % d == 0) return false;
  }
  return true;
}

}  // namespace spraylab::topo

// Steps every generator shares: node names, a leaf's host links, the size check. Internal to the
// generator files (generators.cpp, dragonfly.cpp, dragonfly_plus.cpp, oft.cpp).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "topo/generators.h"
#include "topo/palm_tree.h"
#include "topo/size_limit.h"

namespace spraylab::topo::generator_steps {

inline std::string name(const char* prefix, uint32_t i) { return fmt::format("{}{}", prefix, i); }

inline void check_size(const char* kind, const GeneratedSize& size) {
  if (std::string why = size_problem(size); !why.empty()) {
    throw TopologyError(fmt::format("{}: {}", kind, why));
  }
}

// Adds `count` hosts to `leaf`, hosts named h<global index>.
inline void add_hosts(Topology& t, NodeId leaf, uint32_t count, uint32_t pod,
                      const LinkDefaults& l) {
  for (uint32_t i = 0; i < count; ++i) {
    NodeId h = t.add_host(name("h", static_cast<uint32_t>(t.hosts().size())), pod);
    t.add_link(leaf, h, l.rate_bps, l.delay_ns);
  }
}

// The group count of a palm-tree arrangement over `per_group` global ports per group (0: the
// balanced maximum per_group + 1), or a TopologyError saying why `groups` cannot be arranged.
inline uint32_t palm_tree_groups(const char* kind, uint32_t groups, uint64_t per_group,
                                 const char* what) {
  if (std::string why = palm_tree_groups_problem(groups, per_group, what); !why.empty()) {
    throw TopologyError(fmt::format("{}: {}", kind, why));
  }
  return groups != 0 ? groups : static_cast<uint32_t>(per_group + 1);
}

}  // namespace spraylab::topo::generator_steps

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "conf/explicit_topology.h"
#include "conf/schema.h"
#include "conf/sections.h"
#include "conf/topology_size.h"
#include "topo/mrls_rules.h"
#include "topo/palm_tree.h"
#include "topo/size_limit.h"

namespace spraylab::conf {
namespace {

// MRLS §2.2: N2 = u·N1/R spines must be whole, and each spine's R leaf links need R distinct
// leaves (which also gives each leaf u distinct spines).
void check_mrls(const Map& map, const TopologySpec& t) {
  const uint64_t radix = uint64_t{t.uplinks} + t.downlinks;
  const Value& leaves = *map.find("leaves");
  const uint64_t leaf_ports = uint64_t{t.leaves} * t.uplinks;
  if (leaf_ports % radix != 0) {
    leaves.fail(fmt::format(
        "expected leaves * uplinks divisible by the radix uplinks + downlinks = {}, found {} * {} "
        "= {}",
        radix, t.leaves, t.uplinks, leaf_ports));
  }
  if (t.leaves < radix) {
    leaves.expected(fmt::format("at least radix = uplinks + downlinks = {} leaves", radix));
  }
  if (const uint64_t spines = leaf_ports / radix; t.uplinks == 1 && spines > 1) {
    map.find("uplinks")->fail(topo::mrls_one_uplink_problem(spines));
  }
}

// Dragonfly and Dragonfly+: the palm-tree arrangement needs groups − 1 to divide the global
// ports per group (topo/palm_tree.h). OFT: q prime (topo/oft.cpp).
void check_arrangement(const Map& map, const TopologySpec& t) {
  std::string why;
  if (t.generator == topo::Kind::kDragonfly) {
    why = topo::palm_tree_groups_problem(t.groups,
                                         uint64_t{t.routers_per_group} * t.global_links_per_router,
                                         "routers_per_group·global_links_per_router");
  } else if (t.generator == topo::Kind::kDragonflyPlus) {
    why = topo::palm_tree_groups_problem(t.groups,
                                         uint64_t{t.spines_per_group} * t.global_links_per_spine,
                                         "spines_per_group·global_links_per_spine");
  } else if (t.generator == topo::Kind::kOft && !topo::is_prime(t.q)) {
    map.find("q")->fail(fmt::format(
        "expected a prime (the projective plane is built over the integers mod q; prime powers "
        "are not implemented), found {}",
        t.q));
  }
  if (why.empty()) return;
  const Value* at = map.find("groups");
  if (!at) at = map.find("generator");
  at->fail(why);
}

// A generated topology's size and the keys that set it, most telling first (nullopt: explicit).
struct SizeKeys {
  topo::GeneratedSize size;
  std::array<std::string_view, 3> keys;
};
std::optional<SizeKeys> size_keys(const TopologySpec& t) {
  topo::GeneratedSize size;
  std::array<std::string_view, 3> keys;
  switch (t.generator) {
    case topo::Kind::kFatTree:
      size = topo::fat_tree_size(t.k, t.levels, t.pods);
      keys = {"k", "levels", "k"};
      break;
    case topo::Kind::kLeafSpine:
      size = topo::leaf_spine_size(t.leaves, t.spines, t.hosts_per_leaf);
      // A leaf's ports are spines + hosts_per_leaf; a spine's, leaves.
      keys = size.ports > topo::kMaxPorts && size.ports != t.leaves
                 ? std::array<std::string_view, 3>{"spines", "hosts_per_leaf", "leaves"}
                 : std::array<std::string_view, 3>{"leaves", "hosts_per_leaf", "spines"};
      break;
    case topo::Kind::kMrls:
      size = topo::mrls_size(t.leaves, t.uplinks, t.downlinks);
      keys = {"leaves", "downlinks", "uplinks"};
      break;
    case topo::Kind::kDragonfly:
      size = topo::dragonfly_size(t.hosts_per_router, t.routers_per_group,
                                  t.global_links_per_router, t.groups);
      keys = {"hosts_per_router", "routers_per_group", "global_links_per_router"};
      break;
    case topo::Kind::kDragonflyPlus:
      size = topo::dragonfly_plus_size(t.leaves_per_group, t.spines_per_group, t.hosts_per_leaf,
                                       t.global_links_per_spine, t.groups);
      keys = {"leaves_per_group", "hosts_per_leaf", "spines_per_group"};
      break;
    case topo::Kind::kOft:
      size = topo::oft_size(t.q, t.hosts_per_leaf);
      keys = {"q", "hosts_per_leaf", "q"};
      break;
    case topo::Kind::kExplicit:
      return std::nullopt;
  }
  return SizeKeys{size, keys};
}

// The generators' size limits (topo/size_limit.h), reported at the first of the keys that set
// the size (with every one of them absent the defaults are small).
void check_size(const Map& map, const TopologySpec& t) {
  const std::optional<SizeKeys> s = size_keys(t);
  if (!s) return;
  const auto& [size, keys] = *s;
  const std::string why = topo::size_problem(size);
  if (why.empty()) return;
  for (std::string_view key : keys) {
    if (const Value* v = map.find(key)) v->fail(why);
  }
}

// A 4-level fat tree is depopulated by whole pods, at most its k (topo/fat_tree4.cpp).
void check_fat_tree_pods(const Map& map, const TopologySpec& t) {
  const Value* pods = map.find("pods");
  if (!pods) return;
  if (t.levels != 4) pods->fail("read only with levels: 4 (only the 4-level tree is depopulated)");
  if (t.pods > t.k) pods->expected(fmt::format("at most k = {} pods", t.k));
}

}  // namespace

std::optional<topo::GeneratedSize> generated_size(const TopologySpec& topology) {
  const std::optional<SizeKeys> s = size_keys(topology);
  if (!s) return std::nullopt;
  return s->size;
}

void read_topology(const Map& map, TopologySpec& topology) {
  const VariantTable& generators = topology_generators();
  if (const Value* generator = map.find("generator")) {
    topology.generator = generator->as_enum<topo::Kind>(topo::kKindNames);
  } else if (map.find("switches")) {
    topology.generator = topo::Kind::kExplicit;
  } else {
    map.require("generator",
                "one of " + join(generators.names()) + " (or switches, hosts and links)");
  }
  check_variant_keys(map, generators, topo::to_string(topology.generator), topology_fields());
  read_present(map, topology_fields(), topology);
  check_size(map, topology);
  if (topology.generator == topo::Kind::kMrls) check_mrls(map, topology);
  if (topology.generator == topo::Kind::kFatTree) check_fat_tree_pods(map, topology);
  check_arrangement(map, topology);
  if (topology.generator == topo::Kind::kExplicit) check_explicit_topology(map);
}

uint32_t level_count(const TopologySpec& topology) {
  if (topology.generator == topo::Kind::kFatTree) return topology.levels;
  if (topology.generator == topo::Kind::kExplicit) {
    uint32_t levels = 1;
    for (const ExplicitSwitch& s : topology.switches) levels = std::max(levels, s.level + 1);
    return levels;
  }
  if (topology.generator == topo::Kind::kDragonfly) return 1;  // every router has hosts
  return 2;  // leaf-spine, MRLS, Dragonfly+ and OFT: leaves and spines
}

}  // namespace spraylab::conf

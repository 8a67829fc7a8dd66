#include <fmt/format.h>

#include <algorithm>

#include "conf/explicit_topology.h"
#include "conf/schema.h"
#include "conf/sections.h"

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
}

}  // namespace

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
  if (topology.generator == topo::Kind::kMrls) check_mrls(map, topology);
  if (topology.generator == topo::Kind::kExplicit) check_explicit_topology(map);
}

uint32_t level_count(const TopologySpec& topology) {
  if (topology.generator == topo::Kind::kFatTree) return topology.levels;
  if (topology.generator == topo::Kind::kExplicit) {
    uint32_t levels = 1;
    for (const ExplicitSwitch& s : topology.switches) levels = std::max(levels, s.level + 1);
    return levels;
  }
  return 2;  // leaf-spine and MRLS: leaves and spines
}

}  // namespace spraylab::conf

#include <fmt/format.h>

#include <array>

#include "conf/schema.h"
#include "conf/sections.h"

namespace spraylab::conf {
namespace {

// One balancer map. An override (parent != nullptr) starts from the top-level algorithm and takes
// the top-level value of every parameter its algorithm accepts and it does not set itself.
BalancerSpec read_balancer(const Map& map, const Map* parent, lb::Algorithm inherited,
                           std::span<const std::string_view> extra) {
  const VariantTable& table = balancer_algorithms();
  if (parent != nullptr) {
    for (const Map::Entry& entry : map.entries()) {
      if (entry.key == "layers" || entry.key == "switches" || entry.key == "upgrade") {
        entry.key_node.fail(fmt::format(
            "overrides do not nest; expected '{}' directly under load_balancer", entry.key));
      }
    }
  }
  lb::Algorithm algorithm = inherited;
  if (const Value* v = map.find("algorithm"))
    algorithm = v->as_enum<lb::Algorithm>(lb::kAlgorithmNames);
  const std::string_view name = lb::to_string(algorithm);
  check_variant_keys(map, table, name, balancer_fields(), extra);

  BalancerSpec spec = balancer_defaults(algorithm);
  if (parent != nullptr) {
    for (std::string_view key : table.find(name).keys) {
      const Value* top = parent->find(key);
      if (top != nullptr && map.find(key) == nullptr) {
        find_field(balancer_fields(), key)->read(*top, spec);
      }
    }
  }
  read_present(map, balancer_fields(), spec);

  if (algorithm == lb::Algorithm::kKsp && (spec.k < 1 || spec.k > BalancerSpec::kKspMaxK)) {
    // The switch's factory would refuse it once the fabric is built: said here, at the key.
    const Value* k = map.find("k");
    if (k == nullptr && parent != nullptr) k = parent->find("k");
    const Value& at = k != nullptr ? *k : *map.find("algorithm");
    at.fail(fmt::format("ksp needs 1 to {} paths per leaf pair, found {}", BalancerSpec::kKspMaxK,
                        spec.k));
  }
  if (lb::info(algorithm).defaults.bands > 0 && spec.bands == 0) {
    // The algorithm's default has bands (PSP's n), so a 0 was written here or inherited.
    const Value* bands = map.find("bands");
    if (bands == nullptr && parent != nullptr) bands = parent->find("bands");
    if (bands != nullptr) {
      bands->expected(fmt::format("an integer in [1, 1024] ({} needs at least one band)", name));
    }
  }
  return spec;
}

// Per-switch overrides of an explicit topology must name one of its switches.
void check_switch_name(const Value& key, const std::string& name, const TopologySpec& topology) {
  // A generated topology's names are checked once it is built (fabric/run/variants.cpp).
  if (topology.generator != topo::Kind::kExplicit) return;
  std::vector<std::string_view> names;
  for (const ExplicitSwitch& s : topology.switches) {
    if (s.name == name) return;
    names.push_back(s.name);
  }
  const std::string message = fmt::format("no switch named '{}'", name);
  if (auto guess = nearest(name, names))
    key.fail(message + fmt::format("; did you mean '{}'?", *guess));
  key.fail(message + "; expected one of: " + join(names));
}

// The Dragonfly routings need the groups only the dragonfly and dragonfly-plus generators record
// (topo/dragonfly_groups.h), and fpar is defined on a Dragonfly+ only: said at the algorithm key.
void check_topology(const Map& map, const BalancerSpec& spec, const TopologySpec& topology) {
  const Value* key = map.find("algorithm");
  if (key == nullptr || !lb::traits(spec.algorithm).dragonfly) return;
  const std::string_view name = lb::to_string(spec.algorithm);
  const topo::Kind kind = topology.generator;
  if (spec.algorithm == lb::Algorithm::kFpar && kind != topo::Kind::kDragonflyPlus) {
    key->fail(fmt::format("fpar routes a Dragonfly+ (topology.generator: dragonfly-plus), not {}",
                          topo::to_string(kind)));
  }
  if (kind != topo::Kind::kDragonfly && kind != topo::Kind::kDragonflyPlus) {
    key->fail(fmt::format("{} routes a Dragonfly (topology.generator: dragonfly or "
                          "dragonfly-plus), not {}",
                          name, topo::to_string(kind)));
  }
}

}  // namespace

BalancerSpec read_single_balancer(const Map& map) {
  return read_balancer(map, nullptr, BalancerSpec{}.algorithm, {});
}

void read_balancer_plan(const Map& map, const TopologySpec& topology, BalancerPlan& plan) {
  constexpr std::array<std::string_view, 3> kOverrides = {"layers", "switches", "upgrade"};
  plan.fallback = read_balancer(map, nullptr, BalancerSpec{}.algorithm, kOverrides);
  check_topology(map, plan.fallback, topology);

  if (const Value* layers_value = map.find("layers")) {
    const Map layers(*layers_value);
    const uint32_t top = level_count(topology) - 1;
    const std::string what = fmt::format("a switch level in [0, {}]", top);
    for (const Map::Entry& entry : layers.entries()) {
      const auto level = static_cast<uint32_t>(entry.key_node.as_uint(0, top, what));
      if (plan.per_layer.count(level))
        entry.key_node.fail(fmt::format("duplicate level {}", level));
      plan.per_layer[level] = read_balancer(Map(entry.value), &map, plan.fallback.algorithm, {});
      check_topology(Map(entry.value), plan.per_layer[level], topology);
    }
  }
  if (const Value* switches_value = map.find("switches")) {
    const Map switches(*switches_value);
    for (const Map::Entry& entry : switches.entries()) {
      check_switch_name(entry.key_node, entry.key, topology);
      const YAML::Mark& at = entry.key_node.mark();
      plan.per_switch_at[entry.key] = {at.line + 1, at.column + 1};
      plan.per_switch[entry.key] =
          read_balancer(Map(entry.value), &map, plan.fallback.algorithm, {});
      check_topology(Map(entry.value), plan.per_switch[entry.key], topology);
    }
  }
  if (const Value* upgrade_value = map.find("upgrade")) {
    // A balancer as an override is, with two keys of its own.
    constexpr std::array<std::string_view, 2> kUpgradeKeys = {"strategy", "fraction"};
    const Map upgrade(*upgrade_value);
    UpgradeSpec u;
    u.strategy = upgrade.require("strategy", "edge, aggregation, random or pods")
                     .as_enum<UpgradeStrategy>(kUpgradeStrategyNames);
    if (const Value* f = upgrade.find("fraction")) {
      u.fraction = f->as_number(0, 1);
    }
    u.balancer = read_balancer(upgrade, &map, plan.fallback.algorithm, kUpgradeKeys);
    plan.upgrade = u;
  }
}

}  // namespace spraylab::conf

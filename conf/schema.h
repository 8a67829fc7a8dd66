// The experiment file's schema: one table of keys per section (field.h), the variants of the
// sections whose keys depend on a selector (topology.generator, load_balancer.algorithm,
// workload.type), and the list of every documented key.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conf/experiment.h"
#include "conf/field.h"

namespace spraylab::conf {

// One row of docs/configuration.md.
struct KeyDoc {
  std::string path;  // "topology.k", "topology.links[].rate"
  std::string type;
  std::string default_value;
  std::string doc;
};
std::vector<KeyDoc> documented_keys();

// A section whose selector key picks which of its other keys are allowed.
struct Variant {
  std::string_view name;
  std::vector<std::string_view> keys;      // besides the section's common keys
  std::vector<std::string_view> required;  // of all allowed keys, those that must be given
};
struct VariantTable {
  std::string_view selector;             // "algorithm"
  std::string_view noun;                 // "algorithm", as messages name the chosen variant
  std::vector<std::string_view> common;  // keys every variant takes, the selector among them
  std::vector<Variant> variants;

  std::vector<std::string_view> names() const;
  const Variant& find(std::string_view name) const;  // name must be one of names()
  std::vector<std::string_view> allowed(std::string_view name) const;
};

// Checks a map's keys against the chosen variant: a key of another variant "is not a parameter
// of" the chosen one, any other stray key is unknown; required keys must be present (types come
// from `fields` for the message). `extra` are further keys the caller reads itself.
template <class S>
void check_variant_keys(const Map& map, const VariantTable& table, std::string_view chosen,
                        const Fields<S>& fields, std::span<const std::string_view> extra = {});

const Fields<Experiment>& experiment_fields();  // name, seed (sections are read by the loader)
const Fields<TopologySpec>& topology_fields();
const VariantTable& topology_generators();
const Fields<ExplicitSwitch>& explicit_switch_fields();
const Fields<ExplicitLink>& explicit_link_fields();
const Fields<LinkSpec>& link_fields();
const Fields<BufferSpec>& buffer_fields();
const Fields<BalancerSpec>& balancer_fields();
const VariantTable& balancer_algorithms();
// BalancerSpec{} with `algorithm` and its own defaults (lb::AlgorithmInfo::defaults).
BalancerSpec balancer_defaults(lb::Algorithm algorithm);
const Fields<WorkloadSpec>& workload_fields();
const VariantTable& workload_types();
const Fields<MeasurementSpec>& measurement_fields();
const Fields<EventsSpec>& events_fields();
const Fields<LinkEventSpec>& link_event_fields();

// The non-template part of check_variant_keys.
void check_variant_keys(const Map& map, const VariantTable& table, std::string_view chosen,
                        std::span<const std::string_view> known,
                        std::span<const std::string_view> extra,
                        const std::function<std::string(std::string_view)>& type_of);

template <class S>
void check_variant_keys(const Map& map, const VariantTable& table, std::string_view chosen,
                        const Fields<S>& fields, std::span<const std::string_view> extra) {
  const auto known = keys_of(fields);
  check_variant_keys(map, table, chosen, known, extra, [&](std::string_view key) {
    const Field<S>* field = find_field(fields, key);
    return field ? with_article(field->type) : std::string("a value");
  });
}

}  // namespace spraylab::conf

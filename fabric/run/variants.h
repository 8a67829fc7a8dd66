// The variants of one experiment that `spraylab run` compares: each algorithm of --algorithms
// crossed with every value of each --sweep. A variant is the experiment's YAML with its values
// set (fabric/run/yaml_path.h) and loaded again by the loader, so a bad key or value is reported as
// the loader reports it in a file, with the file's line and column and the option it came from.
#pragma once

#include <string>
#include <vector>

#include "conf/experiment.h"

namespace spraylab::fabric {

// One --sweep key=v1,v2,... (or --set key=value): a dotted key path and YAML values.
struct Sweep {
  std::string key;                  // "workload.message_size", "topology.links[2].rate"
  std::vector<std::string> values;  // each a YAML value: "64KB", "{algorithm: jsq}"
};

// Parses "key=v1,v2,..."; commas inside [] or {} belong to the value. `option` ("--sweep")
// names the option in errors. Throws std::invalid_argument.
Sweep parse_sweep(const std::string& text, const std::string& option);

// The key seeds are swept over (the experiment's `seed:`, --seeds): a reproduction's figures and
// the seeds table group by everything but it.
inline constexpr const char* kSeedKey = "seed";

// The sweep of `count` seeds from `first` (the experiment's seed) on: "seed=1,2,...".
Sweep seed_sweep(uint64_t first, uint32_t count);

// The name of the variant without its "-seed=N" part: the point it is one seed of.
std::string name_without_seed(const std::string& variant_name);

struct VariantRequest {
  std::vector<std::string> algorithms;  // empty: the file's algorithm only
  std::vector<Sweep> sweeps;            // crossed, the first varying slowest
  std::vector<Sweep> sets;              // one value each: every variant, not in variant names
  // Where they came from, for errors: empty for the command line (--algorithms, --set, --sweep),
  // else the reproduction run's name.
  std::string reproduce_run;
  std::string algorithms_option = "--algorithms";  // fabric up/export: "--algorithm"
  // Who made `sets` when not the user ("the namespaced fabric's": its rate and payload): errors
  // then name it instead of a --set the user never gave.
  std::string set_origin;
};

// One value a variant sets, and the option that asked for it (for error messages).
struct Setting {
  std::string key;
  std::string value;
  std::string option;   // "--sweep workload.message_size=64KB", "reproduce run 'sw' sweep ..."
  bool in_name = true;  // a --set's is not
};

// A piece of a variant's name: the algorithm (key empty) or one sweep's "label=value".
struct NamePart {
  std::string key;  // the swept key, "workload.message_size"
  std::string text;
};

struct Variant {
  std::string name;                  // "ofan", "ofan-message_size=64KB": a directory name
  std::vector<NamePart> name_parts;  // name is their texts joined by '-'
  std::string algorithm;             // load_balancer.algorithm of this variant
  std::vector<Setting> settings;     // the values that differ from the file, in application order
  std::vector<std::string> notes;    // parameters dropped for the algorithm, to tell the user
  std::string yaml;                  // the resolved experiment file (re-loads to `experiment`)
  conf::Experiment experiment;
};

// Expands `request` over the experiment text `yaml` read from `source` (the file's path: error
// positions, the default name and relative trace paths refer to it). The file itself is loaded
// first, so its own errors read as the loader's. Throws conf::ConfigError for a bad file, key
// or value, and std::invalid_argument for a malformed request (a duplicate algorithm or value,
// a sweep of load_balancer.algorithm, ...).
//
// Choosing an algorithm drops the top-level load_balancer parameters it does not take (an ofan
// file's ack_size under --algorithms ecmp), as overrides in load_balancer.layers do; swept and
// set keys are never dropped, so `--sweep load_balancer.bands=4` with ofan is an error.
std::vector<Variant> expand_variants(const std::string& yaml, const std::string& source,
                                     const VariantRequest& request);

// The directory-safe name of a variant: the algorithm, then "-<key>=<value>" per sweep with the
// key's last step (or the whole key when two sweeps share a last step). Characters other than
// [A-Za-z0-9._+=-] ('/' and NUL among them) and a leading '.' become '_': the name is always one
// folder below the results folder. expand_variants rejects a name over 255 bytes.
std::vector<NamePart> variant_name_parts(const std::string& algorithm,
                                         const std::vector<Sweep>& sweeps,
                                         const std::vector<size_t>& value_index);
std::string variant_name(const std::string& algorithm, const std::vector<Sweep>& sweeps,
                         const std::vector<size_t>& value_index);

// Link events and load_balancer.switches of `e` name switches (and links) of its topology:
// checked at their place in the file (conf::ConfigError), by expand_variants for every variant
// and by `topo check`.
void check_against_topology(const conf::Experiment& e);

// The variant's name without the part of sweep `key` (the name itself if it has none): the
// line a variant belongs to when a plot puts that key on its x axis.
std::string name_without(const Variant& variant, const std::string& key);

}  // namespace spraylab::fabric

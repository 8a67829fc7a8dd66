#include "fabric/run/variants.h"

#include "topo/build.h"
#include "topo/link_events.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "conf/folder_name.h"
#include "conf/loader.h"
#include "conf/schema.h"
#include "conf/yaml_value.h"
#include "fabric/run/yaml_path.h"

namespace spraylab::fabric {
namespace {

constexpr const char* kAlgorithmKey = "load_balancer.algorithm";

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// Splits at commas outside [] and {}, so a value may be a YAML list or map.
std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> values;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      values.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  values.push_back(trim(current));
  return values;
}

std::string last_key(const std::string& key) {
  const std::vector<PathStep> steps = parse_key_path(key);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (const auto* name = std::get_if<std::string>(&*it)) return *name;
  }
  return key;
}

// A name part escaped to stay inside its folder: '/', NUL and every other character outside
// [A-Za-z0-9._+=-] become '_', and so does a leading '.', so no variant is named '.', '..' or
// hidden (conf/folder_name.h).
std::string directory_safe(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                    c == '-' || c == '+' || c == '=';
    if (!ok) c = '_';
  }
  if (!out.empty() && out.front() == '.') out.front() = '_';
  return out;
}

// The loader checks a name the file gives; without one the name is the file's stem, which
// becomes the results folder and every variant's config.yaml `name:`, so it must pass too.
void check_default_name(const conf::Experiment& e) {
  if (const auto problem = conf::folder_name_problem(e.name)) {
    throw conf::ConfigError(
        e.source, 0, 0, "name",
        fmt::format("the file has no name: and its stem '{}' cannot name the results folder: it "
                    "{}; give the experiment a name:",
                    conf::printable(e.name), *problem));
  }
}

// Escaping leaves one problem a folder name can have: length. Said before anything runs, not
// when the folder is created after the variant ran.
void check_folder_name(const Variant& v) {
  const auto problem = conf::folder_name_problem(v.name);
  if (!problem) return;
  std::string from;
  for (const Setting& s : v.settings) {
    if (s.in_name) {
      from += (from.empty() ? "" : ", ") + s.option.substr(0, 60);
    }
  }
  throw std::invalid_argument(fmt::format(
      "variant '{}...' cannot be a results folder: its name {}; shorten the values of {}",
      v.name.substr(0, 60), *problem, from));
}

YAML::Node parse_value(const Setting& s) {
  try {
    return YAML::Load(s.value);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(fmt::format("malformed YAML value: {}", e.msg));
  }
}

// Chooses the algorithm and drops the top-level parameters it does not take, as an override
// under load_balancer.layers inherits only what its algorithm takes (docs/configuration.md).
std::vector<std::string> choose_algorithm(YAML::Node& root, const std::string& algorithm) {
  std::vector<std::string> dropped;
  const conf::VariantTable& table = conf::balancer_algorithms();
  const auto names = table.names();
  const YAML::Node& const_root = root;
  const bool known = std::find(names.begin(), names.end(), algorithm) != names.end();
  const YAML::Node section = const_root.IsMap() ? const_root["load_balancer"] : YAML::Node();
  if (known && section.IsDefined() && section.IsMap()) {
    YAML::Node balancer = root["load_balancer"];
    const auto allowed = table.allowed(algorithm);
    std::vector<std::string> keys;
    for (const auto& entry : balancer) keys.push_back(entry.first.as<std::string>());
    for (const std::string& key : keys) {
      if (key == "layers" || key == "switches" || key == "upgrade") continue;
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      balancer.remove(key);
      dropped.push_back(fmt::format("{}: load_balancer.{} dropped (not a parameter of {})",
                                    algorithm, key, algorithm));
    }
  }
  set_path(root, parse_key_path(kAlgorithmKey), YAML::Node(algorithm));
  return dropped;
}

bool path_within(const std::string& path, const std::string& key) {
  if (path.compare(0, key.size(), key) != 0) return false;
  return path.size() == key.size() || path[key.size()] == '.' || path[key.size()] == '[';
}

// The loader's error on a variant's document, placed in the file the user wrote (the document
// the loader saw was re-emitted, so its lines mean nothing) and naming the options behind it.
[[noreturn]] void throw_in_file(const conf::ConfigError& e, const YAML::Node& file_root,
                                const std::string& source, const std::vector<Setting>& settings) {
  const Setting* origin = nullptr;
  for (const Setting& s : settings) {
    const bool related = path_within(e.path(), s.key) || path_within(s.key, e.path());
    if (related && (origin == nullptr || s.key.size() > origin->key.size())) origin = &s;
  }
  std::string from;
  if (origin != nullptr) {
    from = origin->option;
  } else {
    for (const Setting& s : settings) {
      if (!from.empty()) from += ", ";
      from += s.option;
    }
  }
  // No settings: the file's own error, found only once its variant's topology was built.
  const std::string message =
      from.empty() ? e.message() : fmt::format("{} (from {})", e.message(), from);
  if (e.line() == 0) throw conf::ConfigError(source, 0, 0, e.path(), message);
  const YAML::Mark mark = mark_of(file_root, e.path());
  throw conf::ConfigError(source, mark.line + 1, mark.column + 1, e.path(), message);
}

void check_request(const VariantRequest& request) {
  std::set<std::string> seen;
  const std::string& option = request.algorithms_option;
  const std::vector<std::string_view> names = conf::balancer_algorithms().names();
  for (const std::string& a : request.algorithms) {
    if (a.empty()) throw std::invalid_argument(fmt::format("{}: empty algorithm name", option));
    // A reproduction's run names its balancers in the file: the loader's error, at the line.
    if (request.reproduce_run.empty() && std::find(names.begin(), names.end(), a) == names.end()) {
      // As the file's load_balancer.algorithm says it (conf::Value::as_choice).
      const std::optional<std::string_view> guess = conf::nearest(a, names);
      throw std::invalid_argument(
          fmt::format("{} {}: expected one of {}, found {}{}", option, a, conf::join(names), a,
                      guess ? fmt::format("; did you mean '{}'?", *guess) : ""));
    }
    if (!seen.insert(a).second) {
      throw std::invalid_argument(fmt::format("{}: '{}' is listed twice", option, a));
    }
  }
  std::set<std::string> keys;
  for (const auto* list : {&request.sweeps, &request.sets}) {
    for (const Sweep& s : *list) {
      if (s.key == kAlgorithmKey) {
        throw std::invalid_argument(
            fmt::format("{} is chosen with --algorithms, not --sweep or --set", kAlgorithmKey));
      }
      if (!keys.insert(s.key).second) {
        throw std::invalid_argument(fmt::format("'{}' is swept or set twice", s.key));
      }
    }
  }
  for (const Sweep& s : request.sets) {
    if (s.values.size() != 1) {
      throw std::invalid_argument(fmt::format("--set {}: expected one value", s.key));
    }
  }
  // The experiment's name is its results folder's: variants of one run differing in it would
  // all land in the first value's folder, each summary naming another experiment.
  for (const Sweep& s : request.sweeps) {
    if (s.key == "name") {
      throw std::invalid_argument(
          "name cannot be swept: it names the run's results folder (give --out, or --set name=X)");
    }
  }
}

// The parts' texts joined by '-', leaving out the part of sweep `skip_key`.
std::string join_parts(const std::vector<NamePart>& parts, const std::string& skip_key) {
  std::string name;
  for (const NamePart& p : parts) {
    if (!skip_key.empty() && p.key == skip_key) continue;
    if (!name.empty()) name += '-';
    name += p.text;
  }
  return name;
}

// What a variant sets, in the order it is applied: the algorithm first (it drops parameters),
// then --set, then the sweeps' values.
std::vector<Setting> variant_settings(const std::string& algorithm, const VariantRequest& request,
                                      const std::vector<size_t>& index) {
  // "--sweep k=v" from the command line, "reproduce run 'sw' sweep k=v" from a reproduction.
  auto origin = [&request](std::string_view what, const std::string& text) {
    if (!request.reproduce_run.empty()) {
      return fmt::format("reproduce run '{}' {} {}", request.reproduce_run, what, text);
    }
    if (what == "algorithms") return fmt::format("{} {}", request.algorithms_option, text);
    if (what == "set" && !request.set_origin.empty()) {
      return fmt::format("{} {}", request.set_origin, text);
    }
    return fmt::format("--{} {}", what, text);
  };
  std::vector<Setting> settings;
  if (!algorithm.empty())
    settings.push_back({kAlgorithmKey, algorithm, origin("algorithms", algorithm)});
  for (const Sweep& s : request.sets) {
    settings.push_back(
        {s.key, s.values[0], origin("set", fmt::format("{}={}", s.key, s.values[0])), false});
  }
  for (size_t i = 0; i < request.sweeps.size(); ++i) {
    const Sweep& s = request.sweeps[i];
    settings.push_back({s.key, s.values[index[i]],
                        origin("sweep", fmt::format("{}={}", s.key, s.values[index[i]]))});
  }
  return settings;
}

// The variant's document as YAML text that stands alone: it keeps the experiment's name (not
// the stem of the file it will be written to) and an absolute trace path.
std::string resolved_yaml(YAML::Node& root, const conf::Experiment& base,
                          const std::string& source) {
  const YAML::Node& resolved = root;  // const lookups insert nothing
  if (!resolved["name"].IsDefined()) root["name"] = base.name;
  const YAML::Node workload = resolved["workload"];
  const YAML::Node trace_file =
      workload.IsDefined() && workload.IsMap() ? workload["trace_file"] : YAML::Node();
  if (trace_file.IsDefined() && trace_file.IsScalar()) {
    std::filesystem::path trace = trace_file.Scalar();
    if (trace.is_relative()) {
      trace = std::filesystem::absolute(std::filesystem::path(source).parent_path() / trace);
      root["workload"]["trace_file"] = trace.lexically_normal().string();
    }
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

// The one variant of `algorithm` (empty: the file's) and the chosen sweep values.
Variant make_variant(const YAML::Node& file_root, const std::string& source,
                     const conf::Experiment& base, const std::string& algorithm,
                     const VariantRequest& request, const std::vector<size_t>& index) {
  Variant v;
  v.algorithm =
      algorithm.empty() ? std::string(lb::to_string(base.balancer.fallback.algorithm)) : algorithm;
  v.name_parts = variant_name_parts(v.algorithm, request.sweeps, index);
  v.name = join_parts(v.name_parts, "");
  v.settings = variant_settings(algorithm, request, index);
  check_folder_name(v);
  YAML::Node root = YAML::Clone(file_root);
  for (const Setting& s : v.settings) {
    try {
      if (s.key == kAlgorithmKey) {
        v.notes = choose_algorithm(root, s.value);
      } else {
        set_path(root, parse_key_path(s.key), parse_value(s));
      }
    } catch (const std::invalid_argument& e) {
      const YAML::Mark mark = mark_of(file_root, s.key);
      throw conf::ConfigError(source, mark.line + 1, mark.column + 1, s.key,
                              fmt::format("{} (from {})", e.what(), s.option));
    }
  }
  v.yaml = resolved_yaml(root, base, source);
  try {
    v.experiment = conf::load_experiment_string(v.yaml, source);
    check_against_topology(v.experiment);
  } catch (const conf::ConfigError& e) {
    throw_in_file(e, file_root, source, v.settings);
  }
  return v;
}

}  // namespace

namespace {

// load_balancer.switches.<name> on a generated topology must name one of its switches (an
// explicit topology's are checked by the loader): a typo, or leaf0 on a fat tree, would leave
// the override unused and the run silently another experiment.
void check_switch_names(const conf::Experiment& e, const topo::Topology& t) {
  for (const auto& [name, at] : e.balancer.per_switch_at) {
    const topo::NodeId id = t.find(name);
    if (id != topo::kNoNode && t.node(id).kind == topo::NodeKind::kSwitch) continue;
    std::string message = fmt::format("no switch named '{}'", name);
    if (id != topo::kNoNode) {
      message += fmt::format(": {} is a host", name);
    } else {
      std::vector<std::string_view> names;
      for (topo::NodeId s : t.switches()) names.push_back(t.node(s).name);
      if (auto guess = conf::nearest(name, names)) {
        message += fmt::format("; did you mean '{}'?", *guess);
      } else {
        // One name a level, as examples of the generator's naming.
        std::vector<std::string_view> examples;
        std::set<uint8_t> levels;
        for (topo::NodeId s : t.switches()) {
          if (levels.insert(t.node(s).level).second) examples.push_back(t.node(s).name);
        }
        message += fmt::format("; expected a switch of the {} topology, such as {}",
                               topo::to_string(t.kind), conf::join(examples));
      }
    }
    throw conf::ConfigError(e.source, at.line, at.column, "load_balancer.switches." + name,
                            message);
  }
}

}  // namespace

// Link events and per-switch balancers name switches (and links) of the topology: checked now,
// at their place in the file, not when the variant's fabric is built.
void check_against_topology(const conf::Experiment& e) {
  const bool names =
      !e.balancer.per_switch_at.empty() && e.topology.generator != topo::Kind::kExplicit;
  if (e.events.empty() && !names) return;
  const topo::Topology t = topo::build(e.topology, e.links);
  if (names) check_switch_names(e, t);
  if (!e.events.empty()) topo::plan_link_events(e, t);
}


Sweep parse_sweep(const std::string& text, const std::string& option) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || trim(text.substr(0, eq)).empty()) {
    throw std::invalid_argument(
        option == "--set"
            ? fmt::format("--set '{}': expected KEY=VALUE, e.g. measurement.queue_sample=10us",
                          text)
            : fmt::format("{} '{}': expected KEY=VALUE[,VALUE...], e.g. "
                          "workload.message_size=64KB,1MB",
                          option, text));
  }
  Sweep sweep;
  sweep.key = trim(text.substr(0, eq));
  try {
    parse_key_path(sweep.key);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} {}: key {}", option, text, e.what()));
  }
  sweep.values = split_values(text.substr(eq + 1));
  std::set<std::string> seen;
  for (const std::string& value : sweep.values) {
    if (value.empty()) {
      throw std::invalid_argument(fmt::format("{} {}: empty value", option, text));
    }
    if (!seen.insert(value).second) {
      throw std::invalid_argument(
          fmt::format("{} {}: value '{}' is listed twice", option, text, value));
    }
  }
  return sweep;
}

std::vector<NamePart> variant_name_parts(const std::string& algorithm,
                                         const std::vector<Sweep>& sweeps,
                                         const std::vector<size_t>& value_index) {
  std::vector<NamePart> parts = {{"", directory_safe(algorithm)}};
  for (size_t i = 0; i < sweeps.size(); ++i) {
    std::string label = last_key(sweeps[i].key);
    for (size_t j = 0; j < sweeps.size(); ++j) {
      if (j != i && last_key(sweeps[j].key) == label) label = sweeps[i].key;
    }
    parts.push_back(
        {sweeps[i].key, directory_safe(label + "=" + sweeps[i].values[value_index[i]])});
  }
  return parts;
}

std::string variant_name(const std::string& algorithm, const std::vector<Sweep>& sweeps,
                         const std::vector<size_t>& value_index) {
  return join_parts(variant_name_parts(algorithm, sweeps, value_index), "");
}

std::string name_without(const Variant& variant, const std::string& key) {
  return join_parts(variant.name_parts, key);
}

std::vector<Variant> expand_variants(const std::string& yaml, const std::string& source,
                                     const VariantRequest& request) {
  const conf::Experiment base =
      conf::load_experiment_string(yaml, source, conf::Checks::kTemplate);
  check_default_name(base);
  check_request(request);
  const YAML::Node file_root = YAML::Load(yaml);  // the loader parsed it already

  std::vector<std::string> algorithms = request.algorithms;
  if (algorithms.empty()) algorithms.push_back("");  // the file's own

  std::vector<Variant> variants;
  std::set<std::string> names;
  for (const std::string& algorithm : algorithms) {
    // An odometer over the sweeps' values: the last sweep varies fastest.
    std::vector<size_t> index(request.sweeps.size(), 0);
    while (true) {
      Variant v = make_variant(file_root, source, base, algorithm, request, index);
      if (!names.insert(v.name).second) {
        throw std::invalid_argument(fmt::format(
            "two variants are named '{}'; sweep values must differ in letters or digits", v.name));
      }
      variants.push_back(std::move(v));
      size_t i = index.size();
      while (i > 0 && ++index[i - 1] == request.sweeps[i - 1].values.size()) index[--i] = 0;
      if (i == 0) break;
    }
  }
  return variants;
}

Sweep seed_sweep(uint64_t first, uint32_t count) {
  Sweep s{kSeedKey, {}};
  for (uint32_t i = 0; i < count; ++i) s.values.push_back(std::to_string(first + i));
  return s;
}

std::string name_without_seed(const std::string& variant_name) {
  const std::string part = std::string("-") + kSeedKey + "=";
  const size_t at = variant_name.rfind(part);
  if (at == std::string::npos) return variant_name;
  const std::string digits = variant_name.substr(at + part.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    return variant_name;
  }
  return variant_name.substr(0, at);
}

}  // namespace spraylab::fabric

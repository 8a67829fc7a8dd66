#include "fabric/cli/algorithms_cli.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>

#include "switch/lb/algorithm.h"

namespace spraylab::fabric {
namespace {

// The `load_balancer` keys an algorithm takes besides `algorithm`, as the schema accepts them.
std::string keys_of(const lb::AlgorithmInfo& a) {
  std::string keys(a.keys);
  if (a.traits.queue_depths) keys += (keys.empty() ? "" : " ") + std::string(lb::kQueueKeys);
  return keys;
}

void print_algorithms(bool json, bool names_only) {
  if (names_only) {
    for (const lb::AlgorithmInfo& a : lb::kAlgorithms) fmt::print("{}\n", a.name);
    return;
  }
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
      out.push_back({{"name", a.name},
                     {"keys", keys_of(a)},
                     {"reads_queue_depths", a.traits.queue_depths},
                     {"summary", a.summary}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  // Columns as wide as their longest entry (dragonfly-min's name, psp's keys).
  size_t name_width = std::string_view("ALGORITHM").size();
  size_t keys_width = std::string_view("KEYS (load_balancer.*)").size();
  for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
    name_width = std::max(name_width, std::string_view(a.name).size());
    keys_width = std::max(keys_width, keys_of(a).size());
  }
  fmt::print("{:<{}} {:<{}} {}\n", "ALGORITHM", name_width, "KEYS (load_balancer.*)", keys_width,
             "WHAT IT DOES");
  for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
    const std::string keys = keys_of(a);
    fmt::print("{:<{}} {:<{}} {}\n", a.name, name_width, keys.empty() ? "-" : keys, keys_width,
               a.summary);
  }
}

}  // namespace

void add_algorithms_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "algorithms", "List the load balancers an experiment's load_balancer.algorithm can name");
  static bool json = false, names = false;  // one command line per process
  auto* json_flag =
      cmd->add_flag("--json", json, std::string("as a JSON array of {name, keys (space-separated), reads_queue_depths, summary}"));
  cmd->add_flag("--names", names, std::string("names only, one per line"))->excludes(json_flag);
  cmd->final_callback([] { print_algorithms(json, names); });
}

}  // namespace spraylab::fabric

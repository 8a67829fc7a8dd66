// Loads an experiment file (YAML) into the typed structs of conf/experiment.h, checking every
// key and value. Any problem throws ConfigError, one line naming the file, line, column, key path,
// what was expected and what was found. The schema is documented in docs/configuration.md.
#pragma once

#include <string>

#include "conf/config_error.h"
#include "conf/experiment.h"

namespace spraylab::conf {

Experiment load_experiment_file(const std::string& path);
// The file's text, for callers that change it before loading (spraylab run's variants); a
// folder or a file that cannot be read throws the ConfigError load_experiment_file would.
std::string read_experiment_text(const std::string& path);
// One load balancer as a YAML map (the keys of `load_balancer:` without layers and switches),
// e.g. "{algorithm: psp, bands: 8}", checked as in a file.
BalancerSpec load_balancer_string(const std::string& yaml, const std::string& source_name);
// How much of a file the loader holds to its own topology. kRun: the experiment as it runs.
// kTemplate: a file that --set, --sweep or a reproduction's runs change before each variant runs
// (fabric/run/variants.h): the workload keys bounded by the topology's host count
// (conf/workload_ranks.h) are checked on each variant instead, whose load is kRun (a file at k = 4
// with fan_in: 10, swept to k = 6 and 8, is valid).
enum class Checks { kRun, kTemplate };

// source_name is what errors print as the file, and whose stem is the default name.
Experiment load_experiment_string(const std::string& yaml, const std::string& source_name,
                                  Checks checks = Checks::kRun);

}  // namespace spraylab::conf

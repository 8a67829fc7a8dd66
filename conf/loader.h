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
// source_name is what errors print as the file, and whose stem is the default name.
Experiment load_experiment_string(const std::string& yaml, const std::string& source_name);

}  // namespace spraylab::conf

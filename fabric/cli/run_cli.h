// `spraylab run EXPERIMENT.yaml [...]`: the experiment runner's command line (docs/runner.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace spraylab::fabric {

// Adds `run` to `app`. When it runs, `*exit_code` receives the runner's result: 0 when every
// variant completed, 1 otherwise. Bad input throws conf::ConfigError or std::invalid_argument.
// `command_line` is recorded in each variant's run.json.
void add_run_command(CLI::App& app, int* exit_code, const std::string& command_line);

}  // namespace spraylab::fabric

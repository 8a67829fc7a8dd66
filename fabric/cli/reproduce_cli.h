// `spraylab reproduce NAME`: runs a reproduction of a paper's result (conf/experiments/NAME.yaml
// with its `reproduce:` section) in virtual time, then draws its figures and evaluates its
// checks into results/NAME/ (docs/reproduce.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace spraylab::fabric {

// Adds `reproduce` to `app`; `*exit_code` receives 0 when every variant completed and every
// check passed, 1 otherwise. Bad input throws conf::ConfigError or std::invalid_argument.
void add_reproduce_command(CLI::App& app, int* exit_code, const std::string& command_line);

}  // namespace spraylab::fabric

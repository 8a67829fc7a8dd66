// `spraylab fabric up|status|start|down`: the namespaced fabric's command line (docs/fabric.md,
// "One process per node"; fabric/namespaced/launcher.h does the work).
#pragma once

#include <CLI/CLI.hpp>

namespace spraylab::fabric {

// Adds `fabric` and its subcommands to `app`; `*exit_code` receives the command's result.
void add_fabric_command(CLI::App& app, int* exit_code);

}  // namespace spraylab::fabric

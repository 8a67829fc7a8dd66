// `spraylab algorithms`: the load balancers an experiment can name, from the one list
// (switch/lb/algorithm.h), so users and scripts (bench/switch-vs-testpmd) need not spell them.
#pragma once

#include <CLI/CLI.hpp>

namespace spraylab::fabric {

void add_algorithms_command(CLI::App& app);

}  // namespace spraylab::fabric

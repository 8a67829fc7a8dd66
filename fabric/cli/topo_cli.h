// `spraylab topo ...`: generate, describe and check topologies.
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

#include "topo/stats.h"

namespace spraylab::fabric {

void add_topo_commands(CLI::App& app);

// Prints statistics as an aligned table, one column per topology.
void print_stats_table(const std::vector<topo::Stats>& columns,
                       const std::vector<std::string>& titles);

}  // namespace spraylab::fabric

// The start that spraylab-switch's and spraylab-gen's run() share.
#pragma once

#include <optional>
#include <vector>

namespace spraylab::net {

// The program's own arguments (those after the first `--`, behind `program` as their argv[0])
// when they ask for its help (-h or --help), else nullopt. Such a command line is answered without
// starting EAL, which would want hugepages and write a runtime folder (/var/run/dpdk/rte) only to
// print a usage text.
std::optional<std::vector<char*>> own_help_args(int argc, char** argv, const char* program);

// Starts EAL from the front of argv, then sends SIGINT and SIGTERM to `on_signal` (from here a
// signal stops the program cleanly, even during its start-up), and leaves argc/argv holding the
// program's own options with argv[0] = `program` (CLI11 reads argv[0] as the program's name).
// Returns false, having said why on stderr, when EAL does not start.
bool start_eal(int& argc, char**& argv, const char* program, void (*on_signal)(int));

}  // namespace spraylab::net
